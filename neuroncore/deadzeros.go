package neuroncore

// sbufZerosElided reports, per event, the memsets of SBUF tiles that the
// compiler removes as dead stores: before anything reads the tile, later
// writes (loads, compute results, other memsets) put at least as many
// elements into it as it holds, so no zero is ever read.
//
// Evidence: the NEFFs neuronx-cc 2.21 compiled from
// chenhzhu/asst4-trainium2's part2/conv2d.py (corpus3/ntff
// final_float16, final_pool_float16 and their smaller and float32
// builds). The kernel declares X_sbuf = nl.zeros(...) in SBUF once per
// output row tile (111 times in final_float16, X [1,256,224,224]) and
// fills all of it with nisa.dma_copy slices before its matmuls read it.
// The NEFFs have no instruction for those memsets: final_float16's
// VectorE runs only its 222 TENSOR_TENSOR (the bias adds), ScalarE its
// 36 COPY (weight transposes) and 222 evictions of PSUM, GpSimdE and
// SP only DMA triggers and semaphores, and its 449 SP DMAs are the 444
// X slices, 2 weight loads, 2 bias loads and one reload, none a memset.
// The memsets that are read (an accumulator zeroed and then +=, a
// padded tile a load fills only partly) keep their instruction.
//
// npukit knows how many elements each write touches (the slice's size),
// not where: writes that overlap each other count twice, so a tile
// written twice over half its elements would pass as covered.
func sbufZerosElided(x *Execution, elided []bool) (n int) {
	p := x.Plan
	type zero struct {
		ev        int
		got, need int64
	}
	pending := map[TileKey]*zero{}
	left := map[int]int{} // memset event -> tiles not yet covered
	bad := map[int]bool{}
	settle := func(k TileKey, z *zero, ok bool) {
		delete(pending, k)
		if !ok {
			bad[z.ev] = true
		}
		if left[z.ev]--; left[z.ev] == 0 && !bad[z.ev] {
			elided[z.ev] = true
			n++
		}
	}
	for ev := range x.Events {
		e := &x.Events[ev]
		for _, k := range e.Reads {
			if z, ok := pending[k]; ok {
				settle(k, z, false)
			}
		}
		aligned := len(e.Writes) == len(e.Step.Writes)
		for i, k := range e.Writes {
			z, ok := pending[k]
			if !ok {
				continue
			}
			if !aligned || e.Step.Accumulate {
				settle(k, z, false)
				continue
			}
			r := e.Step.Writes[i]
			z.got += refPartitions(p, r) * refFree(p, r)
			if z.got >= z.need {
				settle(k, z, true)
			}
		}
		if elided[ev] || !zeroesOnly(p, e, SBUF) {
			continue
		}
		for _, k := range e.Writes {
			if _, dup := pending[k]; !dup {
				t := p.Tensors[k.Tensor]
				pending[k] = &zero{ev: ev, need: t.Partitions * t.FreeElems()}
				left[ev]++
			}
		}
	}
	return n
}

// hoistZeros is the order in which the engines are given the events: the
// program's, except that a memset of a fresh location (no earlier event
// touches any slot overlapping what it writes) goes to its engine before
// the previous iteration of its innermost loop. The memset depends on
// nothing, so the compiler's scheduler is free to zero the next
// iteration's buffer while the current one computes; in program order
// the memset waited behind the whole previous iteration on its in-order
// engine, and the load that fills the rest of the buffer behind it. A
// memset whose iterations merge into one instruction (Vectorization)
// stays where it is.
func hoistZeros(x *Execution, m *memState, vec *vectorizer, elided []bool) (order []int, hoisted int) {
	n := len(x.Events)
	first := make([]int, len(m.overlaps))
	for i := range first {
		first[i] = -1
	}
	touch := func(k TileKey, ev int) {
		for _, s := range m.overlaps[m.slotOf[k]] {
			if first[s] < 0 {
				first[s] = ev
			}
		}
	}
	var cur, prev []int // per loop depth: the event starting the current / previous iteration
	var last []int64
	before := map[int][]int{}
	moved := make([]bool, n)
	for ev := range x.Events {
		e := &x.Events[ev]
		v := e.Vars
		for len(cur) < len(v) {
			cur, prev = append(cur, -1), append(prev, -1)
		}
		same := true // outer variables unchanged so far
		for d := range v {
			if same && d < len(last) && v[d] == last[d] {
				continue
			}
			if same && d < len(last) {
				prev[d] = cur[d] // the next iteration of the same loop
			} else {
				prev[d] = -1 // a new instance of the loop
			}
			cur[d] = ev
			same = false
		}
		last = v
		for _, k := range e.Reads {
			touch(k, ev)
		}
		for _, k := range e.Writes {
			touch(k, ev)
		}
		if e.Step.Op != OpMemset || elided[ev] || len(e.Reads) > 0 || len(e.Writes) == 0 || len(v) == 0 {
			continue
		}
		if _, merges := vec.loopOf[e.Step]; merges {
			continue // its iterations are one instruction, in order
		}
		to := prev[len(v)-1]
		if to < 0 {
			continue
		}
		fresh := true
		for _, k := range e.Writes {
			for _, s := range m.overlaps[m.slotOf[k]] {
				fresh = fresh && first[s] == ev
			}
		}
		if fresh {
			before[to] = append(before[to], ev)
			moved[ev] = true
			hoisted++
		}
	}
	order = make([]int, 0, n)
	for ev := range x.Events {
		order = append(order, before[ev]...)
		if !moved[ev] {
			order = append(order, ev)
		}
	}
	return order, hoisted
}
