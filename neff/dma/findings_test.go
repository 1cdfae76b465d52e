package dma

import (
	"strings"
	"testing"
)

// Repeated findings of one rule become one line with the descriptor count,
// the bytes they move, their share and (for short runs) the engine time
// the model charges beyond full-length runs; a single finding stays as
// Analyze words it.
func TestFindingsGroupPerRule(t *testing.T) {
	sb := Layout{StateBuffers: map[string]bool{"SB": true}}
	var descs []Descriptor
	for i := range 10 {
		d := sbDesc(256, 128, 1) // small runs and small partition payload
		d.Index = i
		descs = append(descs, d)
	}
	descs = append(descs, sbDesc(65536, 4, 1)) // few partitions, once
	all := Analyze(descs, sb).Diagnostics
	got := Findings(descs, sb, DefaultSimParams())
	if len(all) <= len(got) || len(got) != 3 {
		t.Fatalf("Analyze %d findings, Findings %d lines: %v", len(all), len(got), got)
	}
	byRule := map[string]int{}
	for _, d := range got {
		byRule[d.Rule]++
		switch d.Rule {
		case RuleSmallRuns:
			// 10 descriptors of 128 runs of 256 B, each charged 512 B:
			// 10*128*256 extra bytes at 27 GiB/s is about 11.3 us.
			if d.Count != 10 || !strings.HasPrefix(d.Message, "10 descriptors like this one move 320.0 KiB, 56% of the program's DMA bytes; about 11.302 us of DMA engine time") {
				t.Errorf("small runs: count %d, %q", d.Count, d.Message)
			}
			// audit r3 #29: a sum over the engines, said so, with the
			// per-engine figure and the model it assumes
			if !strings.Contains(d.Message, "11.302 us of DMA engine time beyond moving them in full-length runs, summed over the 16 DMA engines (0.706 us if spread evenly; npukit sim's DMA model: runs under 512 B charged as 512 B at 29 GB/s per engine)") {
				t.Errorf("small runs: the engine time does not say it is summed over the engines: %q", d.Message)
			}
			if d.Location != "sg00/SP.json: dma[0].desc[0] (c)" {
				t.Errorf("small runs located at %q, want the first descriptor", d.Location)
			}
		case RuleSmallPartition:
			if d.Count != 10 || strings.Contains(d.Message, "engine time") {
				t.Errorf("small partition payload: count %d, %q", d.Count, d.Message)
			}
		case RuleFewPartitions:
			if d.Count != 0 || strings.Contains(d.Message, "descriptors like") {
				t.Errorf("a single finding is grouped: %+v", d)
			}
		}
	}
	if byRule[RuleSmallRuns] != 1 || byRule[RuleSmallPartition] != 1 || byRule[RuleFewPartitions] != 1 {
		t.Errorf("lines per rule %v", byRule)
	}
}
