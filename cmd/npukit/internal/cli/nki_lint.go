package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/internal/checkinputs"
	"github.com/npukit/npukit/nki"
)

// manyKernels reports whether `nki check` checks a set of kernels (every
// entry of a manifest; files, directories or globs whose kernels carry
// '# npukit: check' directives) rather than the one kernel the flags name.
func (f *nkiFlags) manyKernels(args []string, skipOther bool) bool {
	if f.Manifest != "" {
		return f.Entry == ""
	}
	if f.Function != "" || len(f.Args) > 0 || len(f.Grid) > 0 {
		return false
	}
	if skipOther {
		return true // a hook's list of files: check those with directives
	}
	if len(args) != 1 {
		return len(args) > 1
	}
	st, err := os.Stat(args[0])
	if err != nil {
		return strings.ContainsAny(args[0], "*?[")
	}
	if st.IsDir() {
		return true
	}
	src, err := nki.ReadSource(args[0])
	if err != nil {
		return false
	}
	ds, err := nki.Directives(src)
	return err != nil || len(ds) > 0
}

// kernelJobs lists the kernels to check: a manifest's entries, or the
// directives of the kernel files named or found under the directories
// named (*.py files without a directive are skipped there).
func (f *nkiFlags) kernelJobs(args []string, skipOther bool) (jobs []nki.Job, skipped []string, err error) {
	if f.Manifest != "" {
		if len(args) > 0 {
			return nil, nil, usageErr("--manifest takes the files from its entries; give no KERNEL.py")
		}
		jobs, err = f.ManifestJobs(relPath)
	} else {
		var files []string
		var named map[string]bool
		if files, named, skipped, err = checkinputs.Sources(args, ".py"); err == nil {
			var s []string
			jobs, s, err = f.DirectiveJobs(files, named, skipOther)
			skipped = append(skipped, s...)
		}
	}
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	if len(jobs) == 0 && !skipOther && f.Manifest == "" {
		return nil, nil, usageErr("no kernel with a '# npukit: check' comment under %s", strings.Join(args, ", "))
	}
	return jobs, skipped, nil
}

// relPath is p relative to the working directory when it lies below it.
func relPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// checkKernels checks several kernels and renders one check document.
func checkKernels(env *Env, f *nkiFlags, lf *lintFlags, args []string, format string, policy *ruleset.Policy) error {
	jobs, skipped, err := f.kernelJobs(args, lf.skipOther)
	if err != nil {
		return err
	}
	reportSkipped(env, skipped, false)
	code := ExitOK
	c := lf.collector(policy, format)
	files := map[string]bool{}
	for _, j := range jobs {
		files[j.Path] = true
		ck, err := checkOptions(j.Options)
		if err != nil {
			label := j.Path + " (" + j.Options.Function + ")"
			code = worstCode(code, exitCodeOf(err))
			c.Fail(label, err)
			if format == "text" {
				fmt.Fprintf(env.Stderr, "npukit: %s: %v\n", label, err)
			}
			continue
		}
		c.Add(j.Path, ck.Report, nki.SourceLines(j.Options.Dir))
	}
	return finishChecks(env, format, c.Document(len(files), len(skipped)), code)
}
