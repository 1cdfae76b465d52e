package cli_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
)

func neffCorpus(t *testing.T) []string {
	return conformance.CorpusFiles(t, "neff", "*.neff")
}

// dirFiles reads every file below dir by slash path.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// headerFields decodes header.json without the recomputed fields.
func headerFields(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var h map[string]any
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	delete(h, "data_size")
	delete(h, "hash")
	delete(h, "hash_form")
	delete(h, "padded")
	return h
}

// TestNeffUnpackPackCorpus: unpack -> pack -> unpack yields byte-identical
// members and header fields, the repacked file checks clean, packing is
// deterministic and diff sees only producer noise.
func TestNeffUnpackPackCorpus(t *testing.T) {
	for _, f := range neffCorpus(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tmp := t.TempDir()
			d1, d2 := filepath.Join(tmp, "d1"), filepath.Join(tmp, "d2")
			out, out2 := filepath.Join(tmp, "re.neff"), filepath.Join(tmp, "re2.neff")
			for _, args := range [][]string{
				{"neff", "unpack", f, "-o", d1},
				{"neff", "pack", d1, "-o", out},
				{"neff", "unpack", out, "-o", d2},
				{"neff", "pack", d2, "-o", out2},
				{"check", out},
				{"diff", f, out},
			} {
				if r := run(t, "", args...); r.code != 0 {
					t.Fatalf("%v: exit %d\n%s", args, r.code, r)
				}
			}
			a, b := dirFiles(t, d1), dirFiles(t, d2)
			if len(a) != len(b) || len(a) < 3 {
				t.Fatalf("%d files, then %d", len(a), len(b))
			}
			for n, data := range a {
				if n == neff.HeaderFileName {
					ha, hb := headerFields(t, data), headerFields(t, b[n])
					ja, _ := json.Marshal(ha)
					jb, _ := json.Marshal(hb)
					if !bytes.Equal(ja, jb) {
						t.Errorf("header fields differ:\n%s\n%s", ja, jb)
					}
					continue
				}
				if !bytes.Equal(data, b[n]) {
					t.Errorf("member %s differs after the round trip", n)
				}
			}
			x, _ := os.ReadFile(out)
			y, _ := os.ReadFile(out2)
			if !bytes.Equal(x, y) {
				t.Error("pack is not deterministic")
			}
		})
	}
}

// TestNeffInspectJSONLists: inspect --json lists the tensors neff.json
// declares, with dtype and shape.
func TestNeffInspectJSONLists(t *testing.T) {
	for _, f := range neffCorpus(t) {
		r := run(t, "", "inspect", "--json", f)
		if r.code != 0 {
			t.Fatalf("%s: %s", f, r)
		}
		var entries []struct {
			Kind   string
			Result struct {
				Inputs, Outputs []struct {
					Source, Name, DType string
					Shape               []int64
				}
				Memory struct {
					Total int64 `json:"total_bytes"`
				}
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &entries); err != nil || len(entries) != 1 {
			t.Fatalf("%v %s", err, r.stdout)
		}
		fh, err := neff.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mem, _ := fh.Member("neff.json")
		var nj struct {
			Metadata struct {
				Signatures map[string]struct {
					Inputs, Outputs map[string]struct {
						DType string
						Shape []int64
					}
				}
			}
		}
		if err := json.Unmarshal(mem.Data, &nj); err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, s := range nj.Metadata.Signatures {
			for n, x := range s.Inputs {
				want = append(want, "in "+n+" "+x.DType+" "+jsonOf(x.Shape))
			}
			for n, x := range s.Outputs {
				want = append(want, "out "+n+" "+x.DType+" "+jsonOf(x.Shape))
			}
		}
		res := entries[0].Result
		for _, x := range res.Inputs {
			if x.Source == "neff.json" {
				got = append(got, "in "+x.Name+" "+x.DType+" "+jsonOf(x.Shape))
			}
		}
		for _, x := range res.Outputs {
			if x.Source == "neff.json" {
				got = append(got, "out "+x.Name+" "+x.DType+" "+jsonOf(x.Shape))
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if len(want) == 0 || strings.Join(want, "|") != strings.Join(got, "|") {
			t.Errorf("%s: inspect lists %v, neff.json declares %v", filepath.Base(f), got, want)
		}
		if entries[0].Kind != "neff" || res.Memory.Total <= 0 {
			t.Errorf("%s: kind %q memory %d", filepath.Base(f), entries[0].Kind, res.Memory.Total)
		}
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// evilNeff wraps one tar entry (after a harmless kelf) in a valid NEFF
// container with a correct hash, so only the entry itself is wrong.
func evilNeff(t *testing.T, e tar.Header) []byte {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, h := range []tar.Header{{Name: "kelf-0.json", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg}, e} {
		h := h
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(bytes.Repeat([]byte("{}"), int(h.Size/2)))
		}
	}
	tw.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tb.Bytes())
	zw.Close()
	payload := gz.Bytes()
	h := neff.Header{PkgVersion: 2, HeaderSize: neff.HeaderSize, NeffVersionMajor: 1, NumTPB: 1, DataSize: uint64(len(payload)), Hash: neff.ComputeHash(payload, neff.HashNeuronxCC)}
	hb, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return append(hb, payload...)
}

// TestNeffUnpackRefusesZipSlip: unsafe entries are refused with exit 2 and
// nothing is written, neither DIR nor anything outside it.
func TestNeffUnpackRefusesZipSlip(t *testing.T) {
	for _, e := range []tar.Header{
		{Name: "../escape", Size: 2, Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "sg00/../../escape", Size: 2, Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "/tmp/escape", Size: 2, Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "escape", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		{Name: "escape", Typeflag: tar.TypeLink, Linkname: "kelf-0.json"},
		{Name: "escape", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3},
	} {
		tmp := t.TempDir()
		in := filepath.Join(tmp, "evil.neff")
		if err := os.WriteFile(in, evilNeff(t, e), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(tmp, "a", "b")
		r := run(t, "", "neff", "unpack", in, "-o", out)
		if r.code != 2 || !strings.Contains(r.stderr, "escape") {
			t.Errorf("%q: exit %d %s", e.Name, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(tmp, "escape")); err == nil {
			t.Errorf("%q: wrote outside DIR", e.Name)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: DIR created", e.Name)
		}
		if r := run(t, "", "check", in); r.code != 1 || !strings.Contains(r.stdout, "neff/unsafe-member") {
			t.Errorf("%q: check exit %d %s", e.Name, r.code, r.stdout)
		}
	}
}

func TestNeffExitCodes(t *testing.T) {
	files := neffCorpus(t)
	tmp := t.TempDir()
	f := files[0]
	raw, _ := os.ReadFile(f)
	bad := append([]byte(nil), raw...)
	bad[len(bad)/2] ^= 0xff
	badPath := filepath.Join(tmp, "bad.neff")
	os.WriteFile(badPath, bad, 0o644)
	d := filepath.Join(tmp, "d")
	// a directory without header.json (the output outside it: an output
	// inside the input directory is refused before anything is read)
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"neff", "unpack", f}, 2, "-o"},
		{[]string{"neff", "unpack", "/nonexistent.neff", "-o", d}, 2, "no such file"},
		{[]string{"neff", "pack", empty, "-o", filepath.Join(tmp, "x.neff")}, 2, "header.json"},
		// an output inside the packed directory would be packed next time
		{[]string{"neff", "pack", tmp, "-o", filepath.Join(tmp, "x.neff")}, 2, "inside the input directory"},
		{[]string{"neff", "unpack", f, "-o", d}, 0, ""},
		{[]string{"neff", "unpack", f, "-o", d}, 2, ""}, // non-empty DIR without --force
		{[]string{"neff", "unpack", f, "-o", d, "--force"}, 0, ""},
		{[]string{"neff", "pack", d, "-o", filepath.Join(tmp, "x.neff"), "--hash-form", "nope"}, 2, "hash-form"},
		{[]string{"neff", "pack", d, "-o", filepath.Join(tmp, "n.neff"), "--hash-form", "natural"}, 0, ""},
		{[]string{"check", filepath.Join(tmp, "n.neff")}, 0, ""},
		{[]string{"check", badPath}, 1, "neff/"},
		{[]string{"diff", f, f}, 0, "identical"},
		{[]string{"diff", f, files[len(files)-1]}, 1, "differing field"},
		{[]string{"inspect", f}, 0, "Device memory estimate"},
	} {
		r := run(t, "", c.args...)
		if r.code != c.code || !strings.Contains(r.stdout+r.stderr, c.want) {
			t.Errorf("%v: exit %d (want %d), want %q in\n%s", c.args, r.code, c.code, c.want, r)
		}
	}
	if r := run(t, "", "diff", "--json", f, filepath.Join(tmp, "n.neff")); r.code != 0 || !strings.Contains(r.stdout, `"header.hash"`) {
		t.Errorf("repacked diff: %s", r)
	}
}

// TestNeffReport: every corpus NEFF renders with its sections, offline.
func TestNeffReport(t *testing.T) {
	tmp := t.TempDir()
	for _, f := range neffCorpus(t) {
		out := filepath.Join(tmp, filepath.Base(f)+".html")
		if r := run(t, "", "report", f, "-o", out); r.code != 0 {
			t.Fatalf("%s: %s", f, r)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`id="neff-0-header"`, `id="neff-0-structure"`, `id="neff-0-io"`, `id="neff-0-engines"`, `id="neff-0-memory"`, "Device memory estimate", "kelf-0.json"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: report lacks %s", filepath.Base(f), want)
			}
		}
		if strings.Contains(string(b), "http://") || strings.Contains(string(b), "https://") {
			t.Errorf("%s: report references the network", filepath.Base(f))
		}
	}
}

// TestNeffDir: an unpacked NEFF directory is inspected, checked and
// compared like the file.
func TestNeffDir(t *testing.T) {
	f := neffCorpus(t)[0]
	d := filepath.Join(t.TempDir(), "d")
	if r := run(t, "", "neff", "unpack", f, "-o", d); r.code != 0 {
		t.Fatal(r)
	}
	if r := run(t, "", "check", d); r.code != 0 || !strings.Contains(r.stdout, "0 errors") {
		t.Fatalf("check dir: %s", r)
	}
	if r := run(t, "", "inspect", "--json", d); r.code != 0 || !strings.Contains(r.stdout, `"kind": "neff-dir"`) || !strings.Contains(r.stdout, `"inputs"`) {
		t.Fatalf("inspect dir: %s", r)
	}
	if r := run(t, "", "inspect", d); r.code != 0 || !strings.Contains(r.stdout, "unpacked directory, no payload") {
		t.Fatalf("inspect dir (text): %s", r)
	}
	if r := run(t, "", "report", d, "-o", filepath.Join(t.TempDir(), "d.html")); r.code != 0 {
		t.Fatalf("report dir: %s", r)
	}
	os.Remove(filepath.Join(d, "sg00", "def.json"))
	if r := run(t, "", "check", d); r.code != 1 {
		t.Fatalf("dir without def.json: %s", r)
	}
}

// TestNeffMaxBytesEnv: NPUKIT_NEFF_MAX_BYTES sets the cap on decompressed
// members; past it the error says how to raise it, and a bad value is a
// usage error naming the variable.
func TestNeffMaxBytesEnv(t *testing.T) {
	b := neff.NewBuilder("cap.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", 4096)
	sg.AddVar("out", "output", 4096)
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "cap.neff")
	os.WriteFile(f, raw, 0o644)
	if r := run(t, "", "inspect", f); r.code != 0 {
		t.Fatalf("default limit: exit %d %s", r.code, r.stderr)
	}
	t.Setenv("NPUKIT_NEFF_MAX_BYTES", "1k")
	r := run(t, "", "inspect", f)
	if r.code != 2 || !strings.Contains(r.stderr, "NPUKIT_NEFF_MAX_BYTES") || strings.Count(r.stderr, f) != 1 {
		t.Fatalf("1k limit: exit %d %q", r.code, r.stderr)
	}
	if r := run(t, "", "check", f); r.code != 1 || !strings.Contains(r.stdout, "neff/too-large") {
		t.Fatalf("check at 1k: exit %d %s", r.code, r.stdout)
	}
	t.Setenv("NPUKIT_NEFF_MAX_BYTES", "64M")
	if r := run(t, "", "inspect", f); r.code != 0 {
		t.Fatalf("64M limit: exit %d %s", r.code, r.stderr)
	}
	t.Setenv("NPUKIT_NEFF_MAX_BYTES", "lots")
	if r := run(t, "", "inspect", f); r.code != 2 || !strings.Contains(r.stderr, `NPUKIT_NEFF_MAX_BYTES="lots"`) {
		t.Fatalf("bad value: exit %d %s", r.code, r.stderr)
	}
}

// Every NEFF of both corpora (neuronx-cc 2.0, 2.16, 2.18 for trn1 and 2.21
// for trn2) checks with exit 0, carries no warning that every file of its
// producer (compiler release and target) carries (such a warning says
// nothing a user of that compiler can act on), and inspect --json names
// the compiler, target, NeuronCore generation, LNC and instance families.
func TestNeffCorpusGenerations(t *testing.T) {
	type producer struct {
		files    int
		warnings map[string]int // rule -> files carrying it
	}
	producers := map[string]*producer{}
	for _, f := range neffCorpus(t) {
		name := filepath.Base(f)
		r := run(t, "", "check", "--json", f)
		if r.code != 0 {
			t.Errorf("%s: check exit %d\n%s", name, r.code, r.stdout)
			continue
		}
		var rep struct {
			Diagnostics []struct{ Severity, Rule string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r = run(t, "", "inspect", "--json", f)
		if r.code != 0 {
			t.Fatalf("%s: inspect exit %d: %s", name, r.code, r.stderr)
		}
		var docs []struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &docs); err != nil || len(docs) != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		var s struct {
			Compiler string `json:"compiler"`
			Targets  []struct {
				Target string `json:"target"`
			} `json:"targets"`
			Hardware struct {
				Version  int      `json:"neuroncore_version"`
				LNC      int      `json:"lnc"`
				Families []string `json:"instance_families"`
				Runtime  string   `json:"runtime"`
			} `json:"hardware"`
		}
		if err := json.Unmarshal(docs[0].Result, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hw := s.Hardware
		if s.Compiler == "" || len(s.Targets) == 0 || hw.Version < 1 || hw.LNC < 1 || len(hw.Families) == 0 || hw.Runtime == "" {
			t.Errorf("%s: inspect --json lacks compiler/target/hardware: %+v", name, s)
		}
		rel := s.Compiler
		if parts := strings.SplitN(s.Compiler, ".", 3); len(parts) > 1 {
			rel = parts[0] + "." + parts[1]
		}
		key := rel + " " + s.Targets[0].Target
		p := producers[key]
		if p == nil {
			p = &producer{warnings: map[string]int{}}
			producers[key] = p
		}
		p.files++
		seen := map[string]bool{}
		for _, d := range rep.Diagnostics {
			if d.Severity == "warning" && !seen[d.Rule] {
				seen[d.Rule] = true
				p.warnings[d.Rule]++
			}
		}
	}
	if len(producers) < 2 {
		t.Fatalf("only %d producers found", len(producers))
	}
	for key, p := range producers {
		for rule, n := range p.warnings {
			if n == p.files {
				t.Errorf("producer %s: every one of its %d file(s) warns %s", key, p.files, rule)
			}
		}
	}
}
