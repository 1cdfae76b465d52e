// Package termsafe keeps names taken from untrusted inputs (tar members,
// variables, layers, schedule names) from controlling the terminal or
// flooding it: Name quotes and shortens one name, Writer escapes control
// characters and caps line length on a whole text stream.
package termsafe

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxName is the number of runes of a name Name keeps.
const MaxName = 80

// Name returns s printable on a terminal: control characters (C0, DEL,
// C1), bidirectional overrides and invalid UTF-8 are written as Go
// escapes, and a name longer than MaxName runes keeps its start and says
// how many bytes were left out. A plain name is returned as it is.
func Name(s string) string {
	if len(s) <= MaxName && !needsEscape(s) {
		return s
	}
	var b strings.Builder
	n := 0
	for i, r := range s {
		if n == MaxName {
			fmt.Fprintf(&b, "…(+%d bytes)", len(s)-i)
			break
		}
		writeRune(&b, r, s[i:])
		n++
	}
	return b.String()
}

func needsEscape(s string) bool {
	for _, r := range s {
		if unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune reports runes that move the cursor, start an escape
// sequence, reorder text or are not valid UTF-8.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

func writeRune(b *strings.Builder, r rune, rest string) {
	if r == utf8.RuneError {
		if _, size := utf8.DecodeRuneInString(rest); size == 1 {
			fmt.Fprintf(b, `\x%02x`, rest[0])
			return
		}
	}
	if !unsafeRune(r) {
		b.WriteRune(r)
		return
	}
	q := strconv.QuoteRuneToASCII(r)
	b.WriteString(q[1 : len(q)-1])
}

// plainPrefix is the length of the leading run of printable ASCII in b,
// at most limit bytes.
func plainPrefix(b []byte, limit int) int {
	n := 0
	for n < len(b) && n < limit && b[n] >= 0x20 && b[n] < 0x7f {
		n++
	}
	return n
}

// MaxLine is the number of bytes of one output line Writer passes.
const MaxLine = 8192

// Writer passes text to W with control characters other than newline and
// tab escaped (an escape sequence in a name cannot reach the terminal),
// and each line cut after MaxLine bytes (a 50 MB name padding every row of
// a table cannot flood it). Skip, when set and true, passes bytes
// unchanged (JSON output, which escapes for itself).
type Writer struct {
	W    io.Writer
	Skip func() bool
	line int  // bytes written on the current line
	cut  bool // the current line was cut
	part []byte
}

// Write escapes and writes p; it reports len(p) written unless W fails.
func (w *Writer) Write(p []byte) (int, error) {
	if w.Skip != nil && w.Skip() {
		return w.W.Write(p)
	}
	out := make([]byte, 0, min(len(p), MaxLine)+16)
	in := append(w.part, p...)
	w.part = nil
	for len(in) > 0 {
		if w.cut {
			// The rest of a cut line is skipped without decoding it.
			i := bytes.IndexByte(in, '\n')
			if i < 0 {
				break
			}
			in = in[i:]
		}
		if n := plainPrefix(in, MaxLine-w.line); n > 0 {
			out = append(out, in[:n]...)
			w.line += n
			in = in[n:]
			continue
		}
		r, size := utf8.DecodeRune(in)
		if r == utf8.RuneError && size <= 1 && !utf8.FullRune(in) && len(in) < utf8.UTFMax {
			w.part = append([]byte(nil), in...) // a rune split across writes
			break
		}
		chunk := in[:size]
		in = in[size:]
		if r == '\n' {
			out = append(out, '\n')
			w.line, w.cut = 0, false
			continue
		}
		if w.cut {
			continue
		}
		var text []byte
		switch {
		case r == '\t':
			text = chunk
		case r == utf8.RuneError && size == 1:
			text = fmt.Appendf(nil, `\x%02x`, chunk[0])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			text = []byte(q[1 : len(q)-1])
		default:
			text = chunk
		}
		if w.line+len(text) > MaxLine {
			out = append(out, " …(line cut)"...)
			w.cut = true
			continue
		}
		out = append(out, text...)
		w.line += len(text)
	}
	if _, err := w.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
