package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// lspClient drives `npukit lsp` over its standard streams as an editor does.
type lspClient struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func (c *lspClient) send(method string, params any, request bool) {
	c.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if request {
		c.id++
		m["id"] = c.id
	}
	b, err := json.Marshal(m)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		c.t.Fatal(err)
	}
}

type lspMessage struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct{ Message string }
}

func (c *lspClient) read() lspMessage {
	c.t.Helper()
	n := -1
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading a header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.out, body); err != nil {
		c.t.Fatal(err)
	}
	var m lspMessage
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatalf("%v: %s", err, body)
	}
	return m
}

type published struct {
	URI         string
	Diagnostics []struct {
		Range    struct{ Start struct{ Line int } }
		Severity int
		Code     string
		Message  string
	}
}

func (c *lspClient) diagnostics() published {
	c.t.Helper()
	m := c.read()
	if m.Method != "textDocument/publishDiagnostics" {
		c.t.Fatalf("got %+v, want diagnostics", m)
	}
	var p published
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.t.Fatal(err)
	}
	return p
}

func TestLanguageServer(t *testing.T) {
	dir := t.TempDir()
	path := overlapKernel(t, dir, false)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "lsp", "--no-config")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// A guard against a server that stops answering (the test would hang
	// until go test's own timeout): a read gives up after a generous while.
	if f, ok := out.(*os.File); ok {
		f.SetReadDeadline(time.Now().Add(5 * time.Minute))
	}
	c := &lspClient{t: t, in: in, out: bufio.NewReader(out)}
	uri := "file://" + filepath.ToSlash(path)

	c.send("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, true)
	if m := c.read(); m.ID == nil || *m.ID != 1 || !strings.Contains(string(m.Result), "textDocumentSync") {
		t.Fatalf("initialize: %+v", m)
	}
	c.send("initialized", map[string]any{}, false)

	// Open: the guide's overlap error on the declaration of t0 (line 20, 0-based 19).
	c.send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "python", "version": 1, "text": string(src)}}, false)
	p := c.diagnostics()
	var errs []int
	for _, d := range p.Diagnostics {
		if d.Severity == 1 {
			errs = append(errs, d.Range.Start.Line)
			if d.Code != "sbuf/lifetime-overlap" {
				t.Errorf("error %+v", d)
			}
		}
	}
	if p.URI != uri || len(errs) != 1 || errs[0] != 19 {
		t.Fatalf("didOpen: errors on lines %v: %+v", errs, p)
	}

	// Change (unsaved): moving t1 past t0 fixes it.
	fixed := strings.Replace(string(src), "mod_alloc(base_addr=t1_base", "mod_alloc(base_addr=2048", 1)
	c.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": fixed}}}, false)
	for _, d := range c.diagnostics().Diagnostics {
		if d.Severity == 1 {
			t.Errorf("after the fix: %+v", d)
		}
	}

	// A syntax error is reported on its line, not as a crash.
	broken := strings.Replace(fixed, "def overlapping(x, t1_base):", "def overlapping(x, t1_base)", 1)
	c.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []any{map[string]any{"text": broken}}}, false)
	if d := c.diagnostics().Diagnostics; len(d) != 1 || d[0].Severity != 1 || d[0].Range.Start.Line != 15 {
		t.Errorf("syntax error: %+v", d)
	}

	c.send("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}}, false)
	c.diagnostics()
	c.send("shutdown", nil, true)
	if m := c.read(); m.ID == nil || *m.ID != 2 || m.Error != nil {
		t.Fatalf("shutdown: %+v", m)
	}
	c.send("exit", nil, false)
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}
