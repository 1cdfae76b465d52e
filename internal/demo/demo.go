// Package demo is `npukit demo`: it writes the example artifacts built
// into npukit (made by npukit's own writers) into a directory and runs the
// main job on each through the library (inspect and check, and for the
// kinds that support it simulation, allocation, linking and a visual
// report), printing what each step found and where it wrote its results.
package demo

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/detect"
	nkiexamples "github.com/npukit/npukit/examples/nki"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/internal/examples"
	"github.com/npukit/npukit/nki"
	"github.com/npukit/npukit/report"
)

// step is a demo action for one kind of example.
type step struct {
	order int
	kind  detect.Kind
	name  string
	run   func(w io.Writer, path, outDir string, o *npukit.Options) error
}

var steps = []step{
	{10, detect.EdgeTPU, "edgetpu memory", edgetpuMemory},
	{20, detect.EdgeTPU, "edgetpu link + relayout round trip", edgetpuLinkRelayout},
	{40, detect.GeminiIR, "gemini realloc (minimal L2 per core, rewrite)", geminiRealloc},
	{50, detect.GeminiIR, "sim --trace (cores, DRAM, NoC)", geminiSim},
	{10, detect.NEFF, "neff unpack + pack round trip", neffRoundTrip},
	{50, detect.NEFF, "neff dma --execute (DMA program only)", neffExecute},
	{51, detect.NEFF, "sim --trace (engines and DMA)", neffSim},
	{10, detect.SBUFPlan, "sbuf sim: single tile vs double buffering", sbufSim},
	{50, detect.MiniMallocCSV, "alloc --minimize", allocMinimize},
}

func stepsFor(k detect.Kind) []step {
	var out []step
	for _, s := range steps {
		if s.kind == k {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}

// Run writes the examples into dir and runs the demo on them, writing
// its text to w; o are the library options of every step. It returns the
// number of steps that failed (a finding is not a failure); err is a
// failure to write the examples or the text.
func Run(w io.Writer, dir string, o *npukit.Options) (failed int, err error) {
	names := examples.Names()
	// The NKI example kernels are the last section (audit r3 #17: "6
	// example artifacts" headed 7 sections).
	fmt.Fprintf(w, "npukit demo: %d example artifacts and the NKI example kernels (in nki/), written to %s\n", len(names), dir)
	if len(names) == 0 {
		fmt.Fprintln(w, "No example artifacts are built in yet: format writers add them as they land.")
	}
	kinds := npukit.Kinds()
	fmt.Fprintf(w, "Formats with a reader: %d", len(kinds))
	for _, k := range kinds {
		fmt.Fprintf(w, "\n  - %s", k.Describe())
	}
	fmt.Fprintln(w)
	for _, name := range names {
		data, err := fs.ReadFile(examples.FS(), name)
		if err != nil {
			return failed, err
		}
		path := filepath.Join(dir, name)
		if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
			return failed, err
		}
		fmt.Fprintf(w, "\n==== %s\n", path)
		a, err := npukit.Open(path)
		if err != nil {
			fmt.Fprintf(w, "%v\n", err)
			continue
		}
		fmt.Fprintf(w, "-- inspect (%s)\n", a.Describe())
		out, err := a.Inspect(nil)
		if err != nil {
			failed++
			fmt.Fprintf(w, "inspect failed: %v\n", err)
			continue
		}
		if err := out.WriteText(w); err != nil {
			return failed, err
		}
		if npukit.Supports(a.Kind, "check") {
			fmt.Fprintln(w, "-- check")
			rep, err := a.Check(nil)
			if err != nil {
				failed++
				fmt.Fprintf(w, "check failed: %v\n", err)
			} else {
				rep = rep.WithFile(name)
				rep.Sort()
				rep.WriteText(w)
				fmt.Fprintf(w, "%s\n", rep.Summary())
			}
		}
		for _, s := range stepsFor(a.Kind) {
			fmt.Fprintf(w, "-- %s\n", s.name)
			if err := s.run(w, path, dir, o); err != nil {
				failed++
				fmt.Fprintf(w, "%s failed: %v\n", s.name, err)
			}
		}
	}
	failed += kernels(w, dir)
	var reports []string
	for _, name := range names {
		path := filepath.Join(dir, name)
		a, err := npukit.Open(path)
		if err != nil || !npukit.Supports(a.Kind, "report") {
			continue
		}
		html := filepath.Join(dir, report.FileName(path))
		if err := writeReport(a, html, o); err != nil {
			failed++
			fmt.Fprintf(w, "report of %s failed: %v\n", name, err)
			continue
		}
		reports = append(reports, html)
	}
	if len(reports) > 0 {
		fmt.Fprintln(w, "\nVisual reports (open in any browser):")
		for _, r := range reports {
			fmt.Fprintf(w, "  %s\n", r)
		}
	}
	fmt.Fprintf(w, "\nDemo finished. Examples and results are in %s\n", dir)
	return failed, nil
}

func writeReport(a *npukit.Artifact, path string, o *npukit.Options) error {
	page, err := npukit.Report([]*npukit.Artifact{a}, o)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.Render(w, page) })
}

// kernels writes npukit's kernels after the direct allocation guide's
// examples (examples/nki, embedded) and their manifest into dir/nki and
// runs `nki check` on the guide's overlapping allocation and on its fix.
// It returns the number of steps that failed to run.
func kernels(w io.Writer, dir string) int {
	sub := filepath.Join(dir, "nki")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		fmt.Fprintf(w, "nki examples: %v\n", err)
		return 1
	}
	files, err := fs.ReadDir(nkiexamples.Kernels, ".")
	if err != nil {
		fmt.Fprintf(w, "nki examples: %v\n", err)
		return 1
	}
	for _, f := range files {
		name := f.Name()
		data, err := fs.ReadFile(nkiexamples.Kernels, name)
		if err == nil {
			err = atomicfile.WriteFile(filepath.Join(sub, name), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(w, "nki example %s: %v\n", name, err)
			return 1
		}
	}
	manifest := filepath.Join(sub, "manifest.json")
	fmt.Fprintf(w, "\n==== %s\n", filepath.Join(sub, "lifetime_conflicts.py"))
	failed := 0
	for _, entry := range []string{"guide.overlap", "guide.disjoint"} {
		fmt.Fprintf(w, "-- nki check --manifest %s --entry %s\n", manifest, entry)
		o, _, err := nki.Request{Manifest: manifest, Entry: entry}.Options(nil)
		var ck *nki.Checked
		if err == nil {
			ck, err = nki.TraceCheck(o)
		}
		if err == nil {
			err = clidoc.NewKernelCheck(ck, filepath.Base(o.File), "").WriteText(w)
		}
		if err != nil {
			failed++
			fmt.Fprintf(w, "nki check failed: %v\n", err)
		}
	}
	return failed
}

// base is the example's path in outDir without its extension.
func base(path, outDir string) string {
	return filepath.Join(outDir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
}

// allocMinimize finds the smallest capacity of the example problem and
// writes the solution beside it.
func allocMinimize(w io.Writer, path, outDir string, _ *npukit.Options) error {
	out, err := atomicfile.Join(outDir, "alloc-solution.csv")
	if err != nil {
		return err
	}
	a, err := npukit.Open(path)
	if err != nil {
		return err
	}
	t, err := a.AllocTable(0)
	if err != nil {
		return err
	}
	res, err := npukit.SolveAlloc(context.Background(), path, t, alloc.OffsetsAuto, npukit.AllocSolveOptions{Minimize: true})
	if err != nil {
		return err
	}
	if res.Solution != nil {
		if err := atomicfile.Write(out, 0o644, func(w io.Writer) error { return t.WriteSolution(w, res.Solution) }); err != nil {
			return err
		}
		res.Output = out
	}
	if err := res.WriteText(w); err != nil {
		return err
	}
	if res.Status != "solved" {
		return fmt.Errorf("%s: %s", path, res.Status)
	}
	return nil
}
