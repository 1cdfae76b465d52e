package humanize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShorten(t *testing.T) {
	long := "FeatureExtractor/MobilenetV1/Conv2d_13_pointwise/Relu6;" + strings.Repeat("x", 300) + ";BatchNorm/end"
	for _, n := range []int{1, 2, 10, 40, 61} {
		got := Shorten(long, n)
		if utf8.RuneCountInString(got) != n {
			t.Errorf("Shorten(_, %d) = %q: %d characters", n, got, utf8.RuneCountInString(got))
		}
		if n >= 10 && (!strings.HasPrefix(got, "Feat") || !strings.HasSuffix(got, "/end") || !strings.Contains(got, "…")) {
			t.Errorf("Shorten(_, %d) = %q: want the start, …, the end", n, got)
		}
	}
	if got := Shorten("conv_1", 6); got != "conv_1" {
		t.Errorf("a name that fits changed: %q", got)
	}
	if got := Shorten("ünïcödé_näme", 6); got != "ünï…me" {
		t.Errorf("runes: %q", got)
	}
}
