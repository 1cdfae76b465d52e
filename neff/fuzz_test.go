package neff

import (
	"bytes"
	"os"
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
		Read(b, Limits{MaxDecompressed: 1 << 22, MaxMembers: 1000})
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
