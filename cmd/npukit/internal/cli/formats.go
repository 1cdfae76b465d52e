package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/spf13/pflag"
)

// Output is what the library's operations return: text (WriteText) and
// JSON with the same content.
type Output = npukit.Output

// openArg opens a FILE argument through the library (package npukit),
// turning every failure into an exit-2 error with a message a user can
// act on.
func openArg(path string) (*npukit.Artifact, error) {
	a, err := npukit.Open(path)
	if err != nil {
		var ue *detect.UnknownError
		if errors.As(err, &ue) {
			if ue.Reason == "" {
				return nil, usageErr("%v: not a format npukit reads (npukit inspect --help lists them)", err)
			}
			return nil, usageErr("%v", err)
		}
		if os.IsNotExist(err) {
			return nil, usageErr("%s: no such file or directory", path)
		}
		return nil, usageErr("%s: %v", path, ioCause(err))
	}
	if !npukit.Supports(a.Kind, "inspect") {
		return nil, usageErr("%s: recognised as %s; not supported yet", path, a.Describe())
	}
	return a, nil
}

// wrongKind is the one answer to a file of another kind than a command
// takes: "PATH: this is a NEFF (AWS Neuron executable), not a Gemini
// scheduler IR".
func wrongKind(path string, a *npukit.Artifact, want string) error {
	return usageErr("%s: this is %s, not %s", path, humanize.WithArticle(a.Describe()), humanize.WithArticle(want))
}

// refuseOtherKind returns wrongKind when path is recognised as a kind not
// in ok; an unrecognised or unreadable input is left to the command's own
// reader, whose message is more precise for a damaged file of the right
// kind.
func refuseOtherKind(path, want string, ok ...detect.Kind) error {
	a, err := npukit.Open(path)
	if err != nil {
		return nil
	}
	for _, k := range ok {
		if a.Kind == k {
			return nil
		}
	}
	return wrongKind(path, a, want)
}

// openAll opens every FILE argument before any work (detection only: the
// library reads a file when an operation asks), so that a kind flag is
// judged against all of them first; errs[i] is paths[i]'s error, kept for
// the command's loop to report in its place.
func openAll(paths []string) (arts []*npukit.Artifact, errs []error) {
	arts, errs = make([]*npukit.Artifact, len(paths)), make([]error, len(paths))
	for i, p := range paths {
		arts[i], errs[i] = openArg(p)
	}
	return arts, errs
}

// refuseInapplicableFlags is the one rule for a kind's flag (--dram-bw,
// --measured, --layers, --neff-runtime-major, ...) given with files it
// applies to none of: a usage error (exit 2) before any work, in every
// command that takes kind flags (issue 32: sim refused it, inspect and
// check printed a note after their output, report ignored it). A flag
// that applies to one of several files is used for that one. Files that
// did not open (nil) are left to the command's own error.
func refuseInapplicableFlags(fs *pflag.FlagSet, given []*npukit.Artifact) error {
	var opened []*npukit.Artifact
	for _, a := range given {
		if a != nil {
			opened = append(opened, a)
		}
	}
	if msgs := kindFlagsUnused(fs, opened); len(msgs) > 0 {
		return usageErr("%s", strings.Join(msgs, "; "))
	}
	return nil
}

// libErr turns an error of a library operation on path into exit 2,
// naming the path (unless it is "") and, for a limit, how to raise it.
func libErr(path string, err error) error {
	var ue *npukit.UnsupportedError
	if errors.As(err, &ue) {
		return usageErr("%v", err)
	}
	if errors.Is(err, npukit.ErrNeffTooLarge) {
		err = fmt.Errorf("%w (set %s to raise the limit)", err, neffMaxBytesEnv)
	}
	if path == "" { // the error names the file (diff's does)
		return usageErr("%v", ioCause(err))
	}
	// A file other than the input (a --trace or -o output) keeps its
	// name: "x.neff: no such file or directory" blamed an input that
	// exists for a trace directory that does not.
	var pe *fs.PathError
	if errors.As(err, &pe) && filepath.Clean(pe.Path) != filepath.Clean(path) {
		return usageErr("%s: %v", path, err)
	}
	return usageErr("%s: %v", path, ioCause(err))
}

// kindFlags binds a kind's own flags to one of the shared commands
// (inspect, check, sim) and returns what applies them, once parsed, to
// the library options. Names must not clash with other kinds' flags:
// prefix them with the format when in doubt.
type kindFlags func(fs *pflag.FlagSet) func(o *npukit.Options) error

type kindFlagBinder struct {
	bind  kindFlags
	kinds []detect.Kind // the kinds the flags apply to
}

var kindFlagBinders = map[string][]kindFlagBinder{}

// registerKindFlags adds flags of command that apply to files of kinds
// only; given with no file of those kinds they are refused, not ignored
// (refuseInapplicableFlags).
func registerKindFlags(command string, b kindFlags, kinds ...detect.Kind) {
	kindFlagBinders[command] = append(kindFlagBinders[command], kindFlagBinder{b, kinds})
}

// flagKinds records, per flag set, which kinds each kind flag applies to.
var flagKinds = map[*pflag.FlagSet]map[string][]detect.Kind{}

// bindKindFlags binds every kind's flags of command to fs and returns
// the function that builds the library options from them (and from the
// environment: NPUKIT_NEFF_MAX_BYTES).
func bindKindFlags(command string, fs *pflag.FlagSet) func() (*npukit.Options, error) {
	var apply []func(o *npukit.Options) error
	owners := map[string][]detect.Kind{}
	for _, b := range kindFlagBinders[command] {
		before := map[string]bool{}
		fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
		apply = append(apply, b.bind(fs))
		fs.VisitAll(func(f *pflag.Flag) {
			if !before[f.Name] {
				owners[f.Name] = b.kinds
			}
		})
	}
	flagKinds[fs] = owners
	return func() (*npukit.Options, error) { return libOptions(apply...) }
}

// kindFlagsUnused returns a message for every kind flag given on the
// command line that applies to none of the kinds given ("--dram-bw
// applies to Gemini scheduler IR only, not to a NEFF (AWS Neuron
// executable)"), sorted by flag name.
func kindFlagsUnused(fs *pflag.FlagSet, given []*npukit.Artifact) []string {
	var msgs []string
	fs.Visit(func(f *pflag.Flag) {
		if kinds := flagKinds[fs][f.Name]; len(kinds) > 0 {
			if m := npukit.FlagNotApplicable(f.Name, kinds, given); m != "" {
				msgs = append(msgs, m)
			}
		}
	})
	return msgs
}

// libOptions are the library options every command starts from, adjusted
// by apply.
func libOptions(apply ...func(o *npukit.Options) error) (*npukit.Options, error) {
	lim, err := neffLimits()
	if err != nil {
		return nil, err
	}
	o := &npukit.Options{NeffLimits: &lim}
	for _, f := range apply {
		if err := f(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// ioCause strips the operation and path an *fs.PathError repeats
// ("open x.csv: no such file or directory" -> "no such file or
// directory"), for messages that name the path themselves.
func ioCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error { return clidoc.WriteJSON(w, v) }

// render writes an output as text, or JSON under --json.
func render(env *Env, out Output) error {
	if env.JSON {
		return writeJSON(env.Stdout, out)
	}
	return out.WriteText(env.Stdout)
}

// worstCode combines exit codes: usage problems dominate findings.
func worstCode(a, b int) int {
	if a == ExitUsage || b == ExitUsage {
		return ExitUsage
	}
	return max(a, b)
}
