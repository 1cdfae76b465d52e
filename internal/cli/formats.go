package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/spf13/pflag"
)

// Output is what an inspection returns: it renders as text and marshals
// as JSON with the same content.
type Output interface {
	WriteText(w io.Writer) error
}

// Format connects a detected kind to its library reader.
type Format struct {
	Kind detect.Kind
	// Inspect reads the artifact and returns a renderable summary.
	Inspect func(env *Env, r detect.Result) (Output, error)
	// Check reads the artifact and verifies it. An error means the file
	// could not be read at all (exit 2); findings go in the report.
	Check func(env *Env, r detect.Result) (diag.Report, error)
	// InspectFlags adds the kind's own flags to the shared inspect command
	// (e.g. gemini's --layers); Inspect reads them from where they were
	// bound. Names must not clash with other kinds' flags.
	InspectFlags func(fs *pflag.FlagSet)
	// CheckFlags adds the kind's own flags to the shared check command
	// (e.g. the NEFF runtime to gate against), the same way.
	CheckFlags func(fs *pflag.FlagSet)
}

var formats = map[detect.Kind]Format{}

func registerFormat(f Format) {
	if _, dup := formats[f.Kind]; dup {
		panic("cli: format registered twice: " + string(f.Kind))
	}
	formats[f.Kind] = f
}

// supportedKinds lists kinds with a reader, sorted.
func supportedKinds() []detect.Kind {
	var ks []detect.Kind
	for k := range formats {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// detectFile detects a path and finds its format, turning every failure
// into an exit-2 error with a message a user can act on.
func detectFile(path string) (detect.Result, Format, error) {
	r, err := detect.Path(path)
	if err != nil {
		var ue *detect.UnknownError
		if errors.As(err, &ue) {
			return r, Format{}, usageErr("%v", err)
		}
		if os.IsNotExist(err) {
			return r, Format{}, usageErr("%s: no such file or directory", path)
		}
		return r, Format{}, usageErr("%s: %v", path, ioCause(err))
	}
	f, ok := formats[r.Kind]
	if !ok {
		return r, Format{}, usageErr("%s: recognised as %s; not supported yet", path, describe(r))
	}
	return r, f, nil
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

func describe(r detect.Result) string {
	if r.Variant != "" {
		return fmt.Sprintf("%s (%s variant)", r.Kind.Describe(), r.Variant)
	}
	return r.Kind.Describe()
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// worstCode combines exit codes: usage problems dominate findings.
func worstCode(a, b int) int {
	if a == ExitUsage || b == ExitUsage {
		return ExitUsage
	}
	return max(a, b)
}
