package neff

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/npukit/npukit/internal/conformance"
)

// tarEntry describes one raw tar entry for hand-made archives.
type tarEntry struct {
	name   string
	typ    byte
	data   string
	link   string
	format tar.Format
}

func rawTar(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Linkname: e.link, ModTime: time.Unix(1, 0), Format: e.format}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.data))
		}
	}
	tw.Close()
	return b.Bytes()
}

// wrap builds a NEFF around a raw tar without any sanitising.
func wrap(t testing.TB, pkg uint64, tarData []byte, form HashForm, pad bool) []byte {
	t.Helper()
	payload := tarData
	if pkg == 2 {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(tarData)
		zw.Close()
		if pad && b.Len()%PadBlock != 0 {
			b.Write(make([]byte, PadBlock-b.Len()%PadBlock))
		}
		payload = b.Bytes()
	}
	h := Header{PkgVersion: pkg, HeaderSize: HeaderSize, DataSize: uint64(len(payload)), NeffVersionMajor: 1, NumTPB: 1, LNCSize: 1,
		Hash: ComputeHash(payload, form), Name: "t.neff"}
	hb, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return append(hb, payload...)
}

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{PkgVersion: 2, HeaderSize: 1024, DataSize: 10240, NeffVersionMajor: 2, NeffVersionMinor: 3,
		BuildVersion: "2.0.1%x@y", NumTPB: 1, Hash: bytes.Repeat([]byte{7}, 32), UUID: bytes.Repeat([]byte{9}, 16),
		Name: "a/b.neff", RequestedTPBCount: 1, TPBPerNode: append([]byte{1}, make([]byte, 63)...), FeatureBits: 0x100, LNCSize: 2}
	b, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != HeaderSize {
		t.Fatalf("len %d", len(b))
	}
	if b[0x220+1] != 1 || b[0x228] != 2 || b[0xDC] != 'a' || b[0xAC] != 7 || b[0xCC] != 9 || b[0x18] != 2 {
		t.Fatal("field at wrong offset")
	}
	g, err := ParseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := g.Encode()
	if !bytes.Equal(b, b2) {
		t.Fatal("round trip differs")
	}
	if _, err := ParseHeader(b[:1023]); err == nil {
		t.Fatal("short header accepted")
	}
	h.Name = string(bytes.Repeat([]byte{'x'}, 257))
	if _, err := h.Encode(); err == nil {
		t.Fatal("overlong name accepted")
	}
}

func TestHashForms(t *testing.T) {
	data := []byte("payload")
	nat := ComputeHash(data, HashNatural)
	cc := ComputeHash(data, HashNeuronxCC)
	for w := 0; w < 4; w++ {
		for i := 0; i < 4; i++ {
			if cc[w*4+i] != nat[w*4+3-i] {
				t.Fatal("neuronx-cc form is not word-reversed")
			}
		}
	}
	if nat[31] != '0' || cc[31] != 0 {
		t.Fatal("tails")
	}
	for _, f := range []HashForm{HashNeuronxCC, HashNatural} {
		hc := VerifyHash(Header{PkgVersion: 2, Hash: ComputeHash(data, f)}, data)
		if !hc.OK || hc.Form != f {
			t.Fatalf("%s: %+v", f, hc)
		}
	}
	hc := VerifyHash(Header{PkgVersion: 2, Hash: nat}, []byte("other"))
	if hc.OK || hc.Form != HashNatural {
		t.Fatalf("mismatch: %+v", hc)
	}
	hc = VerifyHash(Header{PkgVersion: 1, Hash: ComputeHash(data, HashSHA256)}, data)
	if !hc.OK || hc.Form != HashSHA256 {
		t.Fatalf("sha: %+v", hc)
	}
}

func TestReadVariants(t *testing.T) {
	entries := []tarEntry{
		{name: "./", typ: tar.TypeDir},
		{name: "./sg00/", typ: tar.TypeDir},
		{name: "./sg00/def.json", data: "{}", format: tar.FormatGNU},
		{name: "./kelf-0.json", data: "{}", format: tar.FormatPAX},
		{name: "./sg00/" + strings.Repeat("x", 120) + ".bin", data: "", format: tar.FormatPAX},
	}
	for _, c := range []struct {
		pkg  uint64
		form HashForm
		pad  bool
	}{{2, HashNeuronxCC, true}, {2, HashNatural, false}, {1, HashSHA256, false}} {
		b := wrap(t, c.pkg, rawTar(t, entries), c.form, c.pad)
		f, err := Read(b, DefaultLimits())
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if !f.Hash.OK || f.Hash.Form != c.form {
			t.Fatalf("%+v: hash %+v", c, f.Hash)
		}
		if strings.Join(f.Tar.Formats, ",") != "gnu,pax,ustar" {
			t.Fatalf("%+v: formats %v", c, f.Tar.Formats)
		}
		if len(f.Members) != 3 || f.Members[0].Name != "sg00/def.json" || f.Tar.DirEntries != 2 || !f.Tar.DotSlash {
			t.Fatalf("%+v: members %+v tar %+v", c, f.Members, f.Tar)
		}
		if _, ok := f.Member("kelf-0.json"); !ok {
			t.Fatal("lookup")
		}
		if c.pad && (f.Payload.Padding == 0 || (f.Payload.Stored%PadBlock) != 0) {
			t.Fatalf("padding %+v", f.Payload)
		}
		if !c.pad && f.Payload.Padding != 0 {
			t.Fatalf("padding %+v", f.Payload)
		}
	}
}

func ruleOf(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Rule
	}
	return ""
}

// TestZipSlip: every unsafe entry is refused by the reader.
func TestZipSlip(t *testing.T) {
	for _, e := range []tarEntry{
		{name: "/etc/passwd", data: "x"},
		{name: "../x", data: "x"},
		{name: "sg00/../../x", data: "x"},
		{name: `..\x`, data: "x"},
		{name: "link", typ: tar.TypeSymlink, link: "/etc/passwd"},
		{name: "hard", typ: tar.TypeLink, link: "kelf-0.json"},
		{name: "dev", typ: tar.TypeChar},
		{name: "blk", typ: tar.TypeBlock},
		{name: "fifo", typ: tar.TypeFifo},
	} {
		b := wrap(t, 2, rawTar(t, []tarEntry{{name: "kelf-0.json", data: "{}"}, e}), HashNeuronxCC, true)
		_, err := Read(b, DefaultLimits())
		if ruleOf(err) != RuleUnsafeMember {
			t.Errorf("%q: got %v", e.name, err)
		}
	}
	b := wrap(t, 2, rawTar(t, []tarEntry{{name: "a", data: "1"}, {name: "./a", data: "2"}}), HashNeuronxCC, true)
	if _, err := Read(b, DefaultLimits()); ruleOf(err) != RuleDuplicateMember {
		t.Errorf("duplicate: %v", err)
	}
}

func TestLimits(t *testing.T) {
	big := string(make([]byte, 1<<20))
	b := wrap(t, 2, rawTar(t, []tarEntry{{name: "a", data: big}}), HashNeuronxCC, true)
	if _, err := Read(b, Limits{MaxDecompressed: 1 << 19, MaxMembers: 10}); ruleOf(err) != RuleTooLarge {
		t.Fatalf("decompressed cap: %v", err)
	}
	b = wrap(t, 2, rawTar(t, []tarEntry{{name: "a"}, {name: "b"}, {name: "c"}}), HashNeuronxCC, true)
	if _, err := Read(b, Limits{MaxDecompressed: 1 << 19, MaxMembers: 2}); ruleOf(err) != RuleTooLarge {
		t.Fatalf("member cap: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	good := wrap(t, 2, rawTar(t, []tarEntry{{name: "a", data: "abc"}}), HashNeuronxCC, true)
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string]struct {
		b    []byte
		rule string
	}{
		"short":       {good[:100], RuleHeaderTruncated},
		"pkg":         {mod(func(b []byte) []byte { b[0] = 3; return b }), RulePkgVersion},
		"header_size": {mod(func(b []byte) []byte { b[9] = 0; return b }), RuleHeaderSize},
		"data_size":   {mod(func(b []byte) []byte { b[0x13] = 1; return b }), RuleDataSize},
		"gzip":        {mod(func(b []byte) []byte { b[HeaderSize] = 0; return b }), RuleGzip},
		"truncated":   {mod(func(b []byte) []byte { b[0x10], b[0x11] = 30, 0; return b[:HeaderSize+30] }), RuleGzip},
	}
	for name, c := range cases {
		if _, err := Read(c.b, DefaultLimits()); ruleOf(err) != c.rule {
			t.Errorf("%s: want %s, got %v", name, c.rule, err)
		}
	}
	// A plain tar (pkg 1) whose entry claims more than the payload holds.
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "a", Typeflag: tar.TypeReg, Size: 1 << 30, Format: tar.FormatUSTAR})
	tw.Flush()
	tb.Write(make([]byte, 1024))
	if _, err := Read(wrap(t, 1, tb.Bytes(), HashSHA256, false), DefaultLimits()); ruleOf(err) != RuleTarFraming {
		t.Errorf("oversized plain-tar member: %v", err)
	}
}

func TestPackRoundTrip(t *testing.T) {
	ms := []Member{{Name: "sg00/def.json", Data: []byte(`{"var":{}}`)}, {Name: "kelf-0.json", Data: []byte("{}")}, {Name: "neff.json", Data: nil}}
	h := Header{PkgVersion: 2, NeffVersionMajor: 1, NumTPB: 1, LNCSize: 1, Name: "x.neff", UUID: bytes.Repeat([]byte{1}, 16)}
	for _, opt := range []PackOptions{{}, {HashForm: HashNatural}, {NoPadding: true}} {
		b, err := Pack(h, ms, opt)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := Pack(h, ms, opt)
		if !bytes.Equal(b, b2) {
			t.Fatal("pack is not deterministic")
		}
		f, err := Read(b, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		want := opt.HashForm
		if want == "" {
			want = HashNeuronxCC
		}
		if !f.Hash.OK || f.Hash.Form != want || f.Members[0].Name != "kelf-0.json" || !f.Tar.Sorted {
			t.Fatalf("%+v: %+v %+v", opt, f.Hash, f.Members)
		}
		if (f.Payload.Stored%PadBlock == 0) == opt.NoPadding && f.Payload.Padding != 0 {
			t.Fatalf("padding %+v", f.Payload)
		}
		m := f.Members[1]
		if m.Uid != 1000 || m.Uname != "nobody" || m.Mode != 0o664 || m.ModTime != 0 || f.Tar.Formats[0] != "ustar" {
			t.Fatalf("member attrs %+v %+v", m, f.Tar)
		}
	}
	h.PkgVersion = 1
	b, err := Pack(h, ms, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(b, DefaultLimits())
	if err != nil || !f.Hash.OK || f.Hash.Form != HashSHA256 || f.Payload.Compressed {
		t.Fatalf("pkg1: %v %+v", err, f)
	}
	if _, err := Pack(h, []Member{{Name: "../x"}}, PackOptions{}); err == nil {
		t.Fatal("unsafe name packed")
	}
}

func TestCorpusContainers(t *testing.T) {
	for _, p := range conformance.CorpusFiles(t, "neff", "*.neff") {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Read(b, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if !f.Hash.OK {
				t.Fatalf("hash %+v", f.Hash)
			}
			if f.Payload.PaddingNonZero || f.Payload.Trailing != 0 || len(f.Members) == 0 {
				t.Fatalf("payload %+v", f.Payload)
			}
			// Repacking with the same form reproduces the members.
			r, err := Pack(f.Header, f.Members, PackOptions{HashForm: f.Hash.Form})
			if err != nil {
				t.Fatal(err)
			}
			g, err := Read(r, DefaultLimits())
			if err != nil || !g.Hash.OK || len(g.Members) != len(f.Members) {
				t.Fatalf("repack: %v", err)
			}
			// Pack sorts members by name; not every producer does.
			byName := map[string][]byte{}
			for _, m := range f.Members {
				byName[m.Name] = m.Data
			}
			for _, m := range g.Members {
				if d, ok := byName[m.Name]; !ok || !bytes.Equal(d, m.Data) {
					t.Fatalf("member %q differs", m.Name)
				}
			}
		})
	}
}
