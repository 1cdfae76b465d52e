package report

import (
	"fmt"
	"math"

	"github.com/npukit/npukit/internal/humanize"
)

// Unit formats axis and tooltip values.
type Unit int

// Units of chart values.
const (
	Number Unit = iota
	Bytes
	Cycles
	Microseconds
	Nanoseconds // values in ns, shown as ns, us or ms
)

// Format renders v in the unit.
func (u Unit) Format(v float64) string {
	switch u {
	case Bytes:
		return humanize.Bytes(int64(math.Round(v)))
	case Cycles:
		return compact(v) + " cyc"
	case Nanoseconds:
		switch a := math.Abs(v); {
		case a >= 1e6:
			return trimZero(fmt.Sprintf("%.3f", v/1e6)) + " ms"
		case a >= 1e3:
			return trimZero(fmt.Sprintf("%.3f", v/1e3)) + " us"
		}
		return compact(v) + " ns"
	case Microseconds:
		if math.Abs(v) >= 1000 {
			return fmt.Sprintf("%.3g ms", v/1000)
		}
		return fmt.Sprintf("%.3g us", v)
	}
	return compact(v)
}

// Name is the unit's label for axis titles.
func (u Unit) Name() string {
	switch u {
	case Bytes:
		return "bytes"
	case Cycles:
		return "cycles"
	case Microseconds:
		return "us"
	case Nanoseconds:
		return "ns"
	}
	return ""
}

// compact renders 1234567 as "1.23M".
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimZero(fmt.Sprintf("%.2f", v/1e9)) + "G"
	case a >= 1e6:
		return trimZero(fmt.Sprintf("%.2f", v/1e6)) + "M"
	case a >= 1e4:
		return trimZero(fmt.Sprintf("%.1f", v/1e3)) + "k"
	case a == math.Trunc(a):
		return fmt.Sprintf("%.0f", v)
	}
	return trimZero(fmt.Sprintf("%.3f", v))
}

func trimZero(s string) string {
	for len(s) > 1 && s[len(s)-1] == '0' && containsDot(s) {
		s = s[:len(s)-1]
	}
	if len(s) > 1 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

func containsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return true
		}
	}
	return false
}

// niceTicks returns about n round tick values covering [lo, hi]: steps
// of 1, 2, 2.5 or 5 times a power of ten, or for bytes a power of two (so
// that an 8 MiB axis reads 0, 2, 4, 6, 8 MiB).
func niceTicks(lo, hi float64, n int, u Unit) []float64 {
	if !(hi > lo) || n < 2 || math.IsInf(hi, 0) || math.IsNaN(hi) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	var step float64
	if u == Bytes && raw >= 1 {
		step = math.Pow(2, math.Ceil(math.Log2(raw)))
	} else {
		mag := math.Pow(10, math.Floor(math.Log10(raw)))
		step = 10 * mag
		for _, m := range []float64{1, 2, 2.5, 5} {
			if m*mag >= raw {
				step = m * mag
				break
			}
		}
	}
	start := math.Ceil(lo/step) * step
	var out []float64
	for v := start; v <= hi+step*1e-9 && len(out) < 50; v += step {
		out = append(out, v)
	}
	return out
}

// palette gives categories distinct, colour-blind friendly colours.
var palette = []string{
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b",
}

// colorOf maps a category index to a colour.
func colorOf(i int) string {
	if i < 0 {
		return "#bab0ac"
	}
	return palette[i%len(palette)]
}
