package neuroncore

import (
	"runtime"
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
