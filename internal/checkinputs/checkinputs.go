// Package checkinputs expands the arguments of the checking commands
// (npukit check, sbuf check, nki check) into the files they check: a file
// is itself, a glob that names no file is expanded, a directory is walked
// recursively (hidden directories are not entered, symbolic links not
// followed) and its files are kept or counted as skipped by content.
package checkinputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/nki"
)

// Artifacts expands check's arguments: a directory that is an artifact
// (an unpacked NEFF) is itself, any other directory is walked. Files met
// in a walk are kept when their content is an artifact npukit checks (of
// one of kinds, when given) and returned as skipped otherwise. A named
// file is kept, so that a file that is not an artifact is reported, not
// skipped, unless skipOther (--skip-other: a pre-commit hook passes every
// file its pattern matches). A directory without any artifact is an
// error: checking nothing is a mistake worth saying.
func Artifacts(args []string, skipOther bool, kinds ...detect.Kind) (files, skipped []string, err error) {
	for _, a := range args {
		if _, statErr := os.Lstat(a); statErr != nil && strings.ContainsAny(a, "*?[") {
			m, gerr := filepath.Glob(a)
			if gerr != nil {
				return nil, nil, fmt.Errorf("%q: %v", a, gerr)
			}
			if len(m) == 0 {
				return nil, nil, fmt.Errorf("%s: no file matches", a)
			}
			for _, p := range m {
				f, s, err := Artifacts([]string{p}, skipOther, kinds...)
				if err != nil {
					return nil, nil, err
				}
				files, skipped = append(files, f...), append(skipped, s...)
			}
			continue
		}
		st, statErr := os.Stat(a)
		if statErr != nil || !st.IsDir() {
			if skipOther && statErr == nil && !Checkable(a, kinds) {
				skipped = append(skipped, a)
				continue
			}
			files = append(files, a)
			continue
		}
		if r, err := detect.Path(a); err == nil && r.Kind != "" {
			files = append(files, a) // an unpacked NEFF directory
			continue
		}
		f, s, err := artifactsUnder(a, kinds)
		if err != nil {
			return nil, nil, err
		}
		if len(f) == 0 {
			return nil, nil, fmt.Errorf("%s: no artifact npukit checks under this directory (%s skipped)%s", a, humanize.Plural(len(s), "file"), nkiSkipped(a, s))
		}
		files, skipped = append(files, f...), append(skipped, s...)
	}
	return files, skipped, nil
}

// artifactsUnder lists the artifacts under dir in lexical order.
func artifactsUnder(dir string, kinds []detect.Kind) (files, skipped []string, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			skipped = append(skipped, p)
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if p != dir {
				if r, err := detect.Path(p); err == nil && r.Kind != "" && (len(kinds) == 0 || slices.Contains(kinds, r.Kind)) {
					files = append(files, p)
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			skipped = append(skipped, p)
			return nil
		}
		if Checkable(p, kinds) {
			files = append(files, p) // an artifact, or one that cannot be read: check says which
		} else {
			skipped = append(skipped, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", dir, pathCause(err))
	}
	sort.Strings(files)
	return files, skipped, nil
}

// Checkable reports whether a file's content is an artifact npukit checks
// (of one of kinds, when given); a file of a recognised kind that cannot
// be read further counts as checkable, so that check says what is wrong.
func Checkable(p string, kinds []detect.Kind) bool {
	r, err := detect.Path(p)
	var ue *detect.UnknownError
	switch {
	case errors.As(err, &ue):
		return false
	case err == nil && !npukit.Supports(r.Kind, "check"):
		return false
	case err == nil && len(kinds) > 0 && !slices.Contains(kinds, r.Kind):
		return false
	}
	return true
}

// Sources expands arguments into source files: named files (named[p]
// set), globs, and the regular files ending in ext under directories;
// other regular files met in a walk, and entries that cannot be read,
// are returned as skipped. files is sorted.
func Sources(args []string, ext string) (files []string, named map[string]bool, skipped []string, err error) {
	named = map[string]bool{}
	for _, a := range args {
		m := []string{a}
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			if m, err = filepath.Glob(a); err != nil || len(m) == 0 {
				return nil, nil, nil, fmt.Errorf("%s: no file matches", a)
			}
		}
		for _, p := range m {
			st, err := os.Stat(p)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %v", p, pathCause(err))
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
				case d.Type().IsRegular() && strings.HasSuffix(q, ext):
					files = append(files, q)
				case d.Type().IsRegular():
					skipped = append(skipped, q)
				}
				return nil
			})
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %v", p, pathCause(err))
			}
		}
	}
	sort.Strings(files)
	return files, named, skipped, nil
}

// pathCause strips the operation and path an *fs.PathError repeats, for
// messages that name the path themselves.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// nkiSkipped says how many of the files skipped under dir are NKI kernels,
// which `npukit nki check` checks ("" when none; audit r3 #23).
func nkiSkipped(dir string, skipped []string) string {
	n := 0
	for _, p := range skipped {
		var ue *detect.UnknownError
		if _, err := detect.Path(p); errors.As(err, &ue) && ue.NKIKernel {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %s of them NKI kernels: `npukit nki check %s` checks those with a '# npukit: check' comment (or give --manifest)", humanize.Count(int64(n)), dir)
}

// RelPath is p relative to the working directory when it lies below it.
func RelPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// KernelJobs lists the kernels `nki check` of args checks (when
// r.ManyKernels): a manifest's entries, or the directives of the kernel
// files named or found under the directories named (*.py files without a
// directive are skipped there). Its errors are the user's.
func KernelJobs(r nki.Request, args []string, skipOther bool) (jobs []nki.Job, skipped []string, err error) {
	if r.Manifest != "" {
		if len(args) > 0 {
			return nil, nil, errors.New("--manifest takes the files from its entries; give no KERNEL.py")
		}
		jobs, err = r.ManifestJobs(RelPath)
	} else {
		var files []string
		var named map[string]bool
		if files, named, skipped, err = Sources(args, ".py"); err == nil {
			var s []string
			jobs, s, err = r.DirectiveJobs(files, named, skipOther)
			skipped = append(skipped, s...)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if len(jobs) == 0 && !skipOther && r.Manifest == "" {
		return nil, nil, fmt.Errorf("no kernel with a '# npukit: check' comment under %s", strings.Join(args, ", "))
	}
	return jobs, skipped, nil
}
