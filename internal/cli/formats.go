package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
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
	return usageErr("%s: this is %s, not %s", path, withArticle(a.Describe()), withArticle(want))
}

// withArticle puts "a" or "an" before a kind's name.
func withArticle(s string) string {
	if s != "" && strings.ContainsRune("AEIOUaeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
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
	return usageErr("%s: %v", path, ioCause(err))
}

// kindFlags binds a kind's own flags to one of the shared commands
// (inspect, check, sim) and returns what applies them, once parsed, to
// the library options. Names must not clash with other kinds' flags:
// prefix them with the format when in doubt.
type kindFlags func(fs *pflag.FlagSet) func(o *npukit.Options) error

var kindFlagBinders = map[string][]kindFlags{}

func registerKindFlags(command string, b kindFlags) {
	kindFlagBinders[command] = append(kindFlagBinders[command], b)
}

// bindKindFlags binds every kind's flags of command to fs and returns
// the function that builds the library options from them (and from the
// environment: NPUKIT_NEFF_MAX_BYTES).
func bindKindFlags(command string, fs *pflag.FlagSet) func() (*npukit.Options, error) {
	var apply []func(o *npukit.Options) error
	for _, b := range kindFlagBinders[command] {
		apply = append(apply, b(fs))
	}
	return func() (*npukit.Options, error) { return libOptions(apply...) }
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
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

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
