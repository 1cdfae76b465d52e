package lsp

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func TestReadMessageLimits(t *testing.T) {
	for name, in := range map[string]string{
		"no length":   "Content-Type: x\r\n\r\n{}",
		"negative":    "Content-Length: -1\r\n\r\n",
		"huge":        fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxMessage+1),
		"not numeric": "Content-Length: ten\r\n\r\n",
		"short body":  "Content-Length: 10\r\n\r\n{}",
	} {
		if _, err := readMessage(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	body, err := readMessage(bufio.NewReader(strings.NewReader(frame(`{"a":1}`))))
	if err != nil || string(body) != `{"a":1}` {
		t.Errorf("%q %v", body, err)
	}
}

func TestServeAnswersBadInputAndUnknownRequests(t *testing.T) {
	in := frame(`not json`) + frame(`{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:1","text":"x"}}}`) +
		frame(`{"jsonrpc":"2.0","id":8,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)
	var out bytes.Buffer
	if err := (&Server{}).Serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{`"code":-32700`, `"id":7`, `"code":-32601`, `"id":8,"jsonrpc":"2.0","result":null`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	// An untitled (non-file) document is not checked: no diagnostics sent.
	if strings.Contains(got, "publishDiagnostics") && strings.Contains(got, "untitled:1\",\"diagnostics\":[{") {
		t.Errorf("diagnostics for an untitled document:\n%s", got)
	}
}

func FuzzServe(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte(frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nonexistent/k.py"},"contentChanges":[{"text":"# npukit: check k(a=float32[1"}]}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		_ = (&Server{}).Serve(bytes.NewReader(data), &out)
	})
}
