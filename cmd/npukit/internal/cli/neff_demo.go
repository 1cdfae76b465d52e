package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/humanize"
)

func init() {
	registerDemoStep(demoStep{order: 50, kind: detect.NEFF, name: "neff dma --execute (DMA program only)", run: neffDemoExecute})
	registerDemoStep(demoStep{order: 51, kind: detect.NEFF, name: "sim --trace (DMA engines)", run: neffDemoSim})
}

func neffDemoBase(path, outDir string) string {
	return filepath.Join(outDir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
}

// neffDemoExecute runs the DMA program of a NEFF with zero inputs (file
// variables hold their constants) and writes the touched variables.
func neffDemoExecute(env *Env, path, outDir string) error {
	l, err := openNeffDMA(path)
	if err != nil {
		return err
	}
	dir := neffDemoBase(path, outDir) + ".dma"
	if err := neffExecute(l, nil, dir, true, 0); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "Engine instructions are not executed; only the DMA program ran (inputs zero, constants loaded).")
	for _, sg := range l.Subgraphs {
		fmt.Fprintf(env.Stdout, "%s: %d descriptors executed, %s written\n", sg.Subgraph, sg.Executed.Descriptors, humanize.Bytes(sg.Executed.Bytes))
		for _, f := range sg.Written {
			fmt.Fprintf(env.Stdout, "  %-12s %-8s %v -> %s\n", f.Var, f.DType, f.Shape, f.Path)
		}
	}
	return nil
}

// neffDemoSim simulates the DMA program and writes a Perfetto trace.
func neffDemoSim(env *Env, path, outDir string) error {
	a, err := openArg(path)
	if err != nil {
		return err
	}
	out, err := a.Simulate(&npukit.Options{TracePath: neffDemoBase(path, outDir) + ".dma-trace.json"})
	if err != nil {
		return err
	}
	o := out.(*npukit.NeffSimulation)
	for _, sg := range o.Subgraphs {
		r := sg.Result
		fmt.Fprintf(env.Stdout, "%s: %d descriptors, %s in %.3f us on %d DMA engines (%.2f GB/s); trace: %s\n",
			sg.Subgraph, r.Descriptors, humanize.Bytes(r.Bytes), float64(r.TotalNs)/1e3, o.Params.Engines, r.AchievedGBps, sg.Trace)
	}
	return nil
}
