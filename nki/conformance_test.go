package nki

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// corpusManifest and corpus3Manifest are in ../shared or $NPUKIT_SHARED (a
// path that does not exist when neither is there: the tests reading them
// skip).
var (
	corpusManifest  = filepath.Join(conformance.SharedDir(), "corpus2", "nki", "manifest.json")
	corpus3Manifest = filepath.Join(conformance.SharedDir(), "corpus3", "nki", "manifest.json")
)

// minAgree (54 of 54 on corpus2, 2026-11-26) is the number of manifest entries whose trace agrees with the
// golden in every compared aspect; the test fails when agreement regresses.
const minAgree = 54

type golden struct {
	Entry     string `json:"entry"`
	Traceable bool   `json:"traceable"`
	Reason    string `json:"reason"`
	Tensors   []struct {
		ID        string  `json:"id"`
		API       string  `json:"api"`
		Shape     []int64 `json:"shape"`
		DType     string  `json:"dtype"`
		Buffer    string  `json:"buffer"`
		Declared  int64   `json:"declarations_traced"`
		Instances int64   `json:"runtime_instances"`
		Site      *Site   `json:"site"`
		Alloc     *struct {
			Kind      string    `json:"kind"`
			Partition *int64    `json:"partition"`
			Offset    *int64    `json:"offset"`
			Tiles     [][]int64 `json:"tiles"`
		} `json:"alloc"`
	} `json:"tensors"`
	Loops []struct {
		Site       Site  `json:"site"`
		Entries    int64 `json:"entries_traced"`
		TripCounts []struct {
			Trip    int64 `json:"trip_count"`
			Entries int64 `json:"entries_traced"`
		} `json:"trip_counts"`
		Executed int64 `json:"entries_executed"`
	} `json:"loops"`
	Calls []struct {
		Fn       string `json:"fn"`
		Traced   int64  `json:"traced"`
		Executed int64  `json:"executed"`
		Site     Site   `json:"site"`
	} `json:"calls"`
}

func siteKey(s *Site) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", filepath.Base(s.File), s.Line, s.Col)
}

// aspects renders the compared facts of a trace, one line per site, so two
// traces agree when their line sets are equal.
func goldenAspects(g *golden) (t, l, c map[string]string) {
	t, l, c = map[string]string{}, map[string]string{}, map[string]string{}
	tv := map[string][]string{}
	tn := map[string][2]int64{}
	for _, x := range g.Tensors {
		k := siteKey(x.Site)
		if strings.HasPrefix(x.ID, "arg:") {
			k = x.ID
		}
		a := ""
		if x.Alloc != nil {
			a = x.Alloc.Kind
			if x.Alloc.Partition != nil {
				a += fmt.Sprintf("(%d,%d)", *x.Alloc.Partition, *x.Alloc.Offset)
			}
			if len(x.Alloc.Tiles) > 0 {
				a += fmt.Sprint(x.Alloc.Tiles)
			}
		}
		tv[k] = append(tv[k], fmt.Sprintf("%v %s %s %s", x.Shape, x.DType, x.Buffer, a))
		n := tn[k]
		tn[k] = [2]int64{n[0] + x.Declared, n[1] + x.Instances}
	}
	for k, v := range tv {
		sort.Strings(v)
		t[k] = fmt.Sprintf("%s decl=%d inst=%d", strings.Join(v, "; "), tn[k][0], tn[k][1])
	}
	type la struct {
		entries, exec int64
		trips         map[int64]int64
	}
	ls := map[string]*la{}
	for _, x := range g.Loops {
		k := siteKey(&x.Site)
		if ls[k] == nil {
			ls[k] = &la{trips: map[int64]int64{}}
		}
		ls[k].entries += x.Entries
		ls[k].exec += x.Executed
		for _, tc := range x.TripCounts {
			ls[k].trips[tc.Trip] += tc.Entries
		}
	}
	for k, v := range ls {
		l[k] = fmt.Sprintf("entries=%d exec=%d trips=%v", v.entries, v.exec, v.trips)
	}
	cs := map[string][2]int64{}
	for _, x := range g.Calls {
		k := siteKey(&x.Site) + " " + x.Fn
		n := cs[k]
		cs[k] = [2]int64{n[0] + x.Traced, n[1] + x.Executed}
	}
	for k, v := range cs {
		c[k] = fmt.Sprintf("traced=%d exec=%d", v[0], v[1])
	}
	return
}

// asGolden converts a Result to the golden shape via JSON-compatible fields.
func asGolden(r *Result) *golden {
	g := &golden{Traceable: true}
	b, _ := json.Marshal(r)
	var raw struct {
		Tensors []json.RawMessage `json:"tensors"`
	}
	_ = json.Unmarshal(b, &raw)
	for _, t := range r.Tensors {
		var x = struct {
			ID        string  `json:"id"`
			API       string  `json:"api"`
			Shape     []int64 `json:"shape"`
			DType     string  `json:"dtype"`
			Buffer    string  `json:"buffer"`
			Declared  int64   `json:"declarations_traced"`
			Instances int64   `json:"runtime_instances"`
			Site      *Site   `json:"site"`
			Alloc     *struct {
				Kind      string    `json:"kind"`
				Partition *int64    `json:"partition"`
				Offset    *int64    `json:"offset"`
				Tiles     [][]int64 `json:"tiles"`
			} `json:"alloc"`
		}{ID: t.ID, API: t.API, Shape: t.Shape, DType: string(t.DType), Buffer: t.Buffer, Declared: t.Declared, Instances: t.Instances, Site: t.Site}
		if t.Alloc != nil {
			x.Alloc = &struct {
				Kind      string    `json:"kind"`
				Partition *int64    `json:"partition"`
				Offset    *int64    `json:"offset"`
				Tiles     [][]int64 `json:"tiles"`
			}{t.Alloc.Kind, t.Alloc.Partition, t.Alloc.Offset, t.Alloc.Tiles}
		}
		g.Tensors = append(g.Tensors, x)
	}
	for _, l := range r.Loops {
		var x struct {
			Site       Site  `json:"site"`
			Entries    int64 `json:"entries_traced"`
			TripCounts []struct {
				Trip    int64 `json:"trip_count"`
				Entries int64 `json:"entries_traced"`
			} `json:"trip_counts"`
			Executed int64 `json:"entries_executed"`
		}
		x.Site, x.Entries, x.Executed = l.At, l.Entries, l.Executed
		for tc, n := range l.TripCounts {
			x.TripCounts = append(x.TripCounts, struct {
				Trip    int64 `json:"trip_count"`
				Entries int64 `json:"entries_traced"`
			}{tc, n})
		}
		g.Loops = append(g.Loops, x)
	}
	for _, c := range r.Calls {
		g.Calls = append(g.Calls, struct {
			Fn       string `json:"fn"`
			Traced   int64  `json:"traced"`
			Executed int64  `json:"executed"`
			Site     Site   `json:"site"`
		}{c.Fn, c.Traced, c.Executed, c.Site})
	}
	return g
}

func diffAspects(want, got map[string]string) []string {
	var out []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			out = append(out, fmt.Sprintf("%s: missing (want %s)", k, w))
		} else if g != w {
			out = append(out, fmt.Sprintf("%s: got %s want %s", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%s: extra %s", k, g))
		}
	}
	sort.Strings(out)
	return out
}

// TestConformance traces every manifest entry and compares it with its
// golden: tensors (shape, dtype, buffer, allocation, tile locations,
// declaration and runtime counts, grouped by declaring site), loops (entries,
// trip counts, runtime entries, by site) and calls (traced and executed
// counts, by site and function).
//
// NKI_CONFORMANCE_MANIFEST names another manifest (with goldens/ beside it,
// e.g. written by the corpus tracer for kernels outside the corpus); its
// table is reported without the corpus's agreement floor.
func TestConformance(t *testing.T) {
	path, floor := corpusManifest, minAgree
	if p := os.Getenv("NKI_CONFORMANCE_MANIFEST"); p != "" {
		path, floor = p, 0
	}
	m, err := ReadManifest(path)
	if err != nil {
		t.Skip("corpus2/nki not present")
	}
	agree, _ := conformanceTable(t, m, false)
	if agree < floor {
		t.Errorf("agreement regressed: %d < %d", agree, floor)
	}
}

// TestConformanceCorpus3 holds corpus3's kernels (Beta-1 kernels as students
// and contributors write them, ../shared/corpus3/nki/README) to their README:
// every entry traces (their authors ran them on hardware), and every entry
// whose golden is traceable agrees with it. Where the reference tracer
// could not run a kernel (a host module its stand-ins lack, a conditional
// expression on a loop index), npukit tracing it is no disagreement.
func TestConformanceCorpus3(t *testing.T) {
	m, err := ReadManifest(corpus3Manifest)
	if err != nil {
		if os.Getenv("NPUKIT_REQUIRE_SHARED") != "" {
			t.Fatalf("corpus3/nki: %v", err)
		}
		t.Skip("corpus3/nki not present")
	}
	agree, traced := conformanceTable(t, m, true)
	if agree != len(m.Entries) || traced != len(m.Entries) {
		t.Errorf("corpus3: %d of %d entries agree, %d traced; every entry must trace and agree where its golden is traceable", agree, len(m.Entries), traced)
	}
}

// conformanceTable traces every entry of m, compares it with its golden and
// logs the table; it returns the entries that agree and those that traced.
// With goldenLimited, a traced entry whose golden is untraceable agrees
// (the golden records the reference tracer's limit, not the kernel's).
func conformanceTable(t *testing.T, m *Manifest, goldenLimited bool) (agree, traced int) {
	t.Helper()
	verbose := os.Getenv("NKI_CONFORMANCE_VERBOSE") != ""
	refused, refusedOK := 0, 0
	var table strings.Builder
	for i := range m.Entries {
		e := &m.Entries[i]
		gb, err := os.ReadFile(filepath.Join(m.Dir(), "goldens", e.ID+".json"))
		if err != nil {
			t.Errorf("%s: no golden", e.ID)
			continue
		}
		var g golden
		if err := json.Unmarshal(gb, &g); err != nil {
			t.Fatal(err)
		}
		res, terr := Trace(OptionsFor(m, e))
		var ie *InternalError
		if errors.As(terr, &ie) {
			t.Errorf("%s: %v\n%s", e.ID, ie, ie.Stack)
			continue
		}
		if terr != nil {
			refused++
			status := "refused: " + terr.Error()
			if !g.Traceable {
				refusedOK++
				status = "agrees (golden untraceable too): " + terr.Error()
				agree++
			}
			fmt.Fprintf(&table, "%-45s %s\n", e.ID, status)
			continue
		}
		traced++
		if !g.Traceable {
			if goldenLimited {
				agree++
			}
			fmt.Fprintf(&table, "%-45s traced, golden says untraceable: %s\n", e.ID, g.Reason)
			continue
		}
		wt, wl, wc := goldenAspects(&g)
		gt, gl, gc := goldenAspects(asGolden(res))
		dt, dl, dc := diffAspects(wt, gt), diffAspects(wl, gl), diffAspects(wc, gc)
		if len(dt)+len(dl)+len(dc) == 0 {
			agree++
			fmt.Fprintf(&table, "%-45s agrees (%d tensors, %d loops, %d calls)\n", e.ID, len(wt), len(wl), len(wc))
			continue
		}
		fmt.Fprintf(&table, "%-45s differs: tensors %d/%d, loops %d/%d, calls %d/%d sites\n", e.ID,
			len(wt)-countKeys(dt, wt), len(wt), len(wl)-countKeys(dl, wl), len(wl), len(wc)-countKeys(dc, wc), len(wc))
		if verbose {
			for _, d := range append(append(dt, dl...), dc...) {
				fmt.Fprintf(&table, "    %s\n", d)
			}
		}
	}
	t.Logf("agreement table:\n%s", table.String())
	t.Logf("%d of %d entries agree; %d refused (%d where the golden is untraceable too)", agree, len(m.Entries), refused, refusedOK)
	return agree, traced
}

func countKeys(diffs []string, want map[string]string) int {
	seen := map[string]bool{}
	for _, d := range diffs {
		k := d[:strings.Index(d, ": ")]
		if _, ok := want[k]; ok {
			seen[k] = true
		}
	}
	return len(seen)
}
