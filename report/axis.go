package report

import (
	"fmt"
	"math"
	"strings"

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

// axisScale is how one axis prints its ticks: every tick in one unit
// (the one that suits the largest tick), named once in the axis title, so
// that a title never says "ns" over ticks in us or ms and no axis mixes
// "0 B" with "2.0 MiB".
type axisScale struct {
	div  float64 // value per displayed unit
	name string  // unit shown in the title ("" for plain numbers)
}

// scaleFor picks the display unit of an axis from its ticks.
func scaleFor(u Unit, ticks []float64) axisScale {
	m := 0.0
	for _, t := range ticks {
		m = math.Max(m, math.Abs(t))
	}
	pick := func(steps []axisScale) axisScale {
		best := steps[0]
		for _, s := range steps[1:] {
			if m >= s.div {
				best = s
			}
		}
		return best
	}
	switch u {
	case Bytes:
		return pick([]axisScale{{1, "B"}, {1 << 10, "KiB"}, {1 << 20, "MiB"}, {1 << 30, "GiB"}, {1 << 40, "TiB"}})
	case Nanoseconds:
		return pick([]axisScale{{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}})
	case Microseconds:
		return pick([]axisScale{{1, "us"}, {1e3, "ms"}, {1e6, "s"}})
	case Cycles:
		return axisScale{1, "cycles"}
	}
	return axisScale{1, ""}
}

// tick renders a tick value in the scale's unit, without the unit.
func (s axisScale) tick(v float64) string {
	v /= s.div
	if v == 0 {
		v = 0 // not -0: math.Ceil(-0.2) is -0, which printed "-0" (issue 32)
	}
	if math.Abs(v) < 1e4 && s.div > 1 {
		return trimZero(fmt.Sprintf("%.3f", v))
	}
	return compact(v)
}

// title is an axis title naming the unit once: "time (ms)". An empty
// label or one that is only a unit word ("bytes", "cycles", "ns") becomes
// the quantity the unit measures; a label already ending in the unit is
// kept.
func (s axisScale) title(label string) string {
	if s.name == "" {
		return label
	}
	l := strings.TrimSpace(label)
	if l == "" || unitWords[strings.ToLower(l)] {
		l = "time"
		if s.div >= 1 && strings.HasSuffix(s.name, "B") {
			l = "size"
		}
	}
	if strings.HasSuffix(l, "("+s.name+")") {
		return l
	}
	return l + " (" + s.name + ")"
}

// unitWords are labels that name only a unit.
var unitWords = map[string]bool{"b": true, "byte": true, "bytes": true, "kib": true, "mib": true, "gib": true,
	"cyc": true, "cycle": true, "cycles": true, "ns": true, "us": true, "ms": true, "s": true}

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

// wholeTicks is niceTicks for an axis whose values are all whole numbers
// (counts, bytes, cycles, indices) when whole is set: its step is a whole
// number, at least 1, since a tick between two counts names nothing
// (issue 32: a one-row chart of runs read 0.2, 0.4, ...; a step of 2.5
// would read 2.5, 7.5).
func wholeTicks(lo, hi float64, n int, u Unit, whole bool) []float64 {
	t := niceTicks(lo, hi, n, u)
	if !whole || len(t) < 2 || (t[1]-t[0] >= 1 && t[1]-t[0] == math.Trunc(t[1]-t[0])) {
		return t
	}
	raw := (hi - lo) / float64(n)
	step := 1.0
	if raw > 1 {
		mag := math.Pow(10, math.Floor(math.Log10(raw)))
		step = 10 * mag
		for _, m := range []float64{1, 2, 5} {
			if m*mag >= raw {
				step = m * mag
				break
			}
		}
		step = math.Max(1, math.Round(step))
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9 && len(out) < 50; v += step {
		out = append(out, v)
	}
	return out
}

// allWhole reports whether every value is a whole number, for an axis
// of a unit that can hold fractions (times cannot claim it: a time axis
// in us may well need 0.5 us).
func allWhole(u Unit, vals ...float64) bool {
	if u == Microseconds || u == Nanoseconds {
		return false
	}
	for _, v := range vals {
		if v != math.Trunc(v) {
			return false
		}
	}
	return true
}

// integralAttr marks an axis title whose axis counts whole things in the
// unit its ticks show, for the browser test (a fractional tick there is a
// bug; 0.5 on an axis in MiB of whole bytes is not).
func integralAttr(whole bool, s axisScale) string {
	if whole && s.div == 1 {
		return ` data-integral="true"`
	}
	return ""
}
