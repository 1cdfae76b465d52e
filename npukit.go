// Package npukit is the front door of the npukit library: open any
// supported artifact — an AWS Neuron NEFF (or an unpacked NEFF directory),
// a Neuron profile capture, a Coral Edge TPU model or plain TFLite model,
// a DarwiNN package, a Gemini scheduler IR, a MiniMalloc-style allocation
// problem, a NeuronCore SBUF/PSUM plan, a ZeBu emulator trace — by path or
// from bytes, the kind detected from content, and get from it what the
// npukit command gives: its summary (Inspect), its diagnostics (Check), its
// HTML report page (Report), its timing simulation (Simulate) and its
// semantic difference from another artifact of the same kind (Diff).
//
//	a, err := npukit.Open("model_edgetpu.tflite")
//	if err != nil {
//		log.Fatal(err)
//	}
//	rep, err := a.Check(nil) // the findings, a diag.Report
//	if err != nil {
//		log.Fatal(err)
//	}
//	m, err := a.EdgeTPUModel() // the decoded model, an *edgetpu.Model
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println(rep.Count(diag.Error), "errors,", len(edgetpu.Summarize(m).EdgeTPUOps), "Edge TPU ops")
//
// # Arguments
//
// Operations on one artifact are methods of *Artifact; those on several
// (Report of a group, Diff) are functions. Either way the artifacts come
// first and the *Options last; nil Options give every kind's defaults.
//
// # Typed access
//
// Inspect, Simulate and Diff return an Output, which renders as text
// (WriteText) and marshals to JSON with the same content. Each kind's
// concrete types are listed below, and its decoded form is read with a
// method of *Artifact; the format package then gives the typed summary
// (edgetpu.Summarize(m), for instance) and everything finer.
//
//   - edgetpu-tflite, tflite, darwinn-package: EdgeTPUModel; Inspect
//     returns *edgetpu.Summary, Simulate *EdgeTPUSimulation, Diff
//     *edgetpu.DiffResult.
//   - neff, neff-dir: Neff, NeffFile for a NEFF file's container alone
//     (header, hash, members) and NeffDMA for the DMA programs; Inspect
//     returns *neff.Summary, Simulate *NeffSimulation (*NeffMeasured with
//     Options.NeffMeasured), Diff *neff.DiffResult.
//   - ntff: Ntff; Inspect returns *NtffSummary, Simulate *NtffReplay,
//     Diff *ntff.DiffResult.
//   - gemini-ir: GeminiSchedule; Inspect returns *gemini.Summary, Simulate
//     *GeminiSimulation, Diff *GeminiDiff.
//   - minimalloc-csv: AllocTable, and SolveAlloc to place it; Inspect
//     returns *alloc.Summary.
//   - sbuf-plan: SbufPlan, and SbufSimulate for the simulation itself;
//     Inspect returns *neuroncore.PlanSummary, Simulate
//     *neuroncore.SimSummary.
//   - zebu-trace: ZebuTrace; Inspect returns *zebu.Summary, Simulate
//     *ZebuReplay.
//
// Each kind plugs in through an Adapter registered with Register; the
// command line, the browser viewer and Go programs all dispatch through the
// same registry, so they give the same answers.
package npukit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/report"
)

// Kind is a detected artifact kind.
type Kind = detect.Kind

// Artifact is an opened input of a detected kind. Opening reads only what
// detection needs; each operation reads the artifact in full (a path is
// read again, so a Go program can hold many artifacts cheaply).
type Artifact struct {
	// Name is the path, or the name given to OpenBytes.
	Name    string
	Kind    Kind
	Variant string // e.g. "compiler" or "raw" for Gemini IR
	path    string // "" when opened from bytes
	data    []byte // the bytes given to OpenBytes
}

// Open detects the artifact at path (a file, or an unpacked NEFF
// directory; "-" reads standard input). An unrecognised input is a *detect.UnknownError.
func Open(path string) (*Artifact, error) {
	if path == inputfile.Stdin {
		data, err := inputfile.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return OpenBytes(path, data)
	}
	r, err := detect.Path(path)
	if err != nil {
		return nil, err
	}
	return &Artifact{Name: path, Kind: r.Kind, Variant: r.Variant, path: path}, nil
}

// OpenAs opens path as kind k without detecting it, for a caller that
// knows better than detection (an allocation plan that declares no tensor
// yet, for instance); reading fails later if the content is not of k.
func OpenAs(path string, k Kind) *Artifact {
	return &Artifact{Name: path, Kind: k, path: path}
}

// OpenBytes detects an artifact held in memory; name is used in messages
// and reports (a file name, typically).
func OpenBytes(name string, data []byte) (*Artifact, error) {
	r, err := detect.Reader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		var ue *detect.UnknownError
		if errors.As(err, &ue) && ue.Path == "" {
			ue.Path = name
		}
		return nil, err
	}
	return &Artifact{Name: name, Kind: r.Kind, Variant: r.Variant, data: data}, nil
}

// Path returns the artifact's path, "" when it was opened from bytes.
func (a *Artifact) Path() string { return a.path }

// Bytes returns the artifact's content (read from its path when it was
// opened from one; an error for a directory).
func (a *Artifact) Bytes() ([]byte, error) {
	if a.path == "" {
		return a.data, nil
	}
	return inputfile.ReadFile(a.path)
}

// Describe names the kind in words: "NEFF (AWS Neuron executable)".
func (a *Artifact) Describe() string {
	if a.Variant != "" {
		return fmt.Sprintf("%s (%s variant)", a.Kind.Describe(), a.Variant)
	}
	return a.Kind.Describe()
}

// Output is a result that renders as text (WriteText) and marshals to JSON
// with the same content (encoding/json).
type Output interface {
	WriteText(w io.Writer) error
}

// Adapter connects a kind to the library: each function is optional (nil:
// the operation is not supported for the kind). Options are never nil when
// an adapter is called.
type Adapter struct {
	Kind     Kind
	Inspect  func(a *Artifact, o *Options) (Output, error)
	Check    func(a *Artifact, o *Options) (diag.Report, error)
	Report   func(as []*Artifact, o *Options) (*report.Page, error)
	Simulate func(a *Artifact, o *Options) (Output, error)
	// Diff returns the difference and whether the two are identical
	// (but for producer noise such as tokens, UUIDs and timestamps, where
	// the kind has any).
	Diff func(a, b *Artifact, o *Options) (Output, bool, error)
}

var adapters = map[Kind]Adapter{}

// Register adds a kind's adapter; registering a kind twice panics (a
// programming error).
func Register(ad Adapter) {
	if _, dup := adapters[ad.Kind]; dup {
		panic("npukit: kind registered twice: " + string(ad.Kind))
	}
	adapters[ad.Kind] = ad
}

// Kinds lists the kinds with an adapter, sorted.
func Kinds() []Kind {
	ks := make([]Kind, 0, len(adapters))
	for k := range adapters {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// KindsSupporting lists the kinds that support an operation (Supports),
// sorted.
func KindsSupporting(op string) []Kind {
	var ks []Kind
	for _, k := range Kinds() {
		if Supports(k, op) {
			ks = append(ks, k)
		}
	}
	return ks
}

// Supports reports whether an operation ("inspect", "check", "report",
// "simulate", "diff") is available for a kind.
func Supports(k Kind, op string) bool {
	ad, ok := adapters[k]
	if !ok {
		return false
	}
	switch op {
	case "inspect":
		return ad.Inspect != nil
	case "check":
		return ad.Check != nil
	case "report":
		return ad.Report != nil
	case "simulate":
		return ad.Simulate != nil
	case "diff":
		return ad.Diff != nil
	}
	return false
}

// UnsupportedError says that an operation is not available for a kind.
type UnsupportedError struct {
	Name string
	Kind string // described
	Op   string
}

// Error says which operation the kind does not support.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %s is not supported for %s", e.Name, e.Op, e.Kind)
}

// ErrUnsupported matches every *UnsupportedError with errors.Is.
var ErrUnsupported = errors.New("operation not supported for this kind")

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

func (a *Artifact) adapter(op string, has func(Adapter) bool) (Adapter, error) {
	ad, ok := adapters[a.Kind]
	if !ok || !has(ad) {
		return ad, &UnsupportedError{Name: a.Name, Kind: a.Describe(), Op: op}
	}
	return ad, nil
}

func orDefault(o *Options) *Options {
	if o == nil {
		return &Options{}
	}
	return o
}

// Inspect summarises the artifact; the Output's type is the kind's (see
// the package documentation).
func (a *Artifact) Inspect(o *Options) (Output, error) {
	ad, err := a.adapter("inspect", func(ad Adapter) bool { return ad.Inspect != nil })
	if err != nil {
		return nil, err
	}
	return ad.Inspect(a, orDefault(o))
}

// Check verifies the artifact against the rules of its format. An error
// means it could not be read at all; findings are in the report.
func (a *Artifact) Check(o *Options) (diag.Report, error) {
	ad, err := a.adapter("check", func(ad Adapter) bool { return ad.Check != nil })
	if err != nil {
		return nil, err
	}
	return ad.Check(a, orDefault(o))
}

// Simulate runs the timing model of the artifact's kind (a measured
// capture or trace is replayed); the Output's type is the kind's (see the
// package documentation).
func (a *Artifact) Simulate(o *Options) (Output, error) {
	ad, err := a.adapter("simulation", func(ad Adapter) bool { return ad.Simulate != nil })
	if err != nil {
		return nil, err
	}
	return ad.Simulate(a, orDefault(o))
}

// Report builds the artifact's report page; report.Render writes it as
// self-contained HTML.
func (a *Artifact) Report(o *Options) (*report.Page, error) {
	return Report([]*Artifact{a}, o)
}

// Report builds one report page of one or more artifacts of one kind
// (several Edge TPU models are grouped by caching token, for instance);
// report.Render writes it as self-contained HTML.
func Report(as []*Artifact, o *Options) (*report.Page, error) {
	if len(as) == 0 {
		return nil, errors.New("report: no artifact")
	}
	for _, a := range as[1:] {
		if !Comparable(as[0], a) {
			return nil, fmt.Errorf("report takes artifacts of one kind: %s is %s, %s is %s", as[0].Name, as[0].Describe(), a.Name, a.Describe())
		}
	}
	ad, err := as[0].adapter("report", func(ad Adapter) bool { return ad.Report != nil })
	if err != nil {
		return nil, err
	}
	page, err := ad.Report(as, orDefault(o))
	if err != nil || page == nil || page.Diagnostics == nil {
		return page, err
	}
	// The page's findings under the rule policy check applies (audit r3
	// #32: a rule the configuration disables was listed as an error).
	p, _ := checkPolicy()
	var suppressed diag.Report
	page.Diagnostics, suppressed = p.Apply(page.Diagnostics)
	page.Suppressed = len(suppressed)
	return page, nil
}

// Diff compares two artifacts of one kind semantically; identical is true
// when they differ in nothing but producer noise (tokens, UUIDs,
// timestamps). The Output's type is the kind's (see the package
// documentation).
func Diff(a, b *Artifact, o *Options) (out Output, identical bool, err error) {
	if !Comparable(a, b) {
		return nil, false, fmt.Errorf("diff compares files of one kind: %s is %s, %s is %s", a.Name, a.Describe(), b.Name, b.Describe())
	}
	ad, err := a.adapter("diff", func(ad Adapter) bool { return ad.Diff != nil })
	if err != nil {
		return nil, false, err
	}
	return ad.Diff(a, b, orDefault(o))
}

// FlagNotApplicable says that a kind's flag (its name, without dashes),
// which applies to files of kinds only, was given with files of none of
// them: "--dram-bw applies to Gemini scheduler IR only, not to a NEFF
// (AWS Neuron executable)"; "" when it applies to one of given.
func FlagNotApplicable(flag string, kinds []detect.Kind, given []*Artifact) string {
	seen := map[string]bool{}
	var what []string
	for _, a := range given {
		if slices.Contains(kinds, a.Kind) {
			return ""
		}
		if d := a.Describe(); !seen[d] {
			seen[d] = true
			what = append(what, humanize.WithArticle(d))
		}
	}
	if len(what) == 0 {
		return ""
	}
	var names []string
	for _, k := range kinds {
		if k != detect.NEFFDir {
			names = append(names, k.Describe())
		}
	}
	return fmt.Sprintf("--%s applies to %s only, not to %s", flag, strings.Join(names, " or "), strings.Join(what, " or "))
}

// Comparable reports whether Diff compares a and b: artifacts of one kind,
// a NEFF and an unpacked NEFF directory (one format, packed or not), or a
// TFLite model and an Edge TPU model (one model before and after
// edgetpu_compiler: the diff says what moved to the Edge TPU).
func Comparable(a, b *Artifact) bool {
	return a.Kind == b.Kind || a.IsNeff() && b.IsNeff() || tfliteFamily(a.Kind) && tfliteFamily(b.Kind)
}

// IncomparableHint is what to run instead of diff for two artifacts
// Comparable refuses, when another command compares them ("" when none
// does): a NEFF and a Neuron profile capture (either order) are a
// prediction and a measurement, which sim --measured sets side by side.
func IncomparableHint(a, b *Artifact, nameA, nameB string) string {
	if b.IsNeff() && a.Kind == detect.NTFF {
		a, b, nameA, nameB = b, a, nameB, nameA
	}
	if a.IsNeff() && b.Kind == detect.NTFF {
		return fmt.Sprintf("to compare the NEFF's simulation with the capture: npukit sim %s --measured %s", nameA, nameB)
	}
	return ""
}

// tfliteFamily: TFLite FlatBuffers, compiled for the Edge TPU or not.
func tfliteFamily(k Kind) bool { return k == detect.EdgeTPU || k == detect.TFLite }
