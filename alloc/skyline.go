package alloc

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
)

// Skyline placement builds a placement from the bottom up, the way the
// canonical solutions of MiniMalloc (Moffitt, ASPLOS 2023) are built: each
// step places, at its floor, the buffer whose floor is lowest, where a
// buffer's floor is the highest end among the placed buffers alive at the
// same time. A priority breaks ties between equal floors. Where the
// size-ordered greedy (Heuristic) places a small long-lived buffer last,
// on top of everything it meets, the skyline fills the bottom densely
// first: on real compiler traces (IOPDDL S_1, MindSpore SOMAS PanGu) it
// comes within 1% of the live-bytes peak where the greedy ends 2.5-3.3%
// above. Without backtracking it is a heuristic: which priority wins
// depends on the trace, so skylinePortfolio tries several.

// skyPriority ranks buffers of equal floor: larger keys first.
type skyPriority func(b *Buffer, contention int64) [3]int64

// skylineFirst is the number of buffers from which Exact tries the
// skyline (first priority) before the greedy.
const skylineFirst = 2000

var skyPriorities = []skyPriority{
	// area (bytes x time), then size
	func(b *Buffer, _ int64) [3]int64 { return [3]int64{b.Size * (b.Upper - b.Lower), b.Size} },
	// size, then lifetime
	func(b *Buffer, _ int64) [3]int64 { return [3]int64{b.Size, b.Upper - b.Lower} },
	// the busiest moment of the buffer's life first (TelaMalloc's
	// contention), then the larger. (Contention then lifetime did as well
	// on some traces but re-sorted its heap 6x as often: 12 s on S_1.)
	func(b *Buffer, c int64) [3]int64 { return [3]int64{c, b.Size, b.Upper - b.Lower} },
}

// skylineOK reports whether p suits the skyline placement: no fixed
// buffers (a fixed buffer leaves room below it that floors cannot see)
// and no gaps.
func skylineOK(p *Problem) bool {
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Fixed || len(b.Gaps) > 0 {
			return false
		}
	}
	return true
}

// loadEvent is a change of the bytes alive at time t: +size where a
// buffer starts, -size where it ends.
type loadEvent struct{ t, d int64 }

// loadEvents are the starts and ends of the buffers with bytes and a
// lifetime, by time, ends before starts at one time ([Lower, Upper)).
func loadEvents(p *Problem) []loadEvent {
	evs := make([]loadEvent, 0, 2*len(p.Buffers))
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Size > 0 && b.Upper > b.Lower {
			evs = append(evs, loadEvent{b.Lower, b.Size}, loadEvent{b.Upper, -b.Size})
		}
	}
	slices.SortFunc(evs, func(a, b loadEvent) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
	return evs
}

// contention returns, per buffer, the most bytes alive at one moment of
// its life (a range maximum over the load profile, by a segment tree).
func contention(p *Problem) []int64 {
	evs := loadEvents(p)
	var times, load []int64
	var cur int64
	for k, e := range evs {
		cur += e.d
		if k+1 == len(evs) || evs[k+1].t != e.t {
			times = append(times, e.t)
			load = append(load, cur)
		}
	}
	n := len(load)
	tree := make([]int64, 2*n)
	copy(tree[n:], load)
	for k := n - 1; k > 0; k-- {
		tree[k] = max(tree[2*k], tree[2*k+1])
	}
	out := make([]int64, len(p.Buffers))
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Size <= 0 || b.Upper <= b.Lower {
			continue
		}
		lo, _ := slices.BinarySearch(times, b.Lower)
		hi, _ := slices.BinarySearch(times, b.Upper)
		var m int64
		for l, r := lo+n, hi+n; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				m = max(m, tree[l])
				l++
			}
			if r&1 == 1 {
				r--
				m = max(m, tree[r])
			}
		}
		out[i] = m
	}
	return out
}

// skyItem is a heap entry: a buffer's floor when pushed and its rank
// under the priority (lower first), 16 bytes so the heap stays in cache.
type skyItem struct {
	floor int64
	rank  int32
	i     int32
}

func skyBefore(x, y *skyItem) bool {
	return x.floor < y.floor || x.floor == y.floor && x.rank < y.rank
}

// skyHeap is a binary min-heap of items (typed, no interface boxing: it
// sees tens of millions of operations on large traces).
type skyHeap []skyItem

func (h *skyHeap) push(x skyItem) {
	*h = append(*h, x)
	a := *h
	for k := len(a) - 1; k > 0; {
		par := (k - 1) / 2
		if !skyBefore(&a[k], &a[par]) {
			break
		}
		a[k], a[par] = a[par], a[k]
		k = par
	}
}

func (h *skyHeap) pop() skyItem {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	*h = a[:last]
	h.down()
	return top
}

// down restores the heap after its top entry changed or was replaced.
func (h *skyHeap) down() {
	a := *h
	last := len(a)
	for k := 0; ; {
		l, r, m := 2*k+1, 2*k+2, k
		if l < last && skyBefore(&a[l], &a[m]) {
			m = l
		}
		if r < last && skyBefore(&a[r], &a[m]) {
			m = r
		}
		if m == k {
			break
		}
		a[k], a[m] = a[m], a[k]
		k = m
	}
}

// skyRanks orders the buffers of ix by a priority (first = placed first
// among equal floors).
func skyRanks(p *Problem, ix *timeIndex, cont []int64, pri skyPriority) []int32 {
	keys := make([][3]int64, len(p.Buffers))
	for _, i := range ix.order {
		var c int64 // cont is nil for priorities that do not use it
		if cont != nil {
			c = cont[i]
		}
		keys[i] = pri(&p.Buffers[i], c)
	}
	byRank := slices.Clone(ix.order)
	slices.SortStableFunc(byRank, func(a, b int32) int {
		x, y := &keys[a], &keys[b]
		return cmp.Or(cmp.Compare(y[0], x[0]), cmp.Compare(y[1], x[1]), cmp.Compare(y[2], x[2]))
	})
	return byRank
}

// skyline places p bottom-up, ties broken by byRank; nil when ctx ends.
// The heap holds each buffer once: an entry whose floor went up since it
// was pushed sinks to its place when it surfaces (floors only rise, so a
// stale entry never comes out later than it should).
func skyline(ctx context.Context, p *Problem, ix *timeIndex, byRank []int32) *Solution {
	n := len(p.Buffers)
	var align []int64 // nil when no buffer asks for one
	for i := range p.Buffers {
		if a := p.Buffers[i].Alignment; a > 1 {
			if align == nil {
				align = make([]int64, n)
			}
			align[i] = a
		}
	}
	floor := make([]int64, n)
	placed := make([]bool, n)
	off := make([]int64, n)
	h := make(skyHeap, 0, len(byRank))
	for r, i := range byRank {
		f := int64(0)
		if align != nil {
			f = alignUp(0, align[i])
		}
		h.push(skyItem{f, int32(r), i})
	}
	for done := 0; len(h) > 0; {
		it := h[0]
		f := floor[it.i]
		if align != nil {
			f = alignUp(f, align[it.i])
		}
		if f != it.floor {
			// Raised since it was pushed: sink it to its place.
			h[0].floor = f
			h.down()
			continue
		}
		h.pop()
		if done++; done&255 == 0 && ctxErr(ctx) != nil {
			return nil
		}
		placed[it.i] = true
		b := &p.Buffers[it.i]
		off[it.i] = f
		end := f + b.Size
		ix.each(p, b.Lower, b.Upper, func(j int32) {
			if !placed[j] && floor[j] < end {
				floor[j] = end
			}
		})
	}
	return &Solution{Offsets: off}
}

// skylinePortfolio runs the skyline placement with every priority (on up
// to workers goroutines) and returns the lowest placement, nil when p does
// not suit it or ctx ended first. The result does not depend on workers.
func skylinePortfolio(ctx context.Context, p *Problem, workers int) *Solution {
	if !skylineOK(p) || len(p.Buffers) == 0 || ctxErr(ctx) != nil {
		return nil
	}
	ix := newTimeIndex(p)
	cont := contention(p)
	sols := make([]*Solution, len(skyPriorities))
	var wg sync.WaitGroup
	next := make(chan int, len(skyPriorities))
	for k := range skyPriorities {
		next <- k
	}
	close(next)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for w := 0; w < min(workers, len(skyPriorities)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				sols[k] = skyline(ctx, p, ix, skyRanks(p, ix, cont, skyPriorities[k]))
			}
		}()
	}
	wg.Wait()
	var best *Solution
	var bestH int64
	for _, s := range sols {
		if s == nil {
			continue
		}
		if h := Height(p, s); best == nil || h < bestH {
			best, bestH = s, h
		}
	}
	return best
}
