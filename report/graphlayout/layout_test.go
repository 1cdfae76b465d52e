package graphlayout

import (
	"math/rand"
	"testing"
)

// checkLayout fails when two nodes overlap or an edge's polyline enters a
// node's box (other than touching its own ends' borders).
func checkLayout(t *testing.T, g Graph, l *Layout) {
	t.Helper()
	n := len(g.W)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if l.X[i] < l.X[j]+g.W[j] && l.X[j] < l.X[i]+g.W[i] && l.Y[i] < l.Y[j]+g.H[j] && l.Y[j] < l.Y[i]+g.H[i] {
				t.Fatalf("nodes %d and %d overlap", i, j)
			}
		}
		if l.X[i] < 0 || l.Y[i] < 0 || l.X[i]+g.W[i] > l.Width || l.Y[i]+g.H[i] > l.Height {
			t.Fatalf("node %d outside the drawing", i)
		}
	}
	for ei, pts := range l.Edges {
		e := g.Edges[ei]
		if e[0] == e[1] || e[0] < 0 || e[1] < 0 || e[0] >= n || e[1] >= n {
			continue // self-loops and dangling edges are not drawn
		}
		if len(pts) < 2 {
			t.Fatalf("edge %d has %d points", ei, len(pts))
		}
		for k := 0; k+1 < len(pts); k++ {
			a, b := pts[k], pts[k+1]
			for v := 0; v < n; v++ {
				// Shrink the box by a hair: touching a border is fine.
				x0, y0, x1, y1 := l.X[v]+0.01, l.Y[v]+0.01, l.X[v]+g.W[v]-0.01, l.Y[v]+g.H[v]-0.01
				if segmentHitsBox(a, b, x0, y0, x1, y1) {
					t.Fatalf("edge %d (%d->%d) segment %v-%v crosses node %d", ei, e[0], e[1], a, b, v)
				}
			}
		}
	}
}

// segmentHitsBox: Liang-Barsky clipping of a segment against a box.
func segmentHitsBox(a, b Point, x0, y0, x1, y1 float64) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := b.X-a.X, b.Y-a.Y
	for _, c := range [][2]float64{{-dx, a.X - x0}, {dx, x1 - a.X}, {-dy, a.Y - y0}, {dy, y1 - a.Y}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = max(t0, r)
		} else {
			t1 = min(t1, r)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

func TestLayeredChainAndDiamond(t *testing.T) {
	g := Graph{W: []float64{80, 60, 60, 80}, H: []float64{30, 30, 40, 30}, Edges: [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {0, 3}}}
	l := Layered(g)
	checkLayout(t, g, l)
	if l.Layer[0] != 0 || l.Layer[1] != 1 || l.Layer[2] != 1 || l.Layer[3] != 2 {
		t.Errorf("layers %v", l.Layer)
	}
	if !(l.Y[0] < l.Y[1] && l.Y[1] < l.Y[3]) {
		t.Errorf("not top to bottom: %v", l.Y)
	}
}

func TestLayeredCycleAndSelfLoop(t *testing.T) {
	g := Graph{W: []float64{50, 50, 50}, H: []float64{20, 20, 20}, Edges: [][2]int{{0, 1}, {1, 2}, {2, 0}, {1, 1}, {5, 0}}}
	l := Layered(g)
	checkLayout(t, g, l)
	if len(l.Edges[2]) < 2 {
		t.Error("the back edge is not drawn")
	}
}

func TestLayeredRandomGraphs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for it := 0; it < 60; it++ {
		n := 2 + r.Intn(120)
		g := Graph{W: make([]float64, n), H: make([]float64, n)}
		for i := range g.W {
			g.W[i], g.H[i] = 20+float64(r.Intn(120)), 16+float64(r.Intn(30))
		}
		for i := 1; i < n; i++ {
			for k := 0; k < 1+r.Intn(3); k++ {
				g.Edges = append(g.Edges, [2]int{r.Intn(i), i})
			}
		}
		if it%5 == 0 {
			g.Edges = append(g.Edges, [2]int{n - 1, 0}) // a cycle
		}
		checkLayout(t, g, Layered(g))
	}
}

// The same input gives the same picture.
func TestLayeredDeterministic(t *testing.T) {
	g := Graph{W: []float64{10, 20, 30, 40, 50}, H: []float64{10, 10, 10, 10, 10}, Edges: [][2]int{{0, 2}, {1, 2}, {0, 3}, {1, 4}, {2, 4}}}
	a, b := Layered(g), Layered(g)
	for i := range a.X {
		if a.X[i] != b.X[i] || a.Y[i] != b.Y[i] {
			t.Fatal("two layouts of one graph differ")
		}
	}
}

// BenchmarkLayered300 lays out a 300-operator detection-model-like graph
// (a backbone with skip connections and several heads).
func BenchmarkLayered300(b *testing.B) {
	r := rand.New(rand.NewSource(2))
	n := 300
	g := Graph{W: make([]float64, n), H: make([]float64, n)}
	for i := range g.W {
		g.W[i], g.H[i] = 120, 34
		if i > 0 {
			g.Edges = append(g.Edges, [2]int{i - 1 - r.Intn(min(i, 3)), i})
		}
		if i > 10 && r.Intn(6) == 0 {
			g.Edges = append(g.Edges, [2]int{i - 10, i})
		}
	}
	for b.Loop() {
		Layered(g)
	}
}

// Grouped nodes stay side by side in group order within each layer.
func TestLayeredGroupsAsLanes(t *testing.T) {
	g := Graph{W: []float64{30, 30, 30, 30, 30, 30}, H: []float64{20, 20, 20, 20, 20, 20},
		Edges: [][2]int{{0, 4}, {1, 3}, {2, 5}, {0, 5}}, Group: []int{2, 0, 1, 0, 2, 1}}
	l := Layered(g)
	checkLayout(t, g, l)
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			if l.Layer[a] == l.Layer[b] && g.Group[a] < g.Group[b] && l.X[a] > l.X[b] {
				t.Errorf("node %d (group %d) right of node %d (group %d)", a, g.Group[a], b, g.Group[b])
			}
		}
	}
}
