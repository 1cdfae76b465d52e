package ntff

import (
	"strings"
	"testing"
)

// The text of a diff prints times as inspect does (26.417, not 26.4166)
// and bytes and counts whole (1,573,760, not 1.57376e+06).
func TestDiffTextValues(t *testing.T) {
	core := func(us float64, bytes int64) CoreStat {
		return CoreStat{Name: "sg00", TotalTimeUs: us,
			Engines: []EngineStat{{Engine: "Tensor", Instructions: 1499, BusyNs: 691.667}},
			Queues:  []QueueStat{{Name: "qPoolDynamic", Packets: 12, Bytes: bytes}}}
	}
	a := &Summary{File: "a.ntff", Cores: []CoreStat{core(26.416626, 1573760)}}
	b := &Summary{File: "b.ntff", Cores: []CoreStat{core(28.904993, 0)}}
	a.Cores[0].Engines[0].Instructions = 455
	var sb strings.Builder
	if err := Diff(a, b).WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"26.417", "28.905", "1,573,760", "455", "1,499"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "e+") || strings.Contains(out, "26.4166") {
		t.Errorf("diff text in %%g:\n%s", out)
	}
}

// A diff gives each core's kernel time and launch beside its total
// (inspect's split: the launch, in both, hid a 1.22x kernel behind a
// 1.094x total), strings as strings, every row in JSON with "changed",
// and counts of a whole capture against a window's marked as counted
// over different spans.
func TestDiffKernelStringsSpans(t *testing.T) {
	core := func(total, kernel float64, ins int) CoreStat {
		return CoreStat{Name: "sg00", TotalTimeUs: total, KernelUs: kernel, LaunchBeforeUs: total - kernel - 0.5, LaunchAfterUs: 0.5,
			Engines: []EngineStat{{Engine: "Tensor", Instructions: ins}, {Engine: "Scalar", Instructions: 7}}}
	}
	a := &Summary{File: "a.ntff", NeffUUID: "aa", Window: "estimated", Cores: []CoreStat{core(26.417, 11.258, 28)}}
	b := &Summary{File: "b.ntff", NeffUUID: "bb", Window: "estimated", Cores: []CoreStat{core(28.905, 13.715, 28)}}
	d := Diff(a, b)
	var kernel *DiffRow
	for i, r := range d.Rows {
		if r.What == "sg00 kernel us" {
			kernel = &d.Rows[i]
		}
		if r.What == "sg00 Scalar instructions" && r.Changed {
			t.Error("an unchanged row is marked changed")
		}
		if r.OtherSpans != "" {
			t.Errorf("%s: marked over different spans between two windows", r.What)
		}
	}
	if kernel == nil || !kernel.Changed || kernel.Ratio < 1.2 {
		t.Fatalf("no kernel row: %+v", d.Rows)
	}
	if len(d.Strings) != 1 || d.Strings[0] != (StringDiff{What: "neff uuid", A: "aa", B: "bb"}) {
		t.Errorf("string differences: %+v", d.Strings)
	}
	var sb strings.Builder
	d.WriteText(&sb)
	if !strings.Contains(sb.String(), "sg00 kernel us") || !strings.Contains(sb.String(), "neff uuid: aa -> bb") || strings.Contains(sb.String(), "Scalar") {
		t.Errorf("text:\n%s", sb.String())
	}
	a.Window, a.Cores[0].KernelUs, a.Cores[0].Engines[0].Instructions = WholeCapture, 0, 86
	d = Diff(a, b)
	for _, r := range d.Rows {
		if strings.HasSuffix(r.What, " instructions") && r.OtherSpans == "" {
			t.Errorf("%s: a whole capture's count against a window's is not marked", r.What)
		}
		if strings.HasSuffix(r.What, " us") && r.OtherSpans != "" {
			t.Errorf("%s: a time marked as a count", r.What)
		}
	}
	sb.Reset()
	d.WriteText(&sb)
	if !strings.Contains(sb.String(), "* counted over different spans") {
		t.Errorf("text does not say the counts are over different spans:\n%s", sb.String())
	}
	// A format 5 capture (counted to its end) against a recorded window:
	// marked; two format 5 captures: not.
	a.Window, b.Window = ToCaptureEnd, "recorded"
	marked := 0
	for _, r := range Diff(a, b).Rows {
		if r.OtherSpans != "" {
			marked++
		}
	}
	b.Window = ToCaptureEnd
	for _, r := range Diff(a, b).Rows {
		if r.OtherSpans != "" {
			t.Errorf("%s: marked between two captures counted alike", r.What)
		}
	}
	if marked == 0 {
		t.Error("a count to the capture's end against a recorded window's is not marked")
	}
}
