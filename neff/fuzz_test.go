package neff

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

func seedCorpus(f *testing.F) {
	dir := conformance.SharedDir()
	if dir == "" {
		return
	}
	b, err := os.ReadFile(dir + "/corpus/neff/stream_256k_fd1k__8996f172.neff")
	if err == nil {
		f.Add(b)
	}
}

func FuzzHeader(f *testing.F) {
	f.Add(make([]byte, HeaderSize))
	f.Add(bytes.Repeat([]byte{0xff}, HeaderSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			return
		}
		e, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		// Strings stop at NUL: the re-encoding reproduces the rest.
		h2, err := ParseHeader(e)
		if err != nil || h2.DataSize != h.DataSize || h2.Name != h.Name || !bytes.Equal(h2.Hash, h.Hash) {
			t.Fatal("header round trip")
		}
	})
}

func FuzzPayload(f *testing.F) {
	seedCorpus(f)
	b, _ := Pack(Header{PkgVersion: 2}, []Member{{Name: "a", Data: []byte("x")}}, PackOptions{})
	f.Add(b)
	b, _ = Pack(Header{PkgVersion: 1}, []Member{{Name: "a", Data: []byte("x")}}, PackOptions{})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := Limits{MaxDecompressed: 1 << 22, MaxMembers: 1000}
		Read(b, lim)
		// The decoding path (JSON parsed while inflating), check and summary.
		if _, m := CheckBytes(b, lim, DefaultRuntime); m != nil {
			Summarize(m).WriteText(io.Discard)
		}
	})
}

// FuzzTar feeds the bytes as a plain tar payload (pkg_version 1).
func FuzzTar(f *testing.F) {
	f.Add(rawTar(f, []tarEntry{{name: "./a", data: "x"}, {name: "b/", typ: '5'}}))
	f.Add(rawTar(f, []tarEntry{{name: "kelf-0.json", data: "{}", format: 4}}))
	f.Fuzz(func(t *testing.T, tb []byte) {
		h := Header{PkgVersion: 1, HeaderSize: HeaderSize, DataSize: uint64(len(tb)), Hash: ComputeHash(tb, HashSHA256)}
		hb, _ := h.Encode()
		file, err := Read(append(hb, tb...), Limits{MaxDecompressed: 1 << 22, MaxMembers: 1000})
		if err != nil {
			return
		}
		for _, m := range file.Members {
			if _, err := CleanName(m.Name); err != nil || m.Name == "" {
				t.Fatalf("unsafe member %q accepted", m.Name)
			}
		}
	})
}

// FuzzJSONModel feeds arbitrary def.json and engine JSON through Decode and
// Check: they must report, never panic.
func FuzzJSONModel(f *testing.F) {
	b := baseBuilder(f)
	ms, _ := b.Members()
	var def, eng []byte
	for _, m := range ms {
		switch m.Name {
		case "sg00/def.json":
			def = m.Data
		case "sg00/SP.json":
			eng = m.Data
		}
	}
	f.Add(def, eng)
	f.Add([]byte(`{"var":{"SB":{"type":"state-buffer","var_id":0}},"sp":"SP.json"}`), []byte(`{"dma":[{"desc":{"to":"SB","to_off":-5,"to_sizes":[1],"to_steps":[1]}}]}`))
	f.Fuzz(func(t *testing.T, def, eng []byte) {
		var members []Member
		for _, m := range ms {
			switch m.Name {
			case "sg00/def.json":
				m.Data = def
			case "sg00/SP.json":
				m.Data = eng
			}
			members = append(members, m)
		}
		file := &File{Header: b.Header, Members: members}
		file.Hash.OK = true
		m := Decode(file)
		Check(m, DefaultRuntime)
		Summarize(m).WriteText(io.Discard)
		Diff(m, Decode(&File{Header: b.Header, Members: ms}), DiffOptions{}).WriteText(io.Discard)
		for _, sg := range m.Subgraphs {
			if sg.Def != nil {
				if _, err := json.Marshal(sg.Def); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// FuzzJSONTree: the tree parser accepts exactly what encoding/json accepts,
// and converts to the same untyped value.
func FuzzJSONTree(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0,"x\u00e9\ud83d\ude00"],"b":null,"c":true}`, `[]`, `"\ud800x"`, `{"a":1,"a":2}`, `01`, `{"a" 1}`, "\"\xff\"", `1e`, ` [ {} ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tree, err := parseTree(b, 1<<20)
		if (err == nil) != json.Valid(b) {
			t.Fatalf("parseTree err %v, json.Valid %v", err, json.Valid(b))
		}
		if err != nil {
			return
		}
		var want any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&want); err != nil {
			t.Fatal(err)
		}
		x, _ := json.Marshal(untree(tree))
		y, _ := json.Marshal(want)
		if !bytes.Equal(x, y) {
			t.Fatalf("tree %s, encoding/json %s", x, y)
		}
	})
}

// FuzzReadParallel: the parallel read (JSON members parsed on a second
// CPU while the payload inflates) and the sequential one decode the same
// model and report the same findings, whatever the input. The parallel
// path was never fuzzed: it runs only when GOMAXPROCS > 1.
func FuzzReadParallel(f *testing.F) {
	for _, name := range []string{"p.neff"} {
		bld := NewBuilder(name)
		sg := bld.Subgraph("sg00")
		sg.AddVar("x", "input", 16)
		sg.AddVar("y", "output", 16)
		sg.AddQueue("q", "in", 16, "sp")
		sg.Engine("sp", "SP").AddDMA("q", "load", Copy("x", 0, []int64{16}, []int64{1}, "y", 0, []int64{16}, []int64{1}))
		if b, err := bld.Bytes(PackOptions{}); err == nil {
			f.Add(b)
		}
	}
	b, _ := Pack(Header{PkgVersion: 2}, []Member{{Name: "kelf-0.json", Data: []byte(`{"graphs":[{"name":"a","definition":"a/def.json"}]}`)}, {Name: "a/def.json", Data: []byte(`{"var":{"x":{"type":"input","var_id":0,"size":4}},"x":1,"x":2}`)}}, PackOptions{})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := Limits{MaxDecompressed: 1 << 22, MaxMembers: 1000}
		prev := runtime.GOMAXPROCS(1)
		seq, mSeq := CheckBytes(b, lim, DefaultRuntime)
		runtime.GOMAXPROCS(max(prev, 4))
		par, mPar := CheckBytes(b, lim, DefaultRuntime)
		runtime.GOMAXPROCS(prev)
		if (mSeq == nil) != (mPar == nil) {
			t.Fatalf("sequential model %v, parallel %v", mSeq != nil, mPar != nil)
		}
		var a, c strings.Builder
		seq.WriteText(&a)
		par.WriteText(&c)
		if a.String() != c.String() {
			t.Fatalf("findings differ:\nsequential:\n%s\nparallel:\n%s", a.String(), c.String())
		}
	})
}
