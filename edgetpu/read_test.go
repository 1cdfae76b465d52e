package edgetpu

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/fbs"
)

func TestReadCorpusZeroCopy(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	for _, path := range conformance.Files(t, dir, "*.tflite") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if len(m.Ops) == 0 {
			t.Fatalf("%s: no Edge TPU op", path)
		}
		inside := func(b []byte) bool {
			if len(b) == 0 {
				return true
			}
			p, lo := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&data[0]))
			return p >= lo && p+uintptr(len(b)) <= lo+uintptr(len(data))
		}
		for _, p := range m.Packages() {
			if !inside(p.Data) || string(data[p.FileOffset:p.FileOffset+4]) != string(p.Data[:4]) {
				t.Fatalf("%s: package is not a sub-slice at its offset", path)
			}
			for _, e := range p.Executables {
				if !inside(e.Parameters) || !inside(e.Data) {
					t.Fatalf("%s: executable data copied", path)
				}
				for _, b := range e.Bitstreams {
					if !inside(b.Data) {
						t.Fatalf("%s: bitstream copied", path)
					}
				}
			}
		}
	}
}

// Truncating a real package anywhere must give an error naming an offset
// and a path, never a panic.
func TestReadTruncatedPackage(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	data, err := os.ReadFile(filepath.Join(dir, "tools__split_concat_edgetpu.tflite"))
	if err != nil {
		t.Skip(err)
	}
	m, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	pkg := m.Packages()[0].Data
	for _, n := range []int{0, 7, 100, 4096, 4100, 20000, len(pkg) - 1} {
		_, err := Read(pkg[:n])
		if err == nil {
			t.Fatalf("truncated to %d: no error", n)
		}
		var fe *fbs.Error
		if errors.As(err, &fe) && fe.Path == "" && n > 8 {
			t.Fatalf("truncated to %d: error without a path: %v", n, err)
		}
	}
	// A corrupted offset inside the TFLite file names a file offset.
	c := append([]byte(nil), data...)
	off := m.Packages()[0].FileOffset + 4096 // the multi-executable
	for i := 0; i < 4; i++ {
		c[off+i] = 0xff
	}
	_, err = Read(c)
	if err == nil || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("corrupted: %v", err)
	}
}

// A vector of many offsets to one table must hit the structure budget
// (an error naming the offset), not allocate per element without bound.
func TestReadBudget(t *testing.T) {
	e := SynthPackage(DemoSpec()).Executables[0]
	e.Parameters = nil
	l := e.OutputLayers[1]
	for len(e.OutputLayers) < 3000 {
		e.OutputLayers = append(e.OutputLayers, l)
	}
	b, err := WriteExecutable(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&decoder{budget: fbs.NewBudget(int64(len(b)) + budgetSlack)}).executable(b, "Executable"); err != nil {
		t.Fatalf("3000 distinct layers: %v", err)
	}
	// Point every element of output_layers at the first layer table: the
	// same 3000 elements would now be built from one table.
	root, _ := fbs.Root(b, "Executable")
	v, _, _ := root.Vector(9, 4, "output_layers")
	first := v.Start() + int(binary.LittleEndian.Uint32(b[v.Start():]))
	for i := 0; i < v.Len(); i++ {
		p := v.Start() + 4*i
		binary.LittleEndian.PutUint32(b[p:], uint32(first-p))
	}
	_, err = (&decoder{budget: fbs.NewBudget(int64(len(b)) / 8)}).executable(b, "Executable")
	var fe *fbs.Error
	if !errors.Is(err, ErrBudget) || !errors.As(err, &fe) || fe.Offset != int64(v.Start()) {
		t.Fatalf("shared offsets: %v", err)
	}
}
