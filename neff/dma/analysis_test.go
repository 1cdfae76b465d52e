package dma

import (
	"testing"

	"github.com/npukit/npukit/neff/accesspattern"
)

func sbDesc(runBytes, partitions, steps0 int64) Descriptor {
	return Descriptor{Engine: "sg00/SP.json", Queue: "q0", Index: 1, Comment: "c",
		Transfer: Transfer{Op: OpCopy,
			From: []Side{{Var: "in", Pattern: accesspattern.Pattern{Sizes: []int64{runBytes, partitions}, Steps: []int64{steps0, runBytes}}}},
			To:   Side{Var: "SB", Pattern: accesspattern.Pattern{Sizes: []int64{runBytes, partitions}, Steps: []int64{steps0, DefaultPartitionStride}}},
		}}
}

func rules(a *Analysis) map[string]int {
	m := map[string]int{}
	for _, d := range a.Diagnostics {
		m[d.Rule]++
	}
	return m
}

func TestEfficientTransferHasNoFindings(t *testing.T) {
	a := Analyze([]Descriptor{sbDesc(4096, 128, 1)}, Layout{StateBuffers: map[string]bool{"SB": true}})
	if len(a.Diagnostics) != 0 {
		t.Fatalf("%v", a.Diagnostics)
	}
	q := a.Queues[0]
	// runs of the more fragmented side: SB's 128 rows of 4 KiB (the
	// source is one 512 KiB run)
	if q.Partitions != 128 || q.Bytes != 4096*128 || q.Descriptors != 1 || q.Histogram.Under64K != 128 || q.Runs != 128 {
		t.Fatalf("%+v", q)
	}
}

// Each rule fires on exactly the descriptor that violates it.
func TestRules(t *testing.T) {
	sb := Layout{StateBuffers: map[string]bool{"SB": true}}
	cases := []struct {
		name string
		d    Descriptor
		want string
	}{
		{"small runs", sbDesc(256, 128, 1), RuleSmallRuns},
		{"small partition payload", sbDesc(1024, 128, 1), RuleSmallPartition},
		{"few partitions", sbDesc(65536, 4, 1), RuleFewPartitions},
		{"strided innermost", Descriptor{Engine: "e", Transfer: Transfer{Op: OpCopy,
			From: []Side{{Var: "a", Pattern: accesspattern.Pattern{Sizes: []int64{1024}, Steps: []int64{32}}}},
			To:   Side{Var: "b", Pattern: accesspattern.Pattern{Sizes: []int64{1024}, Steps: []int64{1}}}}}, RuleStridedInnermost},
	}
	for _, c := range cases {
		got := rules(Analyze([]Descriptor{c.d}, sb))
		if got[c.want] == 0 {
			t.Errorf("%s: %s not reported (%v)", c.name, c.want, got)
		}
	}
	// The location names the engine member, the index and the comment.
	a := Analyze([]Descriptor{sbDesc(256, 128, 1)}, sb)
	if a.Diagnostics[0].Location != "sg00/SP.json: dma[1].desc[0] (c)" {
		t.Fatalf("%q", a.Diagnostics[0].Location)
	}
}
