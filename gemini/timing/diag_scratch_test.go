package timing

import (
	"fmt"
	"os"
	"testing"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/zebu"
)

func TestScratchDiff(t *testing.T) {
	f := os.Getenv("GS_FILE")
	if f == "" {
		t.Skip()
	}
	s, _ := gemini.ReadFile("/work/shared/corpus/gemini/" + f + "_stschedule.json")
	tr, _ := zebu.ReadFile("/work/shared/corpus/gemini/zebu/" + f + "_sim.txt")
	p := Default()
	p.DRAMGBps = 16
	res, err := Simulate(s, p)
	if err != nil {
		t.Fatal(err)
	}
	zs := map[int64][2]int64{}
	for _, in := range tr.Insts {
		if in.Config || (in.Class != "pe" && in.Class != "vp" && in.Class != "dt") {
			continue
		}
		v, ok := zs[in.Workload]
		if !ok {
			v = [2]int64{in.Start, in.End}
		}
		v[0] = min(v[0], in.Start)
		v[1] = max(v[1], in.End)
		zs[in.Workload] = v
	}
	prevd := int64(0)
	for i, w := range res.Workloads {
		z := zs[w.ID]
		d := w.Start - z[0]
		fmt.Printf("%3d %-8s %-30s sim %8d..%8d zebu %8d..%8d dstart %7d (%+6d) dur %+d wd %d\n", w.ID, s.Cores[0].Workloads[i].LayerType, w.Layer, w.Start, w.End, z[0], z[1], d, d-prevd, (w.End-w.Start)-(z[1]-z[0]), w.WaitDRAM)
		prevd = d
	}
}
