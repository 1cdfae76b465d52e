package npukit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/dmaprog"
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
