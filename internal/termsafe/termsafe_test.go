package termsafe

import (
	"bytes"
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"sg00/def.json":          "sg00/def.json",
		"a\x1b[2Jb":              `a\x1b[2Jb`,
		"line\nbreak":            `line\nbreak`,
		"bad\xffutf8":            `bad\xffutf8`,
		"rtl\u202eexe.txt":       `rtl\u202eexe.txt`,
		"caf\u00e9 \u4e2d\u6587": "caf\u00e9 \u4e2d\u6587",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("x", 50<<20)
	got := Name(long)
	if len(got) > 200 || !strings.Contains(got, "+52428720 bytes") {
		t.Errorf("Name(50 MB) = %q", got)
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := &Writer{W: &b}
	w.Write([]byte("ok\tcol\n\x1b]0;title\x07x\n"))
	w.Write([]byte(strings.Repeat("y", 3*MaxLine) + "\nnext\n"))
	w.Write([]byte("\xe4\xb8"))
	w.Write([]byte("\xad\n")) // 中 split across writes
	got := b.String()
	lines := strings.Split(got, "\n")
	if lines[0] != "ok\tcol" || lines[1] != `\x1b]0;title\ax` {
		t.Errorf("escapes: %q", lines[:2])
	}
	if len(lines[2]) > MaxLine+20 || !strings.HasSuffix(lines[2], "(line cut)") || lines[3] != "next" {
		t.Errorf("cut line: %d bytes, then %q", len(lines[2]), lines[3])
	}
	if lines[4] != "中" {
		t.Errorf("split rune: %q", lines[4])
	}
	var raw bytes.Buffer
	j := &Writer{W: &raw, Skip: func() bool { return true }}
	j.Write([]byte("\x1b"))
	if raw.String() != "\x1b" {
		t.Error("Skip ignored")
	}
}
