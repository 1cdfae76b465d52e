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
