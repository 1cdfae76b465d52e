package nki

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki/python"
)

// A Request names the kernels to trace the way npukit's nki commands
// take them: one kernel file with its function and arguments, a manifest
// entry, or (for checking several) every entry of a manifest or every
// kernel that '# npukit: check' directives name in a set of files.
type Request struct {
	Function  string   // "" = the file's one @nki.jit function
	Args      []string // NAME=DTYPE[D0,D1,...] or NAME=VALUE (ParseArg)
	Grid      []string // the SPMD launch grid, one integer per dimension
	ProgramID []string // the traced instance (default all zero)
	Manifest  string   // a manifest file
	Entry     string   // an entry id of Manifest
	Arch      string   // v2, v3 or v4 ("" = the entry's or directive's, else v2)
	API       string   // beta1 or current ("" = from the kernel's imports)
}

// ErrKernelCount is Options' error when no kernel file, or more than one,
// is given without a manifest.
var ErrKernelCount = errors.New("give one KERNEL.py (or --manifest FILE --entry ID)")

// generation is the NCVersion of r.Arch ("" when none is given).
func (r Request) generation() (string, error) {
	if r.Arch == "" {
		return "", nil
	}
	g, ok := archGen[r.Arch]
	if !ok {
		return "", fmt.Errorf("--arch %q: want v2, v3 or v4", r.Arch)
	}
	return g, nil
}

// Options resolves the request for one kernel: files holds the kernel
// file (none with a manifest entry). It returns the trace options and the
// manifest entry's id ("" for a kernel file).
func (r Request) Options(files []string) (Options, string, error) {
	var o Options
	ver, err := r.generation()
	if err != nil {
		return o, "", err
	}
	if r.Manifest != "" {
		if len(files) > 0 || r.Function != "" || len(r.Args) > 0 {
			return o, "", errors.New("--manifest takes the file, kernel and arguments from the entry; give no KERNEL.py, --kernel or --arg")
		}
		if r.Entry == "" {
			return o, "", errors.New("--manifest needs --entry ID")
		}
		m, err := ReadManifest(r.Manifest)
		if err != nil {
			return o, "", pathCause(err)
		}
		e, err := m.Entry(r.Entry)
		if err != nil {
			return o, "", fmt.Errorf("%s: %v", r.Manifest, err)
		}
		o = OptionsFor(m, e)
		if ver != "" {
			o.NCVersion = ver
		}
		if r.API != "" {
			o.API = r.API
		}
		// --grid and --program-id replace the entry's (they were ignored:
		// audit r3 #26)
		if err := r.grid(&o); err != nil {
			return o, "", err
		}
		return o, e.ID, nil
	}
	if len(files) != 1 {
		return o, "", ErrKernelCount
	}
	abs, err := filepath.Abs(files[0])
	if err != nil {
		return o, "", err
	}
	kernel := r.Function
	if kernel == "" {
		// the file's one @nki.jit function, or the list to choose from
		ks, err := KernelFunctions(abs)
		if err != nil {
			return o, "", pathCause(err)
		}
		switch len(ks) {
		case 1:
			kernel = ks[0]
		case 0:
			return o, "", fmt.Errorf("%s has no @nki.jit function: give --kernel NAME", files[0])
		default:
			return o, "", fmt.Errorf("%s has %d kernels (%s): give --kernel NAME", files[0], len(ks), strings.Join(ks, ", "))
		}
	}
	o = Options{Dir: filepath.Dir(abs), File: filepath.Base(abs), Function: kernel, API: r.API, NCVersion: ver, ArgsByName: true}
	if o.NCVersion == "" {
		o.NCVersion = "gen2"
	}
	for _, a := range r.Args {
		arg, err := ParseArg(a)
		if err != nil {
			return o, "", fmt.Errorf("--arg %q: %v", a, err)
		}
		o.Args = append(o.Args, arg)
	}
	if err := r.grid(&o); err != nil {
		return o, "", err
	}
	return o, "", nil
}

// grid sets o's SPMD grid and traced instance from --grid and
// --program-id, when given (a new grid's instance defaults to all zero),
// and checks the instance lies in the grid.
func (r Request) grid(o *Options) error {
	g, err := parseInts(r.Grid)
	if err != nil {
		return fmt.Errorf("--grid: %v", err)
	}
	pid, err := parseInts(r.ProgramID)
	if err != nil {
		return fmt.Errorf("--program-id: %v", err)
	}
	if g != nil {
		o.Grid, o.ProgramID = g, nil
	}
	if pid != nil {
		o.ProgramID = pid
	}
	if len(o.ProgramID) == 0 { // (a manifest's [] is the first instance)
		o.ProgramID = make([]int64, len(o.Grid))
	}
	// The plan's rule, said of the flags.
	_, err = neuroncore.CheckGrid(o.Grid, o.ProgramID)
	if ge := (*neuroncore.GridError)(nil); errors.As(err, &ge) {
		flag := "--grid"
		if ge.ProgramID {
			flag = "--program-id"
		}
		return fmt.Errorf("%s: %s", flag, ge.Msg)
	}
	return err
}

func parseInts(s []string) ([]int64, error) {
	var out []int64
	for _, x := range s {
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", x)
		}
		out = append(out, n)
	}
	return out, nil
}

// pathCause strips the operation and path an *fs.PathError repeats.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// TraceCheck traces the kernel and checks it against its NeuronCore
// generation (CheckKernel). An *InternalError is a bug in npukit; any
// other error is the kernel's or the options'.
func TraceCheck(o Options) (*Checked, error) {
	res, err := Trace(o)
	if err != nil {
		return nil, err
	}
	arch, err := neuroncore.ArchByName(o.NCVersion)
	if err != nil {
		return nil, err
	}
	ck, err := CheckKernel(res, arch)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", o.File, err)
	}
	return ck, nil
}

// A Job is one kernel of a set to check: its trace options and the path
// its findings name.
type Job struct {
	Options Options
	Path    string
}

// ManifestJobs lists every entry of the request's manifest, the Arch and
// API of the request overriding the entries'; path names an entry's
// kernel file in findings.
func (r Request) ManifestJobs(path func(string) string) ([]Job, error) {
	ver, err := r.generation()
	if err != nil {
		return nil, err
	}
	m, err := ReadManifest(r.Manifest)
	if err != nil {
		return nil, pathCause(err)
	}
	var jobs []Job
	for i := range m.Entries {
		o := OptionsFor(m, &m.Entries[i])
		if ver != "" {
			o.NCVersion = ver
		}
		if r.API != "" {
			o.API = r.API
		}
		jobs = append(jobs, Job{Options: o, Path: path(filepath.Join(o.Dir, o.File))})
	}
	return jobs, nil
}

// DirectiveJobs lists the kernels the '# npukit: check' directives of
// files name. A file without a directive is skipped, or refused when it
// was named (named[p]) and not skipOther.
func (r Request) DirectiveJobs(files []string, named map[string]bool, skipOther bool) (jobs []Job, skipped []string, err error) {
	ver, err := r.generation()
	if err != nil {
		return nil, nil, err
	}
	for _, p := range files {
		src, err := ReadSource(p)
		if err != nil {
			return nil, nil, pathCause(err)
		}
		ds, err := Directives(src)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", p, err)
		}
		if len(ds) == 0 {
			if named[p] && !skipOther {
				return nil, nil, fmt.Errorf("%s: no '# npukit: check KERNEL(ARG=SPEC, ...)' comment; give --kernel and --arg, or a manifest", p)
			}
			skipped = append(skipped, p)
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range ds {
			o := d.Options(filepath.Dir(abs), filepath.Base(abs))
			if ver != "" {
				o.NCVersion = ver
			}
			o.API = r.API
			jobs = append(jobs, Job{Options: o, Path: p})
		}
	}
	return jobs, skipped, nil
}

// ReadSource reads a kernel source file, at most python.MaxSource bytes
// (the tracer's own limit), from a regular file.
func ReadSource(path string) ([]byte, error) {
	return inputfile.ReadFileMax(path, python.MaxSource)
}

// SourceLines returns, by the file name a finding's FILE:LINE uses, the
// lines of a source file in a kernel's directory (the kernel or a helper
// module beside it), for inline suppressions (ruleset.Inline); names with
// a directory part are not read.
func SourceLines(dir string) func(string) []string {
	cache := map[string][]string{}
	return func(name string) []string {
		if name != filepath.Base(name) || name == ".." {
			return nil
		}
		if l, ok := cache[name]; ok {
			return l
		}
		src, err := ReadSource(filepath.Join(dir, name))
		var lines []string
		if err == nil {
			lines = strings.Split(string(bytes.TrimRight(src, "\n")), "\n")
		}
		cache[name] = lines
		return lines
	}
}

// ManifestInputs lists the files a manifest makes a command read besides
// itself: every entry's kernel and the modules it imports, and the
// manifest's modules (nil when the manifest cannot be read).
func ManifestInputs(path string) []string {
	m, err := ReadManifest(path)
	if err != nil {
		return nil
	}
	var inputs []string
	for _, e := range m.Entries {
		inputs = append(inputs, filepath.Join(m.Dir(), e.File))
		inputs = append(inputs, ImportedFiles(m.Dir(), e.File, m.Modules)...)
	}
	for _, f := range m.Modules {
		inputs = append(inputs, filepath.Join(m.Dir(), f))
	}
	return inputs
}

// ManyKernels reports whether `nki check` of args checks a set of
// kernels (every entry of a manifest; files, directories or globs whose
// kernels carry '# npukit: check' directives) rather than the one kernel
// the request names; skipOther is --skip-other (a hook's list of files:
// check those with directives).
func (r Request) ManyKernels(args []string, skipOther bool) bool {
	if r.Manifest != "" {
		return r.Entry == ""
	}
	if r.Function != "" || len(r.Args) > 0 || len(r.Grid) > 0 {
		return false
	}
	if skipOther {
		return true
	}
	if len(args) != 1 {
		return len(args) > 1
	}
	st, err := os.Stat(args[0])
	if err != nil {
		return strings.ContainsAny(args[0], "*?[")
	}
	if st.IsDir() {
		return true
	}
	src, err := ReadSource(args[0])
	if err != nil {
		return false
	}
	ds, err := Directives(src)
	return err != nil || len(ds) > 0
}
