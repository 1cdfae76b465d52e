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
	if opt == (PackOptions{}) {
		opt = hj.PackOptions() // what pack does without flags
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
	// pack writes members sorted by name; other producers' tars are not.
	byName := map[string][]byte{}
	for _, m := range a.Members {
		byName[m.Name] = m.Data
	}
	for _, m := range b.Members {
		if d, ok := byName[m.Name]; !ok || !bytes.Equal(d, m.Data) {
			t.Fatalf("member %q differs or is new", m.Name)
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
	for _, p := range conformance.CorpusFiles(t, "neff", "*.neff") {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, g, out := roundTrip(t, raw, PackOptions{})
		sameContent(t, f, g)
		if g.Hash.Form != f.Hash.Form || (g.Payload.Padding > 0) != (f.Payload.Padding > 0) {
			t.Errorf("%s: unpack -> pack changed the hash form %s -> %s or the padding %d -> %d",
				filepath.Base(p), f.Hash.Form, g.Hash.Form, f.Payload.Padding, g.Payload.Padding)
		}
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

// Every MD5 storage form real compilers write verifies, is named, and
// survives unpack -> pack without flags (neuronx-cc 2.0 and 2.16 store the
// digest in natural order with a zero tail: it read as a hash mismatch).
func TestHashFormsKept(t *testing.T) {
	for _, form := range MD5Forms {
		raw, err := baseBuilder(t).Bytes(PackOptions{HashForm: form})
		if err != nil {
			t.Fatal(err)
		}
		f, g, _ := roundTrip(t, raw, PackOptions{})
		if !f.Hash.OK || f.Hash.Form != form {
			t.Errorf("%s: read as %+v", form, f.Hash)
		}
		if !g.Hash.OK || g.Hash.Form != form {
			t.Errorf("%s: repacked as %+v", form, g.Hash)
		}
		if rep := Check(Decode(f), DefaultRuntime); rep.HasErrors() {
			t.Errorf("%s: %v", form, rep)
		}
	}
	zero := ComputeHash([]byte("x"), HashNaturalZero)
	nat := ComputeHash([]byte("x"), HashNatural)
	if !bytes.Equal(zero[:16], nat[:16]) || !bytes.Equal(zero[16:], make([]byte, 16)) {
		t.Errorf("natural-zero form %x", zero)
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

// TestOpenDir: an unpacked corpus NEFF decodes and checks like the file,
// with or without header.json.
func TestOpenDir(t *testing.T) {
	dir := conformance.Corpus(t, "neff")
	p := conformance.Files(t, dir, "*.neff")[0]
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "u")
	if _, err := Unpack(m.File, out, false); err != nil {
		t.Fatal(err)
	}
	for _, withHeader := range []bool{true, false} {
		if !withHeader {
			os.Remove(filepath.Join(out, HeaderFileName))
		}
		dm, err := OpenDir(out, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if rep := Check(dm, DefaultRuntime); rep.HasErrors() {
			t.Fatalf("header %v: %v", withHeader, rep)
		}
		a, b := Summarize(m), Summarize(dm)
		if len(a.Inputs) != len(b.Inputs) || len(a.Subgraphs) != len(b.Subgraphs) || a.Memory != b.Memory {
			t.Fatalf("header %v: dir summary differs", withHeader)
		}
		if withHeader && a.Header.UUID != b.Header.UUID {
			t.Fatal("header.json not used")
		}
	}
}
