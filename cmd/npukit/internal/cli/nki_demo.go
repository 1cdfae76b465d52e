package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	nkiexamples "github.com/npukit/npukit/examples/nki"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/nki"
)

// demoNKI writes npukit's kernels after the direct allocation guide's
// examples (examples/nki, embedded) and their manifest into dir/nki and
// runs `nki check` on the guide's overlapping allocation and on its fix. It returns the
// number of steps that failed to run (a finding is not a failure).
func demoNKI(env *Env, dir string) int {
	out := env.Stdout
	sub := filepath.Join(dir, "nki")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		fmt.Fprintf(out, "nki examples: %v\n", err)
		return 1
	}
	files, err := fs.ReadDir(nkiexamples.Kernels, ".")
	if err != nil {
		fmt.Fprintf(out, "nki examples: %v\n", err)
		return 1
	}
	for _, f := range files {
		name := f.Name()
		data, err := fs.ReadFile(nkiexamples.Kernels, name)
		if err == nil {
			err = atomicfile.WriteFile(filepath.Join(sub, name), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(out, "nki example %s: %v\n", name, err)
			return 1
		}
	}
	manifest := filepath.Join(sub, "manifest.json")
	fmt.Fprintf(out, "\n==== %s\n", filepath.Join(sub, "lifetime_conflicts.py"))
	failed := 0
	for _, entry := range []string{"guide.overlap", "guide.disjoint"} {
		fmt.Fprintf(out, "-- nki check --manifest %s --entry %s\n", manifest, entry)
		ck, name, err := checkKernel(&nkiFlags{nki.Request{Manifest: manifest, Entry: entry}}, nil, "")
		if err == nil {
			err = clidoc.NewKernelCheck(ck, name, "").WriteText(out)
		}
		if err != nil {
			failed++
			fmt.Fprintf(out, "nki check failed: %v\n", err)
		}
	}
	return failed
}
