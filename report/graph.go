package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report/graphlayout"
)

// GraphNode is one box of a graph view.
type GraphNode struct {
	Label string // first line (an operator's type, a workload's name)
	Sub   string // second line, smaller (its outputs, a core)
	// Series indexes Graph.Series: the node's colour (where it runs).
	Series int
	// Key and Index are the node's stable attribute, data-KEY="INDEX"
	// (data-op-index="12"), by which tests match the picture to inspect.
	Key   string
	Index int
	// Detail is what a click (or Enter on the focused node) shows.
	Detail []KV
	// Lane keeps the nodes of one lane side by side (a core's workloads).
	Lane int
}

// GraphEdge joins two nodes (indexes into Graph.Nodes).
type GraphEdge struct {
	From, To int
	Label    string // the tensor it carries: "1x112x112x32 uint8"
	// Order marks an edge of execution order rather than data (a core's
	// next workload): drawn dashed and light.
	Order bool
}

// Graph is a node-link view laid out top to bottom in layers (see
// graphlayout): click a node for its details, search by name, zoom with
// the wheel or the buttons, drag to pan.
type Graph struct {
	Caption string
	Series  []Series
	Nodes   []GraphNode
	Edges   []GraphEdge
	// Note says what the picture leaves out (a collapsed view).
	Note string
	// Attr, when set, is written on the graph as data-NAME="VALUE" (a
	// TFLite subgraph's index), so that tests can tell graphs apart.
	Attr [2]string
}

const (
	graphFont     = 12.0
	graphSubFont  = 10.0
	graphNodeMinW = 56.0
	graphNodeMaxW = 240.0
	graphNodeH1   = 26.0 // one line
	graphNodeH2   = 40.0 // two lines
	// Edge labels are drawn on graphs up to this many edges; past it they
	// stay in the tooltips and the details, readable.
	graphMaxEdgeLabels = 400
	// The view's height in px, and the width to height ratio it opens at
	// (a page column is about that wide).
	graphViewH      = 640.0
	graphViewAspect = 1.6
	graphViewMaxW   = 1150.0 // about a page column: wider graphs open at natural size too
)

func (g *Graph) html() (template.HTML, error) {
	if len(g.Nodes) == 0 {
		return "", fmt.Errorf("graph %q has no nodes", g.Caption)
	}
	in := graphlayout.Graph{W: make([]float64, len(g.Nodes)), H: make([]float64, len(g.Nodes)), Group: make([]int, len(g.Nodes))}
	for i, n := range g.Nodes {
		in.Group[i] = n.Lane
		w := max(textWidth(n.Label, graphFont), textWidth(n.Sub, graphSubFont)) + 16
		in.W[i] = min(graphNodeMaxW, max(graphNodeMinW, w))
		in.H[i] = graphNodeH1
		if n.Sub != "" {
			in.H[i] = graphNodeH2
		}
	}
	for _, e := range g.Edges {
		in.Edges = append(in.Edges, [2]int{e.From, e.To})
	}
	l := graphlayout.Layered(in)
	var b strings.Builder
	if g.Attr[0] != "" {
		fmt.Fprintf(&b, `<figure class="graph" data-graph data-%s="%s">`, esc(g.Attr[0]), esc(g.Attr[1]))
	} else {
		b.WriteString(`<figure class="graph" data-graph>`)
	}
	if g.Caption != "" {
		fmt.Fprintf(&b, `<figcaption>%s</figcaption>`, esc(g.Caption))
	}
	fmt.Fprintf(&b, `<div class="gtools"><input type="search" class="gsearch" placeholder="Find a node by name" aria-label="Find a node by name">`+
		`<button type="button" data-gzoom="in" aria-label="Zoom in">+</button><button type="button" data-gzoom="out" aria-label="Zoom out">&#8722;</button>`+
		`<button type="button" data-gzoom="fit">Fit</button><span class="gcount">%s, %s</span></div>`,
		esc(humanize.Plural(len(g.Nodes), "node")), esc(humanize.Plural(len(g.Edges), "edge")))
	b.WriteString(legend(g.Series))
	if g.Note != "" {
		fmt.Fprintf(&b, `<p class="note">%s</p>`, esc(g.Note))
	}
	// The view opens on the top of the graph at about its natural size (a
	// 300-operator model fitted whole would be unreadable); Fit shows all.
	h := max(l.Height, 60)
	viewH := min(h, graphViewH)
	viewW := min(max(l.Width, viewH*graphViewAspect), max(graphViewMaxW, viewH*graphViewAspect))
	fmt.Fprintf(&b, `<div class="gview"><svg class="gsvg" viewBox="0 0 %s %s" data-w="%s" data-h="%s" style="height:%spx" role="img" aria-label="%s">`,
		f1(viewW), f1(viewH), f1(l.Width), f1(h), f1(viewH), esc(g.Caption))
	b.WriteString(`<defs><marker id="garrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L8,4L0,8z" fill="#8a8f98"/></marker></defs>`)
	b.WriteString(`<g class="gedges">`)
	labels := len(g.Edges) <= graphMaxEdgeLabels
	for ei, e := range g.Edges {
		pts := l.Edges[ei]
		if len(pts) < 2 {
			continue
		}
		var d strings.Builder
		for k, p := range pts {
			if k == 0 {
				fmt.Fprintf(&d, "M%s,%s", f1(p.X), f1(p.Y))
			} else {
				fmt.Fprintf(&d, "L%s,%s", f1(p.X), f1(p.Y))
			}
		}
		tip := ""
		if e.Label != "" {
			tip = fmt.Sprintf(` data-tip="%s"`, esc(g.Nodes[e.From].Label+" → "+g.Nodes[e.To].Label+": "+e.Label))
		}
		cls := "gedge"
		if e.Order {
			cls = "gedge gorder"
		}
		fmt.Fprintf(&b, `<path class="%s" d="%s" marker-end="url(#garrow)" data-from="%d" data-to="%d"%s/>`, cls, d.String(), e.From, e.To, tip)
		if labels && e.Label != "" {
			// In the gap below the source's row (where no node is), beside
			// the edge: the end of its first, vertical, drop.
			p := l.Leave[ei]
			fmt.Fprintf(&b, `<text class="glabel" x="%s" y="%s">%s</text>`, f1(p.X+4), f1(p.Y+12), esc(fitText(e.Label, 9, 150)))
		}
	}
	b.WriteString(`</g>`)
	for i, n := range g.Nodes {
		x, y, w, hh := l.X[i], l.Y[i], in.W[i], in.H[i]
		detail, err := json.Marshal(n.Detail)
		if err != nil {
			return "", err
		}
		attr := ""
		if n.Key != "" {
			attr = fmt.Sprintf(` data-%s="%d"`, esc(n.Key), n.Index)
		}
		series := ""
		if n.Series >= 0 && n.Series < len(g.Series) {
			series = g.Series[n.Series].Name
		}
		fmt.Fprintf(&b, `<g class="gnode" tabindex="0"%s data-series="%s" data-name="%s" data-detail="%s" transform="translate(%s,%s)">`,
			attr, esc(series), esc(n.Label+" "+n.Sub), esc(string(detail)), f1(x), f1(y))
		fmt.Fprintf(&b, `<rect width="%s" height="%s" rx="4" fill="%s"/>`, f1(w), f1(hh), seriesColor(g.Series, n.Series))
		fmt.Fprintf(&b, `<text x="%s" y="17" class="gname">%s</text>`, f1(w/2), esc(fitText(n.Label, graphFont, w-10)))
		if n.Sub != "" {
			fmt.Fprintf(&b, `<text x="%s" y="32" class="gsub">%s</text>`, f1(w/2), esc(fitText(n.Sub, graphSubFont, w-10)))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg></div><div class="gdetail" aria-live="polite">Select a node (click it, or Tab to it and press Enter) to see what npukit knows about it.</div></figure>`)
	return template.HTML(b.String()), nil
}
