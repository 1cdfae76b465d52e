package npukit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/neuroncore"
)

// The model lines sim prints for a NEFF's instruction streams give the
// constants the simulation charges, from dmaprog itself: they were
// literals beside the constants (a fitted value changed would have left
// the printed model stale), ACTIVATE's overhead was charged but not
// listed, and "DMA_DIRECT2D issue 570 ns" did not say it is Sync's and
// Scalar's, GpSimd's being the software DGE line's.
func TestNeffModelNotesGiveTheConstants(t *testing.T) {
	run := &dmaprog.Run{LaunchNs: 15100, Subgraphs: []dmaprog.SubgraphRun{{Engines: &dmaprog.EngineRun{}}}}
	text := strings.Join(neffModelNotes(run), "\n")
	for _, want := range []string{
		fmt.Sprintf("VectorE/ScalarE %d ns", dmaprog.InstrOverheadNs),
		fmt.Sprintf("ACTIVATE %d ns", dmaprog.ActivateOverheadNs),
		fmt.Sprintf("ACT_TABLE_LOAD %d ns", dmaprog.TableLoadNs),
		fmt.Sprintf("DMA_DIRECT2D on Sync and Scalar %d ns", dmaprog.DGEIssueNs),
		fmt.Sprintf("DMA_TRIGGER %d ns", dmaprog.DMATriggerNs),
		"for " + humanize.Nanos(dmaprog.PEWarmupNs),
		"over " + humanize.Nanos(dmaprog.PEIdleNs),
		fmt.Sprintf("%d ns after it ends", dmaprog.SemaphoreLatencyNs),
		fmt.Sprintf("holds GpSimd %d ns and its DMA starts %d ns after", dmaprog.DGEIssuePoolNs, dmaprog.DGEPoolLagNs),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("model notes lack %q:\n%s", want, text)
		}
	}
}

// The model lines also give what the simulation charges beyond the
// overheads (the GpSimd opcode prices, LDWEIGHTS' cycles, VectorE's 16-bit
// performance mode on NeuronCore-v3) and say so when trn2-measured figures
// are applied to another generation's NEFF.
func TestNeffModelNotesSayWhatTheyAssume(t *testing.T) {
	notes := func(a *neuroncore.Arch, name string) string {
		run := &dmaprog.Run{LaunchNs: 15100, Setup: dmaprog.Setup{NeuronCore: name, Arch: a}, Subgraphs: []dmaprog.SubgraphRun{{Engines: &dmaprog.EngineRun{}}}}
		return strings.Join(neffModelNotes(run), "\n")
	}
	v3, v2 := notes(&neuroncore.V3, "NeuronCore-v3"), notes(&neuroncore.V2, "NeuronCore-v2")
	for op, ns := range dmaprog.GpSimdOpNs {
		if want := fmt.Sprintf("0x%02X %.0f ns", op, ns); !strings.Contains(v3, want) {
			t.Errorf("model notes lack the GpSimd price %q:\n%s", want, v3)
		}
	}
	for _, want := range []string{fmt.Sprintf("LDWEIGHTS adds %d TensorE cycles", dmaprog.LoadWeightsCycles), "performance mode"} {
		if !strings.Contains(v3, want) {
			t.Errorf("v3 model notes lack %q:\n%s", want, v3)
		}
	}
	if strings.Contains(v2, "performance mode") {
		t.Errorf("v2 model notes give v3's performance mode:\n%s", v2)
	}
	if want := "NeuronCore-v2: the warm-up, semaphore latency, DMA_TRIGGER"; !strings.Contains(v2, want) {
		t.Errorf("v2 model notes do not say the trn2 figures are assumed (%q):\n%s", want, v2)
	}
	if strings.Contains(v3, "are trn2's, assumed") {
		t.Errorf("v3 model notes call trn2's own figures assumed:\n%s", v3)
	}
}
