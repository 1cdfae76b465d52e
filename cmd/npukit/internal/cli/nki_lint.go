package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/nki"
)

// kernelJob is one kernel `nki check` checks: its trace options and the
// path its findings name.
type kernelJob struct {
	o    nki.Options
	path string
}

// manyKernels reports whether `nki check` checks a set of kernels (every
// entry of a manifest; files, directories or globs whose kernels carry
// '# npukit: check' directives) rather than the one kernel the flags name.
func (f *nkiFlags) manyKernels(args []string, skipOther bool) bool {
	if f.manifest != "" {
		return f.entry == ""
	}
	if f.kernel != "" || len(f.args) > 0 || len(f.grid) > 0 {
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
	src, err := readKernelSource(args[0])
	if err != nil {
		return false
	}
	ds, err := nki.Directives(src)
	return err != nil || len(ds) > 0
}

// maxKernelSource bounds a kernel file read for its directives or comments
// (the tracer's own limit on a source file).
const maxKernelSource = 8 << 20

func readKernelSource(path string) ([]byte, error) {
	return inputfile.ReadFileMax(path, maxKernelSource)
}

// kernelJobs lists the kernels to check: a manifest's entries, or the
// directives of the kernel files named or found under the directories
// named (*.py files without a directive are skipped there).
func (f *nkiFlags) kernelJobs(args []string, skipOther bool) (jobs []kernelJob, skipped []string, err error) {
	ver := archVersion[f.arch]
	if f.manifest != "" {
		if len(args) > 0 {
			return nil, nil, usageErr("--manifest takes the files from its entries; give no KERNEL.py")
		}
		m, err := nki.ReadManifest(f.manifest)
		if err != nil {
			return nil, nil, usageErr("%v", ioCause(err))
		}
		for i := range m.Entries {
			o := nki.OptionsFor(m, &m.Entries[i])
			if ver != "" {
				o.NCVersion = ver
			}
			if f.api != "" {
				o.API = f.api
			}
			jobs = append(jobs, kernelJob{o: o, path: relPath(filepath.Join(o.Dir, o.File))})
		}
		return jobs, nil, nil
	}
	var files []string
	named := map[string]bool{}
	for _, a := range args {
		m := []string{a}
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			if m, err = filepath.Glob(a); err != nil || len(m) == 0 {
				return nil, nil, usageErr("%s: no file matches", a)
			}
		}
		for _, p := range m {
			st, err := os.Stat(p)
			if err != nil {
				return nil, nil, usageErr("%s: %v", p, ioCause(err))
			}
			if !st.IsDir() {
				files = append(files, p)
				named[p] = true
				continue
			}
			err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					skipped = append(skipped, q)
				case d.IsDir() && q != p && strings.HasPrefix(d.Name(), "."):
					return filepath.SkipDir
				case d.Type().IsRegular() && strings.HasSuffix(q, ".py"):
					files = append(files, q)
				case d.Type().IsRegular():
					skipped = append(skipped, q)
				}
				return nil
			})
			if err != nil {
				return nil, nil, usageErr("%s: %v", p, ioCause(err))
			}
		}
	}
	sort.Strings(files)
	for _, p := range files {
		src, err := readKernelSource(p)
		if err != nil {
			return nil, nil, usageErr("%v", ioCause(err))
		}
		ds, err := nki.Directives(src)
		if err != nil {
			return nil, nil, usageErr("%s: %v", p, err)
		}
		if len(ds) == 0 {
			if named[p] && !skipOther {
				return nil, nil, usageErr("%s: no '# npukit: check KERNEL(ARG=SPEC, ...)' comment; give --kernel and --arg, or a manifest", p)
			}
			skipped = append(skipped, p)
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		for _, d := range ds {
			o := d.Options(filepath.Dir(abs), filepath.Base(abs))
			if ver != "" {
				o.NCVersion = ver
			}
			o.API = f.api
			jobs = append(jobs, kernelJob{o: o, path: p})
		}
	}
	if len(jobs) == 0 && !skipOther {
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

// kernelSourceLines returns, by the file name a finding's FILE:LINE uses,
// the lines of a source file in the kernel's directory (the kernel or a
// helper module beside it); names with a directory part are not read.
func kernelSourceLines(dir string) func(string) []string {
	cache := map[string][]string{}
	return func(name string) []string {
		if name != filepath.Base(name) || name == ".." {
			return nil
		}
		if l, ok := cache[name]; ok {
			return l
		}
		src, err := readKernelSource(filepath.Join(dir, name))
		var lines []string
		if err == nil {
			lines = strings.Split(string(bytes.TrimRight(src, "\n")), "\n")
		}
		cache[name] = lines
		return lines
	}
}

// filterKernelFindings applies inline '# npukit: ignore[...]' comments in
// the kernel's sources, then the rule policy.
func filterKernelFindings(rep diag.Report, dir string, p *ruleset.Policy) (kept, hidden diag.Report) {
	kept, hidden = ruleset.Inline(rep, kernelSourceLines(dir))
	kept, byPolicy := p.Apply(kept)
	return kept, append(hidden, byPolicy...)
}

// checkKernels checks several kernels and renders one check document.
func checkKernels(env *Env, f *nkiFlags, lf *lintFlags, args []string, format string, policy *ruleset.Policy) error {
	jobs, skipped, err := f.kernelJobs(args, lf.skipOther)
	if err != nil {
		return err
	}
	reportSkipped(env, skipped, false)
	code := ExitOK
	var all, hidden diag.Report
	var ferrs []clidoc.FileError
	for _, j := range jobs {
		label := j.path + " (" + j.o.Function + ")"
		res, err := traceKernel(j.o)
		var ck *nki.Checked
		if err == nil {
			arch, aerr := nkiArch(j.o)
			if err = aerr; err == nil {
				if ck, err = nki.CheckKernel(res, arch); err != nil {
					err = usageErr("%v", err)
				}
			}
		}
		if err != nil {
			code = worstCode(code, exitCodeOf(err))
			ferrs = append(ferrs, clidoc.FileError{Path: label, Message: err.Error()})
			if format == "text" {
				fmt.Fprintf(env.Stderr, "npukit: %s: %v\n", label, err)
			}
			continue
		}
		kept, h := filterKernelFindings(ck.Report.WithFile(j.path), j.o.Dir, policy)
		all, hidden = append(all, kept...), append(hidden, h...)
	}
	files := map[string]bool{}
	for _, j := range jobs {
		files[j.path] = true
	}
	doc := clidoc.NewCheck(len(files), all, ferrs, lf.noInfo)
	doc.Suppress(hidden)
	doc.Summary.Skipped = len(skipped)
	if doc.Diagnostics.HasErrors() {
		code = worstCode(code, ExitFindings)
	}
	if err := writeFindings(env, format, doc, doc); err != nil {
		return err
	}
	if code != ExitOK {
		return &ExitError{Code: code}
	}
	return nil
}
