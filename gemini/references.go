package gemini

import (
	"fmt"
	"slices"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// RuleRenumbered is the cause of many broken links at once: the references
// to workloads (destinations, "-1".in entries) follow another numbering
// than the workloads' own workload_id.
const RuleRenumbered = "gemini/renumbered-references"

// RuleMissingRead groups the transfers a schedule loads from DRAM (its
// snapshots say so) that "-1".out does not define.
const RuleMissingRead = "gemini/missing-dram-read"

func init() {
	diag.Register(
		diag.Rule{ID: RuleRenumbered, Severity: diag.Error, Description: `references to workloads (ofmap and "-1".out destinations, "-1".in entries) name workloads that do not exist or do not use (produce) the transfer while other workloads of the same core do, some of them beyond the core's workload_ids: the workloads were renumbered without their references (a slicing tool that renumbers workload_id does this); said once with the counts and the first few`},
		diag.Rule{ID: RuleMissingRead, Severity: diag.Error, Description: `transfers a workload loads from DRAM (its snapshot's source says DRAM) must be "-1".out entries; said once with the transfers and the references naming them (ifmap lists and related_ofmap links)`},
	)
}

// staleRefs are the references that name the wrong workload of the right
// core: the named workload does not exist or does not use (for a "-1".in
// entry: produce) the transfer, while another workload of that core does.
type staleRefs struct {
	// renumbered: the stale references are one cause, reported once; else
	// each is reported under its link rule.
	renumbered bool
	n          int
	outOfRange int    // naming a workload_id the core does not have
	kinds      [3]int // ofmap destinations, "-1".out destinations, "-1".in entries
	first      string // location of the first
	examples   []string
	// fit counts the stale references an order-preserving renumbering
	// explains: per core, a strictly increasing map from the named IDs
	// to workloads that use (produce) each named transfer.
	fit  int
	refs []staleRef
}

// staleRef is one stale reference: the core, the workload_id it names and
// the workloads of that core that use (produce) its transfer.
type staleRef struct {
	core  int
	named int64
	users []int64
}

// fitRenumbering counts the stale references that a renumbering explains:
// per core, the named IDs in ascending order are mapped greedily to the
// smallest workload above the previous one's that every reference naming
// the ID allows. A reference another cause made (a writer that names
// workload 0 for every weight, say) names an ID whose references allow no
// common workload and stays unexplained.
func (st *staleRefs) fitRenumbering() {
	type key struct {
		core  int
		named int64
	}
	cand := map[key][]int64{}
	count := map[key]int{}
	var keys []key
	for _, r := range st.refs {
		k := key{r.core, r.named}
		if c, ok := cand[k]; ok {
			if len(c) > 0 {
				in := make(map[int64]bool, len(r.users))
				for _, u := range r.users {
					in[u] = true
				}
				cand[k] = slices.DeleteFunc(c, func(v int64) bool { return !in[v] })
			}
		} else {
			cand[k] = slices.Clone(r.users)
			keys = append(keys, k)
		}
		count[k]++
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.core != b.core {
			return a.core - b.core
		}
		return int(a.named - b.named)
	})
	prev := map[int]int64{}
	for _, k := range keys {
		p, ok := prev[k.core]
		if !ok {
			p = -1 << 62
		}
		for _, v := range cand[k] { // ascending: users are in program order
			if v > p {
				prev[k.core] = v
				st.fit += count[k]
				break
			}
		}
	}
}

const (
	refOfmap = iota
	refRead
	refWrite
)

// consumersOn returns the workload IDs on a compact core that use a
// transfer, in program order.
func consumersOn(ix *Index, id int64, core int) []int64 {
	var out []int64
	for _, r := range ix.consumers[id] {
		if int(r.core) == core {
			out = append(out, ix.s.Cores[r.core].Workloads[r.wl].ID)
		}
	}
	return out
}

// staleDest reports whether a core destination of transfer id names the
// wrong workload of its core (see staleRefs), and whether the named
// workload does not exist at all.
func staleDest(ix *Index, d Destination, id int64) (stale, missing bool, users []int64) {
	if d.Core < 0 || !d.HasWorkload {
		return false, false, nil
	}
	w := ix.Workload(d.Core, d.Workload)
	if w != nil && (uses(w, id) || inMergedIfmap(w, id)) {
		return false, false, nil
	}
	users = consumersOn(ix, id, d.Core)
	return len(users) > 0, w == nil, users
}

// staleWrite reports whether a "-1".in entry names the wrong workload of
// the core that produces its transfer.
func staleWrite(ix *Index, wr *DRAMWrite) (stale, missing bool, producer int64) {
	pc, pw, _ := ix.Producer(wr.TransferID)
	if pc == nil || pc.ID != wr.Core {
		return false, false, 0
	}
	w := ix.Workload(wr.Core, wr.Workload)
	if w == pw {
		return false, false, 0
	}
	return true, w == nil, pw.ID
}

func idRange(ids []int64) string {
	if len(ids) == 1 {
		return fmt.Sprintf("workload %d", ids[0])
	}
	if ids[len(ids)-1]-ids[0] == int64(len(ids)-1) {
		return fmt.Sprintf("workloads %d..%d", ids[0], ids[len(ids)-1])
	}
	return fmt.Sprintf("%d workloads (%d..%d)", len(ids), ids[0], ids[len(ids)-1])
}

// findStale counts the stale references of a schedule and decides whether
// they are one cause: several, some naming workload_ids beyond the core's
// own (a numbering the file does not use).
func findStale(s *Schedule, ix *Index) *staleRefs {
	st := &staleRefs{}
	// Examples: the first stale reference of each kind and the first
	// naming a missing workload, at most three.
	seen := map[[2]int]bool{}
	note := func(kind int, loc func() string, missing bool, ex string, ref staleRef) {
		st.refs = append(st.refs, ref)
		if st.n == 0 {
			st.first = loc()
		}
		st.n++
		st.kinds[kind]++
		if missing {
			st.outOfRange++
		}
		k := [2]int{kind, map[bool]int{false: 0, true: 1}[missing]}
		if len(st.examples) < 3 && !seen[k] {
			seen[k] = true
			st.examples = append(st.examples, ex)
		}
	}
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for oi := range w.Ofmaps {
				o := &w.Ofmaps[oi]
				for di, d := range o.Destinations {
					if stale, missing, users := staleDest(ix, d, o.TransferID); stale {
						note(refOfmap, func() string { return fmt.Sprintf("%s / ofmap[%d] / destination[%d]", wlLoc(c, w), oi, di) }, missing,
							fmt.Sprintf("transfer %d names %s workload %d, used there by %s", o.TransferID, fileCore(s, d.Core, d.CoreKey), d.Workload, idRange(users)), staleRef{d.Core, d.Workload, users})
					}
				}
			}
		}
	}
	for i := range s.DRAMReads {
		r := &s.DRAMReads[i]
		for di, d := range r.Destinations {
			if stale, missing, users := staleDest(ix, d, r.TransferID); stale {
				note(refRead, func() string { return fmt.Sprintf("dram out[%d] (transfer %d) / destination[%d]", i, r.TransferID, di) }, missing,
					fmt.Sprintf("DRAM read %d names %s workload %d, used there by %s", r.TransferID, fileCore(s, d.Core, d.CoreKey), d.Workload, idRange(users)), staleRef{d.Core, d.Workload, users})
			}
		}
	}
	for i := range s.DRAMWrites {
		wr := &s.DRAMWrites[i]
		if stale, missing, p := staleWrite(ix, wr); stale {
			note(refWrite, func() string { return fmt.Sprintf("dram in[%d] (transfer %d)", i, wr.TransferID) }, missing,
				fmt.Sprintf("DRAM write %d names %s workload %d, produced by workload %d", wr.TransferID, fileCore(s, wr.Core, wr.CoreKey), wr.Workload, p), staleRef{wr.Core, wr.Workload, []int64{p}})
		}
	}
	st.renumbered = st.n >= 2 && st.outOfRange > 0
	if st.renumbered {
		st.fitRenumbering()
	}
	st.refs = nil
	return st
}

func (st *staleRefs) report(rep *diag.Report) {
	if !st.renumbered {
		return
	}
	var parts []string
	for k, what := range []string{"ofmap destinations", `"-1".out destinations`, `"-1".in entries`} {
		if st.kinds[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", st.kinds[k], what))
		}
	}
	// The renumbering is named as the cause when it explains nine in ten
	// of the references; otherwise only what they do is said.
	cause := fmt.Sprintf("references name workloads by another numbering than their workload_id (a writer's own, or one a wrong default gives; a renumbering explains %d of %d)", st.fit, st.n)
	if st.fit*10 >= st.n*9 {
		cause = "workload_ids follow another numbering than the references to them: the file was renumbered without its references"
	}
	rep.Add(RuleRenumbered, st.first, "%s. %d references (%s) name a workload that does not exist (%d) or does not use the transfer, while workloads of the same core do; e.g. %s",
		cause, st.n, strings.Join(parts, ", "), st.outOfRange, strings.Join(st.examples, "; "))
}

// missingReads collects the transfers workloads load from DRAM (a source
// of their snapshot says DRAM) that neither "-1".out nor a core ofmap
// defines.
type missingReads struct {
	ids     []int64
	is      map[int64]bool
	uses    int // ifmap references naming them
	related int // related_ofmap links naming them
	first   string
}

// loadedFromDRAM reports whether a workload's snapshot holds a transfer
// with a DRAM source.
func loadedFromDRAM(w *Workload, id int64) bool {
	for i := range w.Buffer {
		for _, src := range w.Buffer[i].Sources {
			if src.TransferID == id && src.Core == DRAM {
				return true
			}
		}
	}
	return false
}

func (m *missingReads) add(id int64, loc func() string) {
	if m.is == nil {
		m.is = map[int64]bool{}
	}
	if m.first == "" {
		m.first = loc()
	}
	m.uses++
	if !m.is[id] {
		m.is[id] = true
		m.ids = append(m.ids, id)
	}
}

func (m *missingReads) report(rep *diag.Report) {
	if len(m.ids) == 0 {
		return
	}
	ids := slices.Clone(m.ids)
	slices.Sort(ids)
	more := ""
	if len(ids) > 8 {
		ids, more = ids[:8], ", ..."
	}
	rel := ""
	if m.related > 0 {
		rel = fmt.Sprintf(" and %d related_ofmap links of \"-1\".in", m.related)
	}
	rep.Add(RuleMissingRead, m.first, "%s the snapshots load from DRAM %s no \"-1\".out entry (%s%s), named by %s%s",
		humanize.Plural(len(m.ids), "transfer"), map[bool]string{true: "has", false: "have"}[len(m.ids) == 1], strings.Trim(fmt.Sprint(ids), "[]"), more, humanize.Plural(m.uses, "ifmap reference"), rel)
}
