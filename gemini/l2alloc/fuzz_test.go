package l2alloc

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini"
)

// FuzzReallocate: whatever schedule the reader accepts, re-allocation
// never panics, and a rewrite adds no check error of the snapshot rules.
func FuzzReallocate(f *testing.F) {
	for _, cfg := range []gemini.SynthConfig{
		{Cores: 1, Workloads: 3, Buffer: 512 << 10},
		{Cores: 2, Workloads: 4, Buffer: 512 << 10, DRAMEvery: 2},
	} {
		var buf bytes.Buffer
		if err := gemini.SynthWrite(&buf, cfg); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := gemini.ReadBytes(data)
		if err != nil {
			return
		}
		before := snapshotErrors(gemini.Check(s))
		rep, err := Reallocate(context.Background(), s, Options{}, SolveOptions{Timeout: 2 * time.Millisecond, Budget: 10 * time.Millisecond, Workers: 1})
		if err != nil {
			return
		}
		if _, err := rep.Rewrite(s); err != nil {
			return
		}
		after := snapshotErrors(gemini.Check(s))
		for rule, n := range after {
			if n > before[rule] {
				t.Fatalf("rewrite added %s errors: %d, input had %d", rule, n, before[rule])
			}
		}
	})
}

func snapshotErrors(rep diag.Report) map[string]int {
	m := map[string]int{}
	for _, d := range rep {
		switch d.Rule {
		case gemini.RuleAddressRange, gemini.RuleBufferOverlap, gemini.RuleTensorMoved:
			if d.Severity == diag.Error {
				m[d.Rule]++
			}
		}
	}
	return m
}
