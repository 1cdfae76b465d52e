package python

import (
	"strings"
	"testing"
)

// TestOperatorsLongestFirst tokenizes every operator of the grammar,
// written without spaces where a shorter operator is a prefix of a longer
// one, and checks the lexer takes the longest each time.
func TestOperatorsLongestFirst(t *testing.T) {
	src := "**= //= >>= <<= ... ** // >> << <= >= == != -> += -= *= /= %= &= |= ^= @= := " +
		"+ - * / % @ & | ^ ~ < > ( ) [ ] { } , : ; . = a**=b//c>>=d\n"
	toks, err := tokenize("a.py", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks {
		if tk.kind == tOp || tk.kind == tName {
			got = append(got, tk.text)
		}
	}
	want := strings.Fields("**= //= >>= <<= ... ** // >> << <= >= == != -> += -= *= /= %= &= |= ^= @= := " +
		"+ - * / % @ & | ^ ~ < > ( ) [ ] { } , : ; . = a **= b // c >>= d")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("tokens\n got %q\nwant %q", got, want)
	}
	if _, err := tokenize("a.py", "a $ b\n"); err == nil || !strings.Contains(err.Error(), "invalid character") {
		t.Fatalf("`$` not refused: %v", err)
	}
}

// A logical line of 10^5 tokens (one bracket) is handed to the parser in
// pieces, so the parser's token buffer stays small (a 400 KB list literal
// held every token at once: 145 MB allocated to parse it).
func TestLongLineInPieces(t *testing.T) {
	src := "x = [" + strings.Repeat("1,", 100_000) + "]\n"
	lx := newLexer("a.py", src)
	runs, most := 0, 0
	for !lx.done {
		lx.toks = lx.toks[:0]
		if err := lx.run(true); err != nil {
			t.Fatal(err)
		}
		runs++
		most = max(most, len(lx.toks))
	}
	if most > lineChunk+8 {
		t.Fatalf("%d tokens at once", most)
	}
	if _, err := Parse("a.py", src); err != nil {
		t.Fatal(err)
	}
}
