package neff

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// roundTrip unpacks raw, packs the directory and returns the new file.
func roundTrip(t *testing.T, raw []byte, opt PackOptions) (*File, *File, []byte) {
	t.Helper()
	f, err := Read(raw, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "x")
	if _, err := Unpack(f, dir, false); err != nil {
		t.Fatal(err)
	}
	hj, ms, err := ReadDir(dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	out, err := Pack(hj.Header, ms, opt)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Read(out, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return f, g, out
}

func sameContent(t *testing.T, a, b *File) {
	t.Helper()
	if len(a.Members) != len(b.Members) {
		t.Fatalf("%d members, then %d", len(a.Members), len(b.Members))
	}
	for i := range a.Members {
		if a.Members[i].Name != b.Members[i].Name || !bytes.Equal(a.Members[i].Data, b.Members[i].Data) {
			t.Fatalf("member %d: %q differs from %q", i, a.Members[i].Name, b.Members[i].Name)
		}
	}
	ha, hb := a.Header, b.Header
	ha.DataSize, ha.Hash, hb.DataSize, hb.Hash = 0, nil, 0, nil
	if d := Diff(&Model{File: &File{Header: ha}}, &Model{File: &File{Header: hb}}, DiffOptions{Noise: true}); !d.Identical() {
		t.Fatalf("header fields differ: %+v", d.Differences)
	}
	if !b.Hash.OK {
		t.Fatal("repacked hash does not verify")
	}
}

func TestUnpackPackCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "neff")
	for _, p := range conformance.Files(t, dir, "*.neff") {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, g, out := roundTrip(t, raw, PackOptions{})
		sameContent(t, f, g)
		// Deterministic: packing the repacked file again gives the same bytes.
		_, _, again := roundTrip(t, out, PackOptions{})
		if !bytes.Equal(out, again) {
			t.Errorf("%s: pack is not deterministic", filepath.Base(p))
		}
		if rep := Check(Decode(g), DefaultRuntime); rep.HasErrors() {
			t.Errorf("%s: repacked file has errors:\n%v", filepath.Base(p), rep)
		}
	}
}

func TestUnpackPackForms(t *testing.T) {
	raw, err := baseBuilder(t).Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, g, _ := roundTrip(t, raw, PackOptions{HashForm: HashNatural})
	sameContent(t, f, g)
	if g.Hash.Form != HashNatural {
		t.Errorf("form %s", g.Hash.Form)
	}
	b := baseBuilder(t)
	b.Header.PkgVersion = 1
	raw, err = b.Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, g, _ = roundTrip(t, raw, PackOptions{})
	sameContent(t, f, g)
	if g.Hash.Form != HashSHA256 || g.Payload.Compressed {
		t.Errorf("pkg 1: %+v %+v", g.Hash, g.Payload)
	}
}

func TestReadDirRefuses(t *testing.T) {
	raw, err := baseBuilder(t).Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(raw, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "x")
	if _, err := Unpack(f, dir, false); err != nil {
		t.Fatal(err)
	}
	if _, err := Unpack(f, dir, false); err == nil {
		t.Error("unpack over a non-empty directory without replace")
	}
	if _, _, err := ReadDir(dir, Limits{MaxDecompressed: 100, MaxMembers: 100}); err == nil {
		t.Error("size limit not applied")
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "sg00", "link")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadDir(dir, DefaultLimits()); err == nil {
		t.Error("symlink packed")
	}
	os.Remove(filepath.Join(dir, HeaderFileName))
	if _, _, err := ReadDir(t.TempDir(), DefaultLimits()); err == nil {
		t.Error("no header.json accepted")
	}
}
