package nki

import "strings"

// siteMerge gives the automatic declarations of one source line of the
// kernel file that executed as several records (a helper function called
// for two inputs, as nki-library's rope_hf runs one per-head loop for q
// and then for k) one plan tensor, so that place finds one allocation for
// the line. Records merge when one of them is at least as large as every
// other (partitions and bytes per partition, one buffer) and, for
// declarations in loops, their loops are the same (variables, start and
// step); the merged loop block takes the largest trip counts. Each
// execution stays a declaration instance of its own, so instances alive
// at once still need separate locations (the placement proves whether
// the line's one allocation can hold them). It returns the canonical
// record of each merged record; blocks is updated in place.
func siteMerge(res *Result, blocks map[*TensorRec]*loopBlock) map[*TensorRec]*TensorRec {
	groups := map[string][]*TensorRec{}
	var keys []string
	for _, r := range res.Tensors {
		if !r.OnChip || len(r.BlockDims) > 0 || r.Site == nil || r.Site.File != res.File ||
			r.Alloc == nil || (r.Alloc.Kind != "auto" && r.Alloc.Kind != "implicit") {
			continue
		}
		k := r.Site.String()
		if strings.HasPrefix(r.API, "result of ") {
			// as place keys them: nested results may share a column
			k += " " + r.API
		}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	canon := map[*TensorRec]*TensorRec{}
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		c := g[0]
		for _, r := range g[1:] {
			if r.Partition > c.Partition || r.Partition == c.Partition && r.FreeBytes > c.FreeBytes {
				c = r
			}
		}
		ok := true
		for _, r := range g {
			if r.Buffer != c.Buffer || r.Partition > c.Partition || r.FreeBytes > c.FreeBytes || (blocks[r] == nil) != (blocks[c] == nil) {
				ok = false
			}
		}
		var merged *loopBlock
		if ok && blocks[c] != nil {
			merged, ok = mergeBlocks(g, blocks)
		}
		if !ok {
			continue
		}
		for _, r := range g {
			canon[r] = c
			if merged != nil {
				blocks[r] = merged
			}
		}
	}
	return canon
}

// mergeBlocks is one loop block for the records' loop blocks, or false
// when their loops differ: the same loops and variables, and one start and
// step per loop (a record of a loop's last iteration only, as a tile of a
// different shape there, has seen no step of its own).
func mergeBlocks(g []*TensorRec, blocks map[*TensorRec]*loopBlock) (*loopBlock, bool) {
	b0 := blocks[g[0]]
	m := &loopBlock{vars: b0.vars, rec: b0.rec, first: b0.first, idx: map[int64][]int64{},
		step: make([]int64, len(b0.step)), dims: make([]int64, len(b0.dims))}
	for _, r := range g {
		b := blocks[r]
		if len(b.vars) != len(m.vars) {
			return nil, false
		}
		for d := range b.vars {
			if b.vars[d] != m.vars[d] || b.rec[d] != m.rec[d] {
				return nil, false
			}
			switch {
			case m.step[d] == 0:
				m.step[d] = b.step[d]
			case b.step[d] != 0 && b.step[d] != m.step[d]:
				return nil, false
			}
			m.dims[d] = max(m.dims[d], b.dims[d])
		}
		for inst, idx := range b.idx {
			m.idx[inst] = idx
		}
	}
	for d := range m.vars {
		// variable = start + iteration*step through every block's first
		// point
		a0, v0 := m.first[d][0], m.first[d][1]
		for _, r := range g {
			a, v := blocks[r].first[d][0], blocks[r].first[d][1]
			if a == a0 {
				if v != v0 {
					return nil, false
				}
				continue
			}
			if m.step[d] == 0 {
				if (v-v0)%(a-a0) != 0 || v == v0 {
					return nil, false
				}
				m.step[d] = (v - v0) / (a - a0)
			}
			if v-v0 != (a-a0)*m.step[d] {
				return nil, false
			}
		}
	}
	return m, true
}
