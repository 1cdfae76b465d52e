// Package viewer is the browser face of npukit: given a file's name and
// bytes it returns everything the web page shows (the report page `npukit
// report` writes, the check findings and the `inspect --json` and `check
// --json` documents). It runs compiled to WebAssembly (cmd/npukit-wasm)
// and natively in tests, through the same library calls as the command.
package viewer

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/report"
)

// Result is what the page shows for one file. Fields are empty when the
// step that fills them failed; Error then says why, in the words the
// command would use.
type Result struct {
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"`
	Describe string `json:"describe,omitempty"`
	// Unsupported is true when the file is not of a kind npukit reads (or
	// reports); Error then names what was found.
	Unsupported bool   `json:"unsupported,omitempty"`
	Error       string `json:"error,omitempty"`
	// HTML is the self-contained report page.
	HTML string `json:"html,omitempty"`
	// Inspect and Check are the `inspect --json` and `check --json`
	// documents, indented as the command writes them.
	Inspect string `json:"inspect,omitempty"`
	Check   string `json:"check,omitempty"`
	// Summary is the report's key facts, in order.
	Summary  []report.KV `json:"summary,omitempty"`
	Errors   int         `json:"errors"`
	Warnings int         `json:"warnings"`
	Infos    int         `json:"infos"`
}

// Analyse opens data (a file named name) and builds its result. It never
// fails: every problem is in Result.Error.
func Analyse(name string, data []byte) Result {
	res := Result{Name: name}
	a, err := npukit.OpenBytes(name, data)
	if err != nil {
		var ue *detect.UnknownError
		if errors.As(err, &ue) {
			res.Unsupported = true
		}
		res.Error = err.Error()
		return res
	}
	res.Kind, res.Describe = string(a.Kind), a.Describe()
	if !npukit.Supports(a.Kind, "report") {
		res.Unsupported = true
		res.Error = name + ": recognised as " + a.Describe() + "; the viewer cannot show this kind yet (try the npukit command)"
		return res
	}
	o := &npukit.Options{}
	var msgs []string

	entry := clidoc.InspectEntry{Path: name, Kind: a.Kind, Variant: a.Variant}
	if out, err := a.Inspect(o); err != nil {
		entry.Error = err.Error()
		msgs = append(msgs, entry.Error)
	} else {
		entry.Result = out
	}
	res.Inspect = indentJSON([]clidoc.InspectEntry{entry})

	rep, err := a.Check(o)
	var unread []clidoc.FileError
	if err != nil {
		unread = append(unread, clidoc.FileError{Path: name, Message: err.Error()})
		msgs = append(msgs, err.Error())
	}
	doc := clidoc.NewCheck(1, rep.WithFile(name), unread, false)
	res.Check = indentJSON(doc)
	res.Errors, res.Warnings, res.Infos = doc.Summary.Errors, doc.Summary.Warnings, doc.Summary.Infos

	page, err := a.Report(o)
	if err != nil {
		msgs = append(msgs, err.Error())
	} else {
		var b bytes.Buffer
		if err := report.Render(&b, page); err != nil {
			msgs = append(msgs, err.Error())
		} else {
			res.HTML = b.String()
			res.Summary = page.Summary
		}
	}
	res.Error = strings.Join(dedupe(msgs), "\n")
	return res
}

func indentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return `{"error": ` + strings.TrimSpace(string(mustQuote(err.Error()))) + `}`
	}
	return string(b) + "\n"
}

func mustQuote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
