package neuroncore

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// A plan of more than MaxSteps steps was decoded in full twice before the
// limit was checked (a 16 MB plan: 800 MB, 27 s); the count is now taken
// on the first parse.
func TestPlanStepLimitBeforeDecode(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: big\narch: v2\nhbm:\n  - {name: out, kind: shared_hbm, output: true}\ntensors:\n  - {name: x, block: [1], partitions: 128, free: [64], dtype: bfloat16, buffer: sbuf}\nbody:\n")
	for range MaxSteps + 10 {
		b.WriteString("  - {op: activation, func: exp, read: x, write: x}\n")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParsePlan([]byte(b.String()))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "steps written, at most") {
		t.Fatalf("err = %v", err)
	}
	if got, in := after.TotalAlloc-before.TotalAlloc, uint64(b.Len()); got > 60*in {
		t.Errorf("allocated %d bytes for a %d-byte plan", got, in)
	}
}

// A step may touch up to MaxStepOperands tiles (a kernel's nl.zeros over a
// tensor of 512 blocks), but one over more than stepRefsUnit tiles counts
// once per stepRefsUnit against MaxUnrolled, so the unrolled work stays
// within the bound it had when no step had more than 256 operands.
func TestWideStepWeighsAgainstUnrolled(t *testing.T) {
	plan := func(trips int) string {
		var b strings.Builder
		b.WriteString("name: wide\narch: v2\nhbm:\n  - {name: out, kind: shared_hbm, output: true}\n")
		b.WriteString("tensors:\n  - {name: acc, block: [512], partitions: 128, free: [1], dtype: float32, buffer: psum}\n")
		b.WriteString("body:\n")
		if trips > 0 {
			b.WriteString("  - loop: i\n    range: " + strconv.Itoa(trips) + "\n    body:\n    ")
		}
		b.WriteString("  - {op: memset, write: [")
		for k := range 512 {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`"acc[` + strconv.Itoa(k) + `]"`)
		}
		b.WriteString("]}\n")
		return b.String()
	}
	p, err := ParsePlan([]byte(plan(0)))
	if err != nil {
		t.Fatalf("a step over 512 tiles: %v", err)
	}
	if n, err := p.Unrolled(); err != nil || n != 2 {
		t.Errorf("Unrolled = %d, %v; want 2 (512 tiles weigh two steps)", n, err)
	}
	p, err = ParsePlan([]byte(plan(MaxUnrolled/2 + 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Unrolled(); err == nil {
		t.Errorf("%d instances of a 512-tile step: no error", MaxUnrolled/2+1)
	}
}
