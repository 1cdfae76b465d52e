package cli

import (
	"fmt"

	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/internal/checkinputs"
	"github.com/npukit/npukit/nki"
)

// checkKernels checks several kernels and renders one check document.
func checkKernels(env *Env, f *nkiFlags, lf *lintFlags, args []string, format string, policy *ruleset.Policy) error {
	jobs, skipped, err := checkinputs.KernelJobs(f.Request, args, lf.skipOther)
	if err != nil {
		return usageErr("%v", err)
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
