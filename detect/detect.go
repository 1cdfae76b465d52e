// Package detect recognises npukit's input formats by content, never by
// file name. It reads at most HeadSize bytes from the start and TailSize
// bytes from the end of a file (plus a few small reads to walk a TFLite
// model's operator codes), so it is cheap on multi-GiB inputs.
package detect

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/ntff"
)

// Kind is a recognised input format.
type Kind string

// Kinds npukit recognises.
const (
	NEFF          Kind = "neff"            // AWS Neuron executable (header + tar)
	NEFFDir       Kind = "neff-dir"        // unpacked NEFF directory (kelf-*.json inside)
	EdgeTPU       Kind = "edgetpu-tflite"  // TFLite model holding edgetpu-custom-op
	TFLite        Kind = "tflite"          // TFLite model without an Edge TPU op
	DarwiNN       Kind = "darwinn-package" // raw DarwiNN package (DWN1)
	GeminiIR      Kind = "gemini-ir"       // Gemini scheduler IR JSON
	MiniMallocCSV Kind = "minimalloc-csv"  // static allocation problem / solution
	SBUFPlan      Kind = "sbuf-plan"       // NeuronCore SBUF/PSUM allocation plan (YAML or JSON)
	ZebuTrace     Kind = "zebu-trace"      // ZeBu emulator instruction trace of a Gemini run
	NTFF          Kind = "ntff"            // Neuron profile capture of a NEFF run
)

// Describe returns a human name for the kind.
func (k Kind) Describe() string {
	switch k {
	case NEFF:
		return "NEFF (AWS Neuron executable)"
	case NEFFDir:
		return "unpacked NEFF directory"
	case EdgeTPU:
		return "Edge TPU model (TFLite with edgetpu-custom-op)"
	case TFLite:
		return "TFLite model without an Edge TPU custom op"
	case DarwiNN:
		return "DarwiNN package (DWN1)"
	case GeminiIR:
		return "Gemini scheduler IR"
	case MiniMallocCSV:
		return "MiniMalloc allocation CSV"
	case SBUFPlan:
		return "NeuronCore SBUF/PSUM allocation plan"
	case ZebuTrace:
		return "ZeBu emulator trace (Gemini run)"
	case NTFF:
		return "Neuron profile capture (NTFF)"
	}
	return string(k)
}

// Gemini IR variants.
const (
	VariantCompiler = "compiler" // final compiler IR (has `buffersize`)
	VariantRaw      = "raw"      // raw IR of the public Gemini code
)

// Result of detection.
type Result struct {
	Path    string `json:"path"`
	Kind    Kind   `json:"kind"`
	Variant string `json:"variant,omitempty"`
	Size    int64  `json:"size"`
}

// Sizes of the windows detection reads.
const (
	HeadSize = 4096
	TailSize = 4096
)

// UnknownError says that the content matches no format; it names what was
// found so the user can tell an empty, truncated or foreign file apart.
type UnknownError struct {
	Path   string
	Size   int64
	Head   []byte // up to 48 first bytes
	Reason string // a more specific hint, may be empty
	// NKIKernel: the file is an NKI kernel (Python source), which npukit
	// reads through `npukit nki` only; the message says so first (audit r3
	// #23: "unrecognised input" came before the hint).
	NKIKernel bool
}

// nkiHint is the message of an NKI kernel given to a command of artifacts.
const nkiHint = "is an NKI kernel (Python source), which npukit reads through its nki commands: `npukit nki inspect %s --arg NAME=DTYPE[SHAPE]` traces it (nki check, sim and report take the same arguments, --kernel NAME picks the function, and a '# npukit: check' comment in the file can give them)"

func (e *UnknownError) Error() string {
	if e.NKIKernel {
		return fmt.Sprintf("%s "+nkiHint, e.Path, e.Path)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: unrecognised input (%s bytes", e.Path, humanize.Count(e.Size))
	if line, ok := textStart(e.Head); ok {
		// A log or a README read by mistake: its words say more than hex.
		fmt.Fprintf(&b, " of text starting %q", line)
	} else if len(e.Head) > 0 {
		fmt.Fprintf(&b, ", first bytes % x", e.Head[:min(len(e.Head), 16)])
	}
	b.WriteString(")")
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	return b.String()
}

// textStart returns the first line of head when head is printable UTF-8
// text (a partial rune at its end allowed), cut at 40 bytes.
func textStart(head []byte) (string, bool) {
	if len(head) == 0 {
		return "", false
	}
	s := string(head)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	} else {
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1] // a rune cut by the window
		}
	}
	if s == "" || !utf8.ValidString(s) {
		return "", false
	}
	for i, r := range string(head) {
		if i >= len(s) {
			break
		}
		if r != '\t' && !unicode.IsPrint(r) {
			return "", false
		}
	}
	if len(s) > 40 {
		s = s[:40]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "..."
	}
	return s, true
}

// Path detects the kind of a file or directory.
func Path(path string) (Result, error) {
	st, err := inputfile.Stat(path)
	if err != nil {
		return Result{}, err
	}
	if st == nil {
		return Result{}, errors.New("standard input (-) is detected from its bytes: read it and use Reader")
	}
	if st.IsDir() {
		return dir(path)
	}
	f, st, err := inputfile.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	r, err := Reader(f, st.Size())
	r.Path = path
	var ue *UnknownError
	if errors.As(err, &ue) {
		ue.Path = path
	}
	return r, err
}

func dir(path string) (Result, error) {
	matches, err := filepath.Glob(filepath.Join(path, "kelf-*.json"))
	if err != nil {
		return Result{}, err
	}
	if len(matches) == 0 {
		return Result{}, &UnknownError{Path: path, Reason: "a directory without kelf-*.json (not an unpacked NEFF)"}
	}
	return Result{Path: path, Kind: NEFFDir}, nil
}

// Reader detects the kind of content of the given size.
func Reader(r io.ReaderAt, size int64) (Result, error) {
	res := Result{Size: size}
	head := make([]byte, min(size, HeadSize))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return res, err
	}
	unknown := func(reason string) (Result, error) {
		return res, &UnknownError{Size: size, Head: head[:min(len(head), 48)], Reason: reason}
	}
	if size == 0 {
		return unknown("empty file")
	}
	if len(head) >= 8 {
		switch string(head[4:8]) {
		case "TFL3":
			hasOp, err := hasEdgeTPUOp(r, size)
			if err != nil {
				return unknown("TFLite identifier but malformed model: " + err.Error())
			}
			if hasOp {
				res.Kind = EdgeTPU
			} else {
				res.Kind = TFLite
			}
			return res, nil
		case "DWN1":
			res.Kind = DarwiNN
			return res, nil
		}
	}
	if looksLikeNEFFHeader(head) {
		if size < neffHeaderSize {
			return unknown("truncated NEFF header")
		}
		res.Kind = NEFF
		return res, nil
	}
	if ntff.Looks(head, size) {
		res.Kind = NTFF
		return res, nil
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if trimmed[0] == '[' {
			if isZebuLine(trimmed) {
				res.Kind = ZebuTrace
				return res, nil
			}
			return unknown("a JSON array; a Gemini schedule is a JSON object")
		}
		tail := head
		if size > HeadSize {
			tail = make([]byte, min(size, TailSize))
			if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil && err != io.EOF {
				return res, err
			}
		}
		if v := geminiVariant(head, tail); v != "" {
			res.Kind, res.Variant = GeminiIR, v
			return res, nil
		}
		if bytes.Contains(head, []byte(`"tensors"`)) && bytes.Contains(head, []byte(`"partitions"`)) {
			res.Kind = SBUFPlan
			return res, nil
		}
		if v := geminiBody(head, tail); v != "" {
			res.Kind, res.Variant = GeminiIR, v
			return res, nil
		}
		return unknown("JSON without the keys of a Gemini schedule (buffersize, top_batch_cut, xlen) or of an SBUF plan (tensors, partitions)")
	}
	if isProblemCSV(head) {
		res.Kind = MiniMallocCSV
		return res, nil
	}
	if isSBUFPlanYAML(head) {
		res.Kind = SBUFPlan
		return res, nil
	}
	if looksLikeNKIKernel(head) {
		// npukit reads NKI kernels, but only through npukit nki, which
		// takes the kernel's function and arguments: "not a format npukit
		// reads" sent the author of a kernel away
		res, err := unknown("an NKI kernel (Python source)")
		err.(*UnknownError).NKIKernel = true
		return res, err
	}
	return unknown("")
}

// nkiUse matches a line of Python that uses NKI: an import of nki,
// neuronxcc.nki or their submodules, or an NKI decorator (a kernel snippet
// without its imports starts with @nki.jit).
var nkiUse = regexp.MustCompile(`(?m)^[ \t]*(?:(?:import|from)[ \t]+(?:neuronxcc\.)?nki(?:[. \t]|$)|from[ \t]+neuronxcc[ \t]+import[ \t]+nki\b|@nki\.(?:jit|compiler|baremetal)\b)`)

// looksLikeNKIKernel reports whether the head of a file is text that uses
// NKI (nkiUse).
func looksLikeNKIKernel(head []byte) bool {
	if _, ok := textStart(head); !ok {
		return false
	}
	return nkiUse.Match(head)
}

const neffHeaderSize = 1024

// looksLikeNEFFHeader checks pkg_version in {1,2} and header_size == 1024
// (u64 little-endian at offsets 0 and 8).
func looksLikeNEFFHeader(head []byte) bool {
	if len(head) < 16 {
		return false
	}
	pv := binary.LittleEndian.Uint64(head[0:])
	hs := binary.LittleEndian.Uint64(head[8:])
	return (pv == 1 || pv == 2) && hs == neffHeaderSize
}

func geminiVariant(head, tail []byte) string {
	has := func(key string) bool {
		k := []byte(`"` + key + `"`)
		return bytes.Contains(head, k) || bytes.Contains(tail, k)
	}
	if has("buffersize") {
		return VariantCompiler
	}
	if has("top_batch_cut") || has("xlen") {
		return VariantRaw
	}
	return ""
}

// geminiBody recognises a Gemini schedule whose top-level keys lie neither
// in the head nor in the tail (a writer that puts "-1" and buffersize before
// megabytes of core workloads and xlen/ylen in between): its workloads and
// DRAM tensors carry both transfer_id and workload_id members (a large first
// workload may hold one only in the tail, so both windows count). Buffer
// addresses and tensor orders exist only in the compiler IR.
func geminiBody(head, tail []byte) string {
	has := func(key string) bool {
		k := []byte(`"` + key + `"`)
		return bytes.Contains(head, k) || bytes.Contains(tail, k)
	}
	if !has("transfer_id") || !has("workload_id") {
		return ""
	}
	if has("address") || has("tensor_order") || has("tensor_id") || has("wl0_buffer") || has("wl1_buffer") {
		return VariantCompiler
	}
	return VariantRaw
}

// isZebuLine recognises the first line of a ZeBu emulator trace (package
// gemini/zebu): a Python list whose first element is a bare instruction name
// followed by a dict with single-quoted keys, e.g. "[ct_st, {'slyr': 0, ...".
// JSON cannot start that way (bare words and single quotes are not JSON).
func isZebuLine(b []byte) bool {
	i := 1
	for i < len(b) && b[i] == ' ' {
		i++
	}
	start := i
	for i < len(b) && (b[i] == '_' || b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' || b[i] >= '0' && b[i] <= '9' && i > start) {
		i++
	}
	if i == start {
		return false
	}
	rest := bytes.TrimLeft(b[i:], " ")
	if len(rest) == 0 || rest[0] != ',' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " ")
	return bytes.HasPrefix(rest, []byte("{'"))
}

func isProblemCSV(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	if len(line) == 0 || bytes.IndexByte(line, 0) >= 0 {
		return false
	}
	fields, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil {
		return false
	}
	return alloc.IsProblemHeader(fields)
}

// isSBUFPlanYAML recognises a YAML allocation plan (package neuroncore):
// text with a top-level `tensors:` key and tensors with `partitions`.
func isSBUFPlanYAML(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 || !bytes.Contains(head, []byte("partitions")) {
		return false
	}
	for line := range bytes.Lines(head) {
		if bytes.HasPrefix(line, []byte("tensors:")) {
			return true
		}
	}
	return false
}
