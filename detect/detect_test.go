package detect_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/detect/detecttest"
	"github.com/npukit/npukit/internal/conformance"
)

func TestCorpusKinds(t *testing.T) {
	cases := []struct {
		sub, pattern string
		kind         detect.Kind
		want         int
	}{
		{"corpus/edgetpu", "*.tflite", detect.EdgeTPU, 20},
		{"corpus/neff", "*.neff", detect.NEFF, 6},
		{"corpus/gemini", "*.json", detect.GeminiIR, 4},
		{"benchmarks/minimalloc", "*.csv", detect.MiniMallocCSV, 11},
		{"corpus/gemini/zebu", "*.txt", detect.ZebuTrace, 3},
	}
	for _, c := range cases {
		dir := conformance.Shared(t, c.sub)
		files := conformance.Files(t, dir, c.pattern)
		if len(files) < c.want {
			t.Errorf("%s: %d files, want at least %d", c.sub, len(files), c.want)
		}
		for _, f := range files {
			r, err := detect.Path(f)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if r.Kind != c.kind {
				t.Errorf("%s: kind %s, want %s", f, r.Kind, c.kind)
			}
			if r.Kind == detect.GeminiIR {
				want := detect.VariantCompiler
				if strings.Contains(filepath.Base(f), "raw") {
					want = detect.VariantRaw
				}
				if r.Variant != want {
					t.Errorf("%s: variant %s, want %s", f, r.Variant, want)
				}
			}
		}
	}
}

// Files under the corpus that are not artifacts (golden dumps, the README)
// must not be mistaken for one.
func TestCorpusNonArtifacts(t *testing.T) {
	dir := conformance.Corpus(t, "")
	var files []string
	files = append(files, conformance.Files(t, dir, "edgetpu/golden/*.json")...)
	files = append(files, filepath.Join(dir, "README.md"))
	for _, f := range files {
		r, err := detect.Path(f)
		var ue *detect.UnknownError
		if !errors.As(err, &ue) {
			t.Errorf("%s: detected as %s (err %v), want unrecognised", f, r.Kind, err)
		}
	}
}

func TestJunk(t *testing.T) {
	junk, err := detecttest.WriteJunk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(junk) < 10 {
		t.Fatalf("only %d junk kinds", len(junk))
	}
	for _, j := range junk {
		r, err := detect.Path(j.Path)
		if j.Name == "plain.tflite" {
			if err != nil || r.Kind != detect.TFLite {
				t.Errorf("%s: %v %v", j.Name, r.Kind, err)
			}
			continue
		}
		var ue *detect.UnknownError
		if !errors.As(err, &ue) {
			t.Errorf("%s: got kind %q err %v, want UnknownError", j.Name, r.Kind, err)
			continue
		}
		if !strings.Contains(err.Error(), j.Want) {
			t.Errorf("%s: error %q does not mention %q", j.Name, err, j.Want)
		}
	}
}

func TestSmallInputs(t *testing.T) {
	for _, c := range []struct {
		data string
		kind detect.Kind
		vari string
	}{
		{"id,lower,upper,size\n0,1,2,3\n", detect.MiniMallocCSV, ""},
		{"buffer,start,end,size,offset\r\nx,1,2,3,0\r\n", detect.MiniMallocCSV, ""},
		{`{"1": {}, "xlen": 2, "top_batch_cut": 1}`, detect.GeminiIR, detect.VariantRaw},
		{` {"buffersize": 1024, "xlen": 1}`, detect.GeminiIR, detect.VariantCompiler},
		{"\x00\x00\x00\x00DWN1rest", detect.DarwiNN, ""},
		{"# plan\nname: p\ntensors:\n  - {name: x, partitions: 128, free: [4], dtype: fp32}\nbody: []\n", detect.SBUFPlan, ""},
		{`{"tensors": [{"name": "x", "partitions": 128}], "body": []}`, detect.SBUFPlan, ""},
		{"[ct_st, {'slyr': 0, 'wkl': 0}, {'inst_idx': 0, 'time': [0, 161]}, {}]\n", detect.ZebuTrace, ""},
	} {
		r, err := detect.Reader(strings.NewReader(c.data), int64(len(c.data)))
		if err != nil || r.Kind != c.kind || r.Variant != c.vari {
			t.Errorf("%q: %+v %v", c.data, r, err)
		}
	}
}

// The compiler variant's distinguishing key sits at the end of real
// files: detection must find it in the tail window of a large file.
func TestGeminiKeyInTail(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"0": [`)
	for b.Len() < 3*detect.HeadSize {
		b.WriteString(`{"workload_id": 1},`)
	}
	b.WriteString(`{}], "buffersize": 8192, "xlen": 1}`)
	r, err := detect.Reader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil || r.Variant != detect.VariantCompiler {
		t.Fatalf("%+v %v", r, err)
	}
}

// countingReader fails the test if detection reads more than a few KiB.
type countingReader struct {
	r     *bytes.Reader
	total int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.total += len(p)
	return c.r.ReadAt(p, off)
}

func TestReadsLittle(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 64<<20)
	copy(big, `{"a":`)
	cr := &countingReader{r: bytes.NewReader(big)}
	detect.Reader(cr, int64(len(big)))
	if cr.total > detect.HeadSize+detect.TailSize {
		t.Fatalf("read %d bytes", cr.total)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("id,lower,upper,size\n"))
	f.Add(detecttest.PlainTFLite())
	f.Add([]byte(`{"xlen":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		detect.Reader(bytes.NewReader(data), int64(len(data)))
	})
}

// A writer may put the top-level keys (buffersize, xlen) in the middle of
// a large file, out of both windows: the workloads' own members identify
// the schedule and its variant.
func TestGeminiKeysInMiddle(t *testing.T) {
	for _, c := range []struct {
		entry, vari string
	}{
		{`{"workload_id": 1, "ifmap": [{"transfer_id": [3]}], "buffer": [{"address": 0, "tensor_order": 2}]},`, detect.VariantCompiler},
		{`{"workload_id": 1, "ifmap": {"transfer_id": [3]}, "buffer": [{"block": 2}]},`, detect.VariantRaw},
		// transfer_id only in the head, workload_id only in the tail
		{`{"buffer": [{"address": 0, "tensor_order": 2, "transfer_id": [3]}]},`, detect.VariantCompiler},
	} {
		var b bytes.Buffer
		b.WriteString(`{"-1": {"in": [], "out": []}, "0": [`)
		for b.Len() < 3*detect.HeadSize {
			b.WriteString(c.entry)
		}
		b.WriteString(`{}], "buffersize": 8192, "xlen": 1, "1": [`)
		for b.Len() < 6*detect.HeadSize {
			b.WriteString(c.entry)
		}
		b.WriteString(`{"workload_id": 9}]}`)
		r, err := detect.Reader(bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil || r.Kind != detect.GeminiIR || r.Variant != c.vari {
			t.Errorf("%s: %+v %v", c.vari, r, err)
		}
	}
}

// TestUnknownErrorText: text read by mistake (a compiler log, a README)
// is named by its first line, not by hex; binary keeps the hex bytes.
func TestUnknownErrorText(t *testing.T) {
	for _, c := range []struct {
		head []byte
		want string
	}{
		{[]byte("Edge TPU Compiler version 16.0.384591198\nInput model: x.tflite"), `text starting "Edge TPU Compiler version 16.0.384591198"`},
		{[]byte("Number of operations that will run on Edge TPU: 64"), `text starting "Number of operations that will run on Ed..."`},
		{[]byte("caf\xc3"), `text starting "caf"`}, // a rune cut by the window
		{[]byte("a\x00b"), "first bytes 61 00 62"},
		{[]byte{0xff, 0xfe, 'x'}, "first bytes ff fe 78"},
	} {
		got := (&detect.UnknownError{Path: "f", Size: 100, Head: c.head}).Error()
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: %s, want %s", c.head, got, c.want)
		}
	}
}

// An NKI kernel given to inspect, check or report is named as one, with
// the way to read it (npukit nki and the kernel's arguments), instead of
// "not a format npukit reads"; Python that does not use NKI, and a module
// whose name only starts with nki, stay plain unknown input.
func TestNKIKernelNamed(t *testing.T) {
	for _, c := range []struct {
		src  string
		nki  bool
		name string
	}{
		{"import numpy as np\nimport neuronxcc.nki.language as nl\n", true, "neuronxcc import"},
		{"from neuronxcc import nki\n", true, "from neuronxcc import nki"},
		{"import nki\nimport nki.isa as nisa\n", true, "current API"},
		{"from nki.language import par_dim\n", true, "from nki.language"},
		{"@nki.jit\ndef solution(a):\n    pass\n", true, "snippet without imports"},
		{"import nki_helpers\nx = 1\n", false, "module named nki_..."},
		{"import torch\nprint('nki')\n", false, "Python without NKI"},
	} {
		_, err := detect.Reader(strings.NewReader(c.src), int64(len(c.src)))
		var ue *detect.UnknownError
		if !errors.As(err, &ue) {
			t.Fatalf("%s: %v, want an UnknownError", c.name, err)
		}
		ue.Path = "k.py"
		// Audit r3 #23: the message says what the file is first, then the
		// command that reads it.
		if got := strings.HasPrefix(ue.Error(), "k.py is an NKI kernel") && strings.Contains(ue.Error(), "`npukit nki inspect k.py --arg"); got != c.nki || ue.NKIKernel != c.nki {
			t.Errorf("%s: %q", c.name, ue.Error())
		}
	}
}
