package neuroncore

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
)

// WriteText writes a placement as `npukit sbuf place` prints it: the
// memory used, the simulated times, one row per tensor with its NKI
// allocation, the allocation functions and the tile counts that did not
// fit.
func (pl *Placement) WriteText(w io.Writer) error {
	name := pl.Name
	if name == "" {
		name = "plan"
	}
	fmt.Fprintf(w, "%s on NeuronCore-%s: %s placed; SBUF %s of %s per partition, PSUM %d of %d banks\n",
		name, pl.Arch, humanize.Plural(len(pl.Tensors), "tensor"), humanize.Bytes(pl.SBUFBytes), humanize.Bytes(pl.Plan.Arch.SBUFUsableBytes), pl.PSUMBanks, pl.Plan.Arch.PSUMBanks)
	fmt.Fprintf(w, "simulated time, the launch's %s included as in sbuf sim: %s with the tiles chosen, %s with the fewest, %s with unlimited memory (%s)\n\n",
		humanize.Micros(pl.LaunchNs/1000), humanize.Micros(pl.TimeNs/1000), humanize.Micros(pl.FewestNs/1000), humanize.Micros(pl.UnboundedNs/1000), humanize.Plural(pl.Evaluations, "simulation"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TENSOR\tBUFFER\tLOGICAL\tMAX ALIVE\tPHYSICAL\tPARTITIONS\tBYTES\tNKI ALLOCATION")
	for _, t := range pl.Tensors {
		where := fmt.Sprintf("%d..%d", t.Addr, t.Addr+t.Bytes-1)
		if t.Buffer == "psum" {
			where = fmt.Sprintf("banks %d..%d", t.Bank, t.Bank+t.Banks-1)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s (min %s)\t%d..%d\t%s\t%s\n", t.Tensor, t.Buffer, humanize.Count(t.LogicalTiles), humanize.Count(int64(t.MaxAlive)),
			humanize.Count(t.Physical), humanize.Count(t.Fewest), t.StartPartition, t.StartPartition+t.Partitions-1, where, t.Code)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range pl.Tensors {
		if t.Func != "" {
			fmt.Fprintf(w, "\n%s", t.Func)
		}
	}
	if len(pl.Rejected) > 0 {
		fmt.Fprintf(w, "\ntile counts tried that do not fit:\n")
		for _, r := range pl.Rejected {
			why := map[string]string{
				"infeasible":            "infeasible (proved by the exact solver)",
				"infeasible-partitions": "infeasible for the partition choices tried (proved by the exact solver)",
				"timeout":               "not placed within the solver time limit",
			}[r.Reason]
			fmt.Fprintf(w, "  %s: %s\n", r.Tiles, why)
		}
	}
	return nil
}
