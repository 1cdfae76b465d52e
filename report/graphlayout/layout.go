// Package graphlayout lays out a directed graph top to bottom in layers
// (the Sugiyama method): cycles are broken by reversing back edges, every
// node is put on the layer after its deepest predecessor, an edge that
// spans several layers gets a bend point on each layer it crosses, nodes
// are ordered within a layer by repeated barycentre sweeps to reduce
// crossings, and placed left to right with a gap, pulled towards the
// centre of their neighbours where there is room.
//
// Every edge therefore runs from the bottom of its source to the top of
// its target through the gaps between layers and beside the nodes of the
// layers it crosses: no edge is drawn through a node, and no two nodes
// overlap. The layout is computed in Go so that the command line's report
// and the web viewer (the same code compiled to WebAssembly) draw the same
// picture.
package graphlayout

import (
	"math"
	"sort"
)

// Graph is the input: node sizes and edges between node indexes.
type Graph struct {
	W, H  []float64 // per node
	Edges [][2]int  // from, to
	// Group, when set, keeps the nodes of one group side by side in every
	// layer, groups in ascending order (a core's workloads as a lane);
	// within a group the crossing reduction orders them.
	Group []int
}

// Point is a position in the layout's coordinates (y grows downwards).
type Point struct{ X, Y float64 }

// Layout is the output: each node's top-left corner, each edge's polyline
// (from the bottom centre of its source to the top centre of its target,
// or the reverse for a reversed back edge), and the drawing's size.
type Layout struct {
	X, Y  []float64
	Layer []int
	Edges [][]Point
	// Leave is where each edge leaves its source's row (the bottom of the
	// row, or its top for a reversed edge): the place for its label, in
	// the gap between rows where no node is.
	Leave         []Point
	Width, Height float64
}

// Spacing of the layout.
const (
	GapX   = 24.0 // between neighbours in a layer
	GapY   = 48.0 // between layers
	Margin = 12.0
	dummyW = 8.0
)

// Layered lays g out.
func Layered(g Graph) *Layout {
	n := len(g.W)
	out := &Layout{X: make([]float64, n), Y: make([]float64, n), Layer: make([]int, n), Edges: make([][]Point, len(g.Edges)), Leave: make([]Point, len(g.Edges))}
	if n == 0 {
		return out
	}
	// 1. Break cycles: an edge to a node on the DFS stack is reversed.
	succ := make([][]int, n)
	for ei, e := range g.Edges {
		if e[0] >= 0 && e[0] < n && e[1] >= 0 && e[1] < n && e[0] != e[1] {
			succ[e[0]] = append(succ[e[0]], ei)
		}
	}
	reversed := make([]bool, len(g.Edges))
	state := make([]byte, n) // 0 new, 1 on stack, 2 done
	type frame struct{ v, i int }
	for s := 0; s < n; s++ {
		if state[s] != 0 {
			continue
		}
		stack := []frame{{s, 0}}
		state[s] = 1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i == len(succ[f.v]) {
				state[f.v] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			ei := succ[f.v][f.i]
			f.i++
			w := g.Edges[ei][1]
			switch state[w] {
			case 0:
				state[w] = 1
				stack = append(stack, frame{w, 0})
			case 1:
				reversed[ei] = true
			}
		}
	}
	type dedge struct{ from, to, orig int }
	var es []dedge
	for ei, e := range g.Edges {
		a, b := e[0], e[1]
		if a < 0 || a >= n || b < 0 || b >= n || a == b {
			continue
		}
		if reversed[ei] {
			a, b = b, a
		}
		es = append(es, dedge{a, b, ei})
	}
	// 2. Longest-path layering in topological order.
	indeg := make([]int, n)
	out2 := make([][]int, n)
	for _, e := range es {
		indeg[e.to]++
		out2[e.from] = append(out2[e.from], e.to)
	}
	queue := make([]int, 0, n)
	for v := 0; v < n; v++ {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	layer := out.Layer
	for qi := 0; qi < len(queue); qi++ {
		v := queue[qi]
		for _, w := range out2[v] {
			if layer[v]+1 > layer[w] {
				layer[w] = layer[v] + 1
			}
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	nl := 0
	for _, l := range layer {
		nl = max(nl, l+1)
	}
	// 3. Dummy nodes on long edges: vertices n.. are dummies.
	w := append([]float64(nil), g.W...)
	h := append([]float64(nil), g.H...)
	vlayer := append([]int(nil), layer...)
	group := make([]int, n)
	if len(g.Group) == n {
		copy(group, g.Group)
	}
	chains := make([][]int, len(g.Edges)) // vertex chain per original edge
	var up, down [][]int                  // neighbours in the layer above / below
	grow := func() int {
		w, h = append(w, dummyW), append(h, 0)
		vlayer = append(vlayer, 0)
		group = append(group, 0)
		return len(w) - 1
	}
	type seg struct{ a, b int }
	var segs []seg
	for _, e := range es {
		chain := []int{e.from}
		for l := layer[e.from] + 1; l < layer[e.to]; l++ {
			d := grow()
			vlayer[d] = l
			group[d] = group[e.to] // a long edge runs in its target's lane
			chain = append(chain, d)
		}
		chain = append(chain, e.to)
		for i := 0; i+1 < len(chain); i++ {
			segs = append(segs, seg{chain[i], chain[i+1]})
		}
		if reversed[e.orig] {
			for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
				chain[i], chain[j] = chain[j], chain[i]
			}
		}
		chains[e.orig] = chain
	}
	nv := len(w)
	up, down = make([][]int, nv), make([][]int, nv)
	for _, s := range segs {
		down[s.a] = append(down[s.a], s.b)
		up[s.b] = append(up[s.b], s.a)
	}
	layers := make([][]int, nl)
	for v := 0; v < nv; v++ {
		layers[vlayer[v]] = append(layers[vlayer[v]], v)
	}
	for _, L := range layers {
		sort.SliceStable(L, func(i, j int) bool { return group[L[i]] < group[L[j]] })
	}
	pos := make([]float64, nv) // index within its layer
	setPos := func() {
		for _, L := range layers {
			for i, v := range L {
				pos[v] = float64(i)
			}
		}
	}
	setPos()
	// 4. Barycentre sweeps (down then up), a fixed number of rounds.
	bary := func(v int, nb []int) float64 {
		if len(nb) == 0 {
			return pos[v]
		}
		s := 0.0
		for _, u := range nb {
			s += pos[u]
		}
		return s / float64(len(nb))
	}
	for round := 0; round < 8; round++ {
		for l := 1; l < nl; l++ {
			sortLayer(layers[l], group, func(v int) float64 { return bary(v, up[v]) })
			for i, v := range layers[l] {
				pos[v] = float64(i)
			}
		}
		for l := nl - 2; l >= 0; l-- {
			sortLayer(layers[l], group, func(v int) float64 { return bary(v, down[v]) })
			for i, v := range layers[l] {
				pos[v] = float64(i)
			}
		}
	}
	// 5. Coordinates: y by layer (row height = tallest node); x packed left
	// to right, then pulled towards neighbours' centres without crossing
	// the layer's order or the gap.
	rowY := make([]float64, nl)
	rowH := make([]float64, nl)
	y := Margin
	for l := 0; l < nl; l++ {
		for _, v := range layers[l] {
			rowH[l] = max(rowH[l], h[v])
		}
		rowY[l] = y
		y += rowH[l] + GapY
	}
	cx := make([]float64, nv) // centre x
	for _, L := range layers {
		x := Margin
		for _, v := range L {
			cx[v] = x + w[v]/2
			x += w[v] + GapX
		}
	}
	centre := func(v int, nb []int) (float64, bool) {
		if len(nb) == 0 {
			return 0, false
		}
		s := 0.0
		for _, u := range nb {
			s += cx[u]
		}
		return s / float64(len(nb)), true
	}
	for round := 0; round < 6; round++ {
		for l := 0; l < nl; l++ {
			L := layers[l]
			for i, v := range L {
				nb := up[v]
				if round%2 == 1 {
					nb = down[v]
				}
				want, ok := centre(v, nb)
				if !ok {
					continue
				}
				lo := math.Inf(-1)
				if i > 0 {
					p := L[i-1]
					lo = cx[p] + w[p]/2 + GapX + w[v]/2
				} else {
					lo = Margin + w[v]/2
				}
				hi := math.Inf(1)
				if i+1 < len(L) {
					q := L[i+1]
					hi = cx[q] - w[q]/2 - GapX - w[v]/2
				}
				cx[v] = math.Max(lo, math.Min(want, math.Max(hi, lo)))
			}
			// Keep the order and gaps (a right neighbour never ends up left).
			for i := 1; i < len(L); i++ {
				p, v := L[i-1], L[i]
				if min := cx[p] + w[p]/2 + GapX + w[v]/2; cx[v] < min {
					cx[v] = min
				}
			}
		}
	}
	width := 0.0
	for v := 0; v < nv; v++ {
		width = max(width, cx[v]+w[v]/2)
	}
	out.Width = width + Margin
	out.Height = y - GapY + Margin
	for v := 0; v < n; v++ {
		out.X[v] = cx[v] - w[v]/2
		out.Y[v] = rowY[layer[v]] + (rowH[layer[v]]-h[v])/2
	}
	// 6. Edge polylines: from a node's bottom straight down to its row's
	// bottom, across the gap, straight through each dummy's row, and from
	// the target row's top straight down to the node: only the crossings
	// of the gaps are slanted, and no segment enters another node's box.
	for ei, chain := range chains {
		if len(chain) < 2 {
			continue
		}
		goingDown := vlayer[chain[len(chain)-1]] > vlayer[chain[0]]
		var pts []Point
		add := func(x, y float64) {
			if k := len(pts); k > 0 && pts[k-1].X == x && pts[k-1].Y == y {
				return
			}
			pts = append(pts, Point{x, y})
		}
		for i, v := range chain {
			l := vlayer[v]
			rowTop, rowBot := rowY[l], rowY[l]+rowH[l]
			nodeTop, nodeBot := rowTop, rowBot
			if v < n {
				nodeTop, nodeBot = out.Y[v], out.Y[v]+h[v]
			}
			if !goingDown {
				rowTop, rowBot = rowBot, rowTop
				nodeTop, nodeBot = nodeBot, nodeTop
			}
			if i > 0 { // entering from the row above (below when going up)
				add(cx[v], rowTop)
				add(cx[v], nodeTop)
			}
			if i < len(chain)-1 {
				add(cx[v], nodeBot)
				add(cx[v], rowBot)
				if i == 0 {
					out.Leave[ei] = Point{cx[v], rowBot}
				}
			}
		}
		out.Edges[ei] = pts
	}
	return out
}

// sortLayer orders a layer by key, keeping the current order among equal
// keys (stable), so that the result does not depend on map order.
func sortLayer(L []int, group []int, key func(int) float64) {
	k := make(map[int]float64, len(L))
	for _, v := range L {
		k[v] = key(v)
	}
	sort.SliceStable(L, func(i, j int) bool {
		if group[L[i]] != group[L[j]] {
			return group[L[i]] < group[L[j]]
		}
		return k[L[i]] < k[L[j]]
	})
}
