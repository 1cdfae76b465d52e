package sbufreport

import (
	"slices"
	"strings"

	"github.com/npukit/npukit/nki"
	"github.com/npukit/npukit/report"
)

// KernelPage is the page of a checked NKI kernel (`npukit nki report`):
// the plan page of its lowered body with the kernel's findings, each
// directly allocated tensor's allocation as the kernel states it, and the
// kernel graph. name is the kernel file's name.
func KernelPage(ck *nki.Checked, name string) (*report.Page, error) {
	page, err := CheckedPage(ck.Exec, ck.Report.WithFile(name))
	if err != nil {
		return nil, err
	}
	page.Subtitle = name + " (NKI kernel " + ck.Plan.Name + ")"
	kernelAllocations(page, ck.Trace)
	if sec, ok := KernelGraphSection(ck); ok {
		page.Sections = append(page.Sections, sec)
	}
	return page, nil
}

// kernelAllocations writes, in a kernel page's tensor table, each directly
// allocated tensor's allocation as the kernel states it and `nki inspect`
// prints it (issue 32: the page said "ncc.psum.alloc(table of 1)" where
// inspect said "psum.mod_alloc"); automatic tensors keep the placement the
// page suggests.
func kernelAllocations(page *report.Page, r *nki.Result) {
	if r == nil {
		return
	}
	by := map[string]*nki.TensorRec{}
	for _, t := range r.Tensors {
		if _, dup := by[t.Name]; t.Alloc != nil && !dup {
			by[t.Name] = t
		}
	}
	for i := range page.Sections {
		if page.Sections[i].ID != "tensors" {
			continue
		}
		for _, b := range page.Sections[i].Blocks {
			tb, ok := b.(*report.Table)
			col := -1
			if ok {
				col = slices.Index(tb.Header, "allocation")
			}
			if col < 0 {
				continue
			}
			for _, row := range tb.Rows {
				if t := by[row[0]]; t != nil && col < len(row) && !strings.HasPrefix(row[col], "auto") {
					row[col] = t.Alloc.Describe()
				}
			}
		}
	}
}
