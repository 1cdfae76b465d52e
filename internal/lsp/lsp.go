// Package lsp is npukit's language server: over a stream (stdio), in the
// Language Server Protocol's JSON-RPC framing, it checks an NKI kernel as
// it is edited and publishes `nki check`'s findings as diagnostics on the
// document's lines. The kernel's function and arguments come from a
// '# npukit: check KERNEL(ARG=SPEC, ...)' comment in the document (see
// nki.Directive) or from a manifest entry for the document's file.
//
// The server keeps the text the editor sends (unsaved edits included) and
// traces it in place of the file on disk; helper modules beside the
// kernel are read from disk. It answers initialize and shutdown, and
// handles didOpen, didChange (full text), didSave and didClose.
package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/nki"
)

// MaxMessage bounds one message's declared length: an editor never sends
// a kernel this large, and a wrong header must not allocate gigabytes.
const MaxMessage = 64 << 20

// Server checks the documents a client opens.
type Server struct {
	// Manifest, when set, gives the function and arguments of documents
	// that carry no directive (matched by file path).
	Manifest *nki.Manifest
	// Policy applies rule control (a .npukit.yaml, flags) to every finding.
	Policy *ruleset.Policy

	out  *bufio.Writer
	docs map[string]string // URI -> text
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Serve reads requests from r and writes responses and notifications to
// w until the client sends exit (nil) or the stream ends (io.EOF is not
// an error after shutdown).
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	s.out = bufio.NewWriter(w)
	s.docs = map[string]string{}
	br := bufio.NewReader(r)
	shutdown := false
	for {
		body, err := readMessage(br)
		if err != nil {
			if errors.Is(err, io.EOF) && shutdown {
				return nil
			}
			return err
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			if err := s.reply(nil, nil, &rpcError{Code: -32700, Message: "parse error: " + err.Error()}); err != nil {
				return err
			}
			continue
		}
		switch m.Method {
		case "initialize":
			err = s.reply(m.ID, map[string]any{
				"capabilities": map[string]any{
					"textDocumentSync": map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": false}},
				},
				"serverInfo": map[string]string{"name": "npukit"},
			}, nil)
		case "initialized", "$/cancelRequest", "$/setTrace", "workspace/didChangeConfiguration":
		case "shutdown":
			shutdown = true
			err = s.reply(m.ID, nil, nil)
		case "exit":
			return s.out.Flush()
		case "textDocument/didOpen":
			var p struct {
				TextDocument struct{ URI, Text string } `json:"textDocument"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				s.docs[p.TextDocument.URI] = p.TextDocument.Text
				err = s.publish(p.TextDocument.URI)
			}
		case "textDocument/didChange":
			var p struct {
				TextDocument   struct{ URI string } `json:"textDocument"`
				ContentChanges []struct{ Text string }
			}
			if json.Unmarshal(m.Params, &p) == nil && len(p.ContentChanges) > 0 {
				s.docs[p.TextDocument.URI] = p.ContentChanges[len(p.ContentChanges)-1].Text
				err = s.publish(p.TextDocument.URI)
			}
		case "textDocument/didSave":
			var p struct {
				TextDocument struct{ URI string } `json:"textDocument"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				err = s.publish(p.TextDocument.URI)
			}
		case "textDocument/didClose":
			var p struct {
				TextDocument struct{ URI string } `json:"textDocument"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				delete(s.docs, p.TextDocument.URI)
				err = s.notify("textDocument/publishDiagnostics", map[string]any{"uri": p.TextDocument.URI, "diagnostics": []any{}})
			}
		default:
			if len(m.ID) > 0 { // a request we do not serve
				err = s.reply(m.ID, nil, &rpcError{Code: -32601, Message: "method not found: " + m.Method})
			}
		}
		if err != nil {
			return err
		}
	}
}

// readMessage reads one "Content-Length: N\r\n\r\n" framed body.
func readMessage(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			n, err = strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("lsp: bad Content-Length %q", v)
			}
		}
	}
	if n < 0 {
		return nil, errors.New("lsp: message without Content-Length")
	}
	if n > MaxMessage {
		return nil, fmt.Errorf("lsp: message of %d bytes (at most %d)", n, MaxMessage)
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func (s *Server) write(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	if _, err := s.out.Write(b); err != nil {
		return err
	}
	return s.out.Flush()
}

func (s *Server) reply(id json.RawMessage, result any, e *rpcError) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	if result == nil && e == nil {
		// A null result must still be sent ("result": null).
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": nil})
		if _, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
			return err
		}
		return s.out.Flush()
	}
	return s.write(message{ID: id, Result: result, Error: e})
}

func (s *Server) notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return s.write(message{Method: method, Params: b})
}

// Diagnostic is an LSP diagnostic (the fields npukit fills).
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity"` // 1 error, 2 warning, 3 information
	Code     string `json:"code,omitempty"`
	Source   string `json:"source"`
	Message  string `json:"message"`
}

// Range is a span of a document (0-based lines and characters).
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is a 0-based line and character.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func (s *Server) publish(uri string) error {
	text, ok := s.docs[uri]
	if !ok {
		return nil
	}
	return s.notify("textDocument/publishDiagnostics", map[string]any{"uri": uri, "diagnostics": s.Check(uri, text)})
}

// directiveLine finds the line a malformed directive's error names.
var directiveLine = regexp.MustCompile(`line (\d+)`)

// errLine finds "FILE:LINE" in a trace error ("k.py:12: NameError ...").
var errLine = regexp.MustCompile(`([^\s:]+\.py):(\d+)`)

// Check traces and checks one document's kernels and returns the findings
// on this document's lines (findings elsewhere, such as on the kernel as a
// whole, are put on the line of the directive that named the kernel).
func (s *Server) Check(uri, text string) []Diagnostic {
	out := []Diagnostic{}
	path := uriPath(uri)
	if path == "" {
		return out
	}
	dir, file := filepath.Dir(path), filepath.Base(path)
	lines := strings.Split(text, "\n")
	line0 := func(n int) Range {
		if n < 1 || n > len(lines) {
			n = 1
		}
		return Range{Position{n - 1, 0}, Position{n - 1, len([]rune(strings.TrimRight(lines[n-1], "\r")))}}
	}
	type job struct {
		o    nki.Options
		line int
	}
	var jobs []job
	ds, err := nki.Directives([]byte(text))
	if err != nil {
		n := 1
		if m := directiveLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		return append(out, Diagnostic{Range: line0(n), Severity: 1, Source: "npukit", Message: err.Error()})
	}
	for _, d := range ds {
		jobs = append(jobs, job{d.Options(dir, file), d.Line})
	}
	if len(jobs) == 0 && s.Manifest != nil {
		for i := range s.Manifest.Entries {
			o := nki.OptionsFor(s.Manifest, &s.Manifest.Entries[i])
			if filepath.Clean(filepath.Join(o.Dir, o.File)) == filepath.Clean(path) {
				jobs = append(jobs, job{o, 1})
			}
		}
	}
	if len(jobs) == 0 {
		return append(out, Diagnostic{Range: line0(1), Severity: 3, Source: "npukit",
			Message: "npukit checks this kernel once it knows its arguments: add a comment such as '# npukit: check my_kernel(a=float32[128,512])', or start the server with --manifest"})
	}
	for _, j := range jobs {
		j.o.Overlay = map[string][]byte{j.o.File: []byte(text)}
		ck, err := nki.TraceCheck(j.o)
		if err != nil {
			n := j.line
			if m := errLine.FindStringSubmatch(err.Error()); m != nil && m[1] == file {
				n, _ = strconv.Atoi(m[2])
			}
			out = append(out, Diagnostic{Range: line0(n), Severity: 1, Source: "npukit", Message: fmt.Sprintf("%s cannot be traced: %v", j.o.Function, err)})
			continue
		}
		kept, _ := ruleset.Inline(ck.Report, func(name string) []string {
			if name == file {
				return lines
			}
			return nil
		})
		kept, _ = s.Policy.Apply(kept)
		for _, d := range kept {
			n := j.line
			msg := d.Message
			if f, ln, _, ok := ruleset.SourcePosition(d.Location); ok && f == file {
				n = ln
			} else if d.Location != "" {
				msg = d.Location + ": " + msg
			}
			out = append(out, Diagnostic{Range: line0(n), Severity: severity(d.Severity), Code: d.Rule, Source: "npukit", Message: msg})
		}
	}
	return out
}

func severity(s diag.Severity) int {
	switch s {
	case diag.Error:
		return 1
	case diag.Warning:
		return 2
	}
	return 3
}

// uriPath is the local path of a file: URI ("" for another scheme).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}
