package humanize

import (
	"strings"
	"testing"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 8 << 20: "8.0 MiB", 3 << 30: "3.00 GiB", -2048: "-2.0 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d)=%q want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d)=%q want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files"} {
		if got := Plural(n, "file"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
	for noun, want := range map[string]string{"static DMA entry": "2 static DMA entries", "pass": "2 passes", "box": "2 boxes",
		"batch": "2 batches", "key": "2 keys", "way": "2 ways", "core": "2 cores"} {
		if got := Plural(2, noun); got != want {
			t.Errorf("Plural(2, %q) = %q, want %q", noun, got, want)
		}
	}
	if got := Agree(1, "is", "are") + " " + Agree(2, "is", "are"); got != "is are" {
		t.Errorf("Agree: %q", got)
	}
}

func TestNanos(t *testing.T) {
	for ns, want := range map[int64]string{850: "0.850 us", 12_345: "12.345 us", 999_999: "999.999 us", 999_9996: "10.000 ms",
		4_560_000: "4.560 ms", 22_536_867: "22.537 ms", 999_999_499: "999.999 ms", 999_999_500: "1.000 s", 1_234_000_000: "1.234 s", -2500: "-2.500 us", 0: "0.000 us"} {
		if got := Nanos(ns); got != want {
			t.Errorf("Nanos(%d) = %q, want %q", ns, got, want)
		}
	}
	// rounding never shows 1000.000 in a unit
	for _, us := range []float64{999.9996, 999_999.6} {
		if got := Micros(us); strings.HasPrefix(got, "1000.") {
			t.Errorf("Micros(%g) = %q", us, got)
		}
	}
}

func TestWithArticle(t *testing.T) {
	for in, want := range map[string]string{"NEFF (AWS Neuron executable)": "a NEFF (AWS Neuron executable)", "Edge TPU model": "an Edge TPU model", "": "a "} {
		if got := WithArticle(in); got != want {
			t.Errorf("WithArticle(%q) = %q, want %q", in, got, want)
		}
	}
}
