package edgetpu

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/humanize"
)

// ExtractedFile is one file `npukit edgetpu extract` writes.
type ExtractedFile struct {
	Name   string `json:"name"`
	What   string `json:"what"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
	Data   []byte `json:"-"`
}

// Manifest lists the extracted files.
type Manifest struct {
	Files       []ExtractedFile      `json:"files"`
	Executables []ManifestExecutable `json:"executables"`
}

// ManifestExecutable describes one extracted executable.
type ManifestExecutable struct {
	Dir        string `json:"dir"`
	Type       string `json:"type"`
	Name       string `json:"name"`
	Token      string `json:"parameter_caching_token"`
	BatchSize  int32  `json:"batch_size"`
	Scratch    int32  `json:"scratch_size_bytes"`
	Chunks     int    `json:"instruction_chunks"`
	Parameters int    `json:"parameter_bytes"`
}

// Extract lists the package, executable, parameter and chunk files of a
// model (sub-slices of the input, not copies) followed by manifest.json.
func Extract(m *Model) ([]ExtractedFile, error) {
	var man Manifest
	add := func(name, what string, data []byte) {
		h := sha256.Sum256(data)
		man.Files = append(man.Files, ExtractedFile{Name: name, What: what, Bytes: len(data), SHA256: hex.EncodeToString(h[:]), Data: data})
	}
	var pkg func(dir, what string, p *Package)
	pkg = func(dir, what string, p *Package) {
		add(dir+"/package.dwn", what, p.Data)
		for i, sub := range p.MultiChip {
			pkg(fmt.Sprintf("%s/multi_chip_%d", dir, i), fmt.Sprintf("%s multi_chip_package %d", what, i), sub)
		}
		for i, e := range p.Executables {
			ed := fmt.Sprintf("%s/executable_%d", dir, i)
			add(ed+"/executable.bin", fmt.Sprintf("executable %d (%s) of %s", i, e.Type, what), e.Data)
			add(ed+"/parameters.bin", fmt.Sprintf("parameters of executable %d", i), e.Parameters)
			for c, b := range e.Bitstreams {
				add(fmt.Sprintf("%s/chunk_%d.bin", ed, c), fmt.Sprintf("instruction chunk %d of executable %d", c, i), b.Data)
			}
			man.Executables = append(man.Executables, ManifestExecutable{Dir: ed, Type: e.Type.String(), Name: e.Name,
				Token: fmt.Sprintf("0x%016x", e.Token), BatchSize: e.BatchSize, Scratch: e.ScratchSizeBytes,
				Chunks: len(e.Bitstreams), Parameters: len(e.Parameters)})
		}
	}
	for oi, op := range m.Ops {
		for pi, p := range op.Packages {
			dir := fmt.Sprintf("op_%d/package_%d", oi, pi)
			what := fmt.Sprintf("package %d of Edge TPU op %d (%s)", pi, oi, p.Source)
			if op.Subgraph < 0 {
				dir, what = "package", "package"
			}
			pkg(dir, what, p)
		}
	}
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(man.Files, ExtractedFile{Name: "manifest.json", What: "this manifest", Bytes: len(b), Data: append(b, '\n')}), nil
}

// WriteExtracted writes the files of Extract into dir, atomically: dir
// appears complete or not at all, and a non-empty dir is replaced only
// with force. A blob the package refers to many times is written once;
// the other names are hard links to it.
func WriteExtracted(dir string, force bool, files []ExtractedFile) error {
	data := make([][]byte, len(files))
	for i, f := range files {
		data[i] = f.Data
	}
	same := link.Same(data)
	return atomicfile.Dir(dir, force, func(tmp string) error {
		for i, f := range files {
			p, err := atomicfile.Join(tmp, f.Name)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			first, _ := atomicfile.Join(tmp, files[same[i]].Name)
			if same[i] != i {
				if err := os.Link(first, p); err != nil {
					return err
				}
				continue
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
}

// Extraction is what `npukit edgetpu extract` wrote: the files and where.
type Extraction struct {
	Dir   string          `json:"dir"`
	Files []ExtractedFile `json:"files"`
}

// WriteText lists the files written with their sizes and what each holds.
func (o Extraction) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Extracted %s into %s\n", humanize.Plural(len(o.Files), "file"), o.Dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FILE\tSIZE\tWHAT")
	for _, f := range o.Files {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Name, humanize.Bytes(int64(f.Bytes)), f.What)
	}
	return tw.Flush()
}
