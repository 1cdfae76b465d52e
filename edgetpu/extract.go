package edgetpu

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
