//go:build browser

package browsertest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var (
	reportsDir = flag.String("reports", "", "directory of .html reports to open")
	shotsDir   = flag.String("shots", "", "directory to save screenshots into")
	chromePath = flag.String("chromium", "/usr/bin/chromium", "Chromium binary")
	maxBytes   = flag.Int64("max-bytes", 5_000_000, "largest allowed report size in bytes")
)

func TestReports(t *testing.T) {
	if *reportsDir == "" {
		t.Fatal("-reports DIR is required")
	}
	files, _ := filepath.Glob(filepath.Join(*reportsDir, "*.html"))
	if len(files) == 0 {
		t.Fatalf("no reports in %s", *reportsDir)
	}
	if *shotsDir != "" {
		os.MkdirAll(*shotsDir, 0o755)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(*chromePath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { checkReport(t, bctx, f) })
	}
}

func checkReport(t *testing.T, bctx context.Context, path string) {
	abs, _ := filepath.Abs(path)
	url := "file://" + abs
	if fi, err := os.Stat(abs); err != nil {
		t.Fatal(err)
	} else if fi.Size() > *maxBytes {
		t.Errorf("report is %d bytes (limit %d)", fi.Size(), *maxBytes)
	}
	var mu sync.Mutex
	var problems []string
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", e.Type, strings.Join(parts, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, fmt.Sprintf("exception: %s", e.ExceptionDetails.Text))
		case *network.EventRequestWillBeSent:
			if e.Request.URL != url {
				problems = append(problems, "network request: "+e.Request.URL)
			}
		}
	}))
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// Rendered: the layout of the whole page is computed. The checks below
	// measure every chart's texts and are not part of the time a user waits.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.body.getBoundingClientRect().height + document.documentElement.scrollWidth`)); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	elapsed := time.Since(start)
	check, err := chromedp.Run(ctx, chromedp.Evaluate[checkResult](checkScript))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if *shotsDir != "" {
		if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(80)); err != nil {
			t.Errorf("screenshot: %v", err)
		} else {
			name := strings.TrimSuffix(filepath.Base(path), ".html") + ".jpg"
			os.WriteFile(filepath.Join(*shotsDir, name), shot, 0o644)
		}
	}
	checkGraphAgainstInspect(t, ctx, path)
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	for _, m := range check.Missing {
		t.Errorf("announced section %q missing or not rendered", m)
	}
	for _, b := range check.Bad {
		t.Errorf("chart problem: %s", b)
	}
	if len(check.Sections) == 0 {
		t.Error("page has no sections")
	}
	// Render times are logged, not asserted (issue 32); a page that hangs
	// the browser fails the 60 s context above.
	t.Logf("%s: %d sections, %d charts, rendered in %v", filepath.Base(path), len(check.Sections), check.Charts, elapsed.Round(time.Millisecond))
}

type checkResult struct {
	Sections []string `json:"sections"`
	Missing  []string `json:"missing"`
	Charts   int      `json:"charts"`
	Bad      []string `json:"bad"`
	Height   float64  `json:"height"`
}

// checkScript runs in the page: every section the page announces (meta
// npukit-sections) exists with a visible box; every chart has marks, axis
// titles with text, and a non-empty bounding box. Layout: the page is no
// wider than the window (the worst overflowing elements are named); no
// text of a chart leaves the chart's box or overlaps another of its texts
// (rotated labels compared by their rotated outlines); every axis's ticks
// share one unit and the axis title names that unit, not another.
const checkScript = `(() => {
  const out = {sections: [], missing: [], charts: 0, bad: [], height: document.body.scrollHeight};
  const meta = document.querySelector('meta[name="npukit-sections"]');
  const want = meta && meta.content ? meta.content.split(',') : [];
  document.querySelectorAll('section').forEach(s => out.sections.push(s.id));
  for (const id of want) {
    const el = document.getElementById(id);
    if (!el || el.getBoundingClientRect().height < 10) out.missing.push(id);
  }
  const short = s => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > 60 ? s.slice(0, 57) + '...' : s; };
  const px = v => Math.round(v);
  // Page width: the document must not scroll sideways.
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1) {
    // The culprits: text (or an element without children, e.g. a chart)
    // reaching past the window, not inside a box that scrolls or clips it.
    const offenders = [];
    const clipped = el => {
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= vw + 1) return true;
      }
      return false;
    };
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let n = walk.nextNode(); n && offenders.length < 4; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || n.textContent.trim() === '' || el.closest('svg, script, style')) continue;
      range.selectNodeContents(n);
      if (range.getBoundingClientRect().right > vw + 1 && !clipped(el.parentElement) && !offenders.includes(el)) offenders.push(el);
    }
    for (const el of document.body.querySelectorAll('svg, img, canvas')) {
      if (offenders.length < 4 && el.getBoundingClientRect().right > vw + 1 && !clipped(el.parentElement)) offenders.push(el);
    }
    const where = el => (el.closest('section') || {}).id + ' ' + el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '');
    out.bad.push('page is ' + document.documentElement.scrollWidth + ' px wide in a ' + vw + ' px window; overflowing: ' +
      offenders.map(el => where(el) + ' "' + short(el.textContent) + '"').join('; '));
  }
  // Corners of a text's outline in page coordinates (rotation included).
  const quad = t => {
    const b = t.getBBox(), m = t.getScreenCTM();
    if (!m || b.width === 0) return null;
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  // Separating axis test for two convex quads, shrunk by 1 px of slack.
  const overlap = (p, q) => {
    for (const poly of [p, q]) {
      for (let i = 0; i < 4; i++) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
        const nx = y1 - y2, ny = x2 - x1, len = Math.hypot(nx, ny) || 1;
        const proj = pts => pts.map(([x, y]) => (x * nx + y * ny) / len);
        const a = proj(p), b = proj(q);
        if (Math.max(...a) - 1 <= Math.min(...b) || Math.max(...b) - 1 <= Math.min(...a)) return false;
      }
    }
    return true;
  };
  // Units: a tick reads NUMBER[k|M|G] [UNIT]; an axis title names its unit
  // in parentheses at its end, or is a unit word itself.
  const unitWords = {b: 'B', byte: 'B', bytes: 'B', kib: 'KiB', mib: 'MiB', gib: 'GiB', tib: 'TiB', kb: 'KB', mb: 'MB', gb: 'GB',
    ns: 'ns', us: 'us', 'µs': 'us', ms: 'ms', s: 's', cyc: 'cycles', cycle: 'cycles', cycles: 'cycles'};
  const tickUnit = s => {
    const m = /^[-+]?[0-9][0-9.,]*\s*([kMG](?![a-zA-Z]))?\s*(\S*)$/.exec(s.trim());
    if (!m) return {bad: true};
    if (m[2] === '') return {unit: ''};
    const u = unitWords[m[2].toLowerCase()];
    return u ? {unit: u} : {bad: true};
  };
  const titleUnit = s => {
    s = s.trim();
    const m = /\(([^()]*)\)$/.exec(s);
    if (m && unitWords[m[1].toLowerCase()]) return unitWords[m[1].toLowerCase()];
    return unitWords[s.toLowerCase()] || '';
  };
  // Tables: a table with a header and no row says nothing (issue 32: an
  // Edge TPU section showed two header-only tables).
  // A time past 1,000 us reads in ms in running text (issue 32: a report
  // said "51984.3 us"); tables keep their column's unit.
  {
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let found = 0;
    for (let n = walk.nextNode(); n && found < 3; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('svg, table, script, style, code, pre')) continue;
      const m = /(^|[^0-9.,])([0-9]{4,}(\.[0-9]+)?|[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?) ?us\b/.exec(n.textContent);
      if (m) { found++; out.bad.push((el.closest('section') || {}).id + ': "' + short(n.textContent) + '" gives ' + m[2] + ' us (past 1,000 us a time reads in ms)'); }
    }
  }
  // An empty row, or blank space under the last row inside the table's
  // frame, reads as an empty last row (issue 32: every table seemed to end
  // with one, the table's bottom margin inside its bordered box).
  document.querySelectorAll('table').forEach((tb, i) => {
    const where = (tb.closest('section') || {}).id + ' table ' + i + ' "' + short((tb.querySelector('caption') || tb.querySelector('tr') || tb).textContent) + '"';
    if (tb.closest('.gdetail')) return; // filled in on a click
    if (tb.querySelectorAll('th').length > 0 && tb.querySelectorAll('td').length === 0) {
      out.bad.push(where + ': a header and no row');
    }
    const rows = [...tb.rows].filter(r => r.querySelector('td'));
    rows.forEach((r, k) => {
      if ([...r.cells].every(c => c.textContent.trim() === '' && !c.querySelector('svg, img'))) out.bad.push(where + ': row ' + (k + 1) + ' of ' + rows.length + ' is empty');
    });
    const wrap = tb.parentElement;
    if (rows.length > 0 && wrap && wrap.classList.contains('table-wrap') && wrap.scrollHeight <= wrap.clientHeight + 1) {
      const wb = wrap.getBoundingClientRect();
      const inner = wb.top + wrap.clientTop + wrap.clientHeight;
      const gap = inner - rows[rows.length - 1].getBoundingClientRect().bottom;
      if (gap > 3) out.bad.push(where + ': ' + px(gap) + ' px of blank space under the last row inside the table\'s frame (reads as an empty row)');
    }
  });
  document.querySelectorAll('svg.chart').forEach((svg, i) => {
    out.charts++;
    const where = (svg.closest('section') || {}).id + ' chart ' + i;
    const box = svg.getBoundingClientRect();
    if (box.width < 100 || box.height < 40) out.bad.push(where + ': too small ' + box.width + 'x' + box.height);
    if (svg.querySelectorAll('rect.mark').length === 0) out.bad.push(where + ': no marks');
    const titles = [...svg.querySelectorAll('.axis-title')].filter(t => t.textContent.trim() !== '');
    if (titles.length === 0) out.bad.push(where + ': no labelled axis');
    const fig = svg.closest('figure');
    if (svg.querySelectorAll('rect.mark').length > 0 && fig && !fig.querySelector('.legend') && !svg.classList.contains('no-legend')) out.bad.push(where + ': no legend');
    // No text leaves the chart; a label drawn on a mark stays inside
    // that mark's box (issue 32: rotated labels cut, labels outside their
    // rectangle).
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
    for (const t of svg.querySelectorAll('text.area-label')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
      // A label names the mark under its centre, or the area of marks of
      // that mark's colour it is centred on (a tile drawn as many cells):
      // each corner of the label lies on a mark of that colour.
      const marks = [...svg.querySelectorAll('rect.mark')].map(m => ({b: m.getBoundingClientRect(), fill: m.getAttribute('fill')}));
      const on = (x, y, fill) => marks.some(m => (fill === null || m.fill === fill) && x >= m.b.left - 1 && x <= m.b.right + 1 && y >= m.b.top - 1 && y <= m.b.bottom + 1);
      const under = marks.find(m => cx >= m.b.left - 1 && cx <= m.b.right + 1 && cy >= m.b.top - 1 && cy <= m.b.bottom + 1);
      const inside = !!under && [[r.left + 1, r.top + 1], [r.right - 1, r.top + 1], [r.left + 1, r.bottom - 1], [r.right - 1, r.bottom - 1]].every(([x, y]) => on(x, y, under.fill));
      if (!inside) out.bad.push(where + ': label "' + short(t.textContent) + '" lies outside every mark it could name');
    }
    for (const t of texts) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      const d = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom);
      if (d > 1) out.bad.push(where + ': text "' + short(t.textContent) + '" is cut: it reaches ' + px(d) + ' px outside the chart');
    }
    // A label shortened to fit (its full text on hover) is still a name:
    // a short name is never cut (issue 32: "sg00/Pool.json qPoolIO0" read
    // "sg00/Pool.…n qPoolIO0" under a column), and two labels of one chart
    // never shorten to the same text.
    const shownAs = new Map();
    for (const t of texts) {
      const full = t.getAttribute('data-tip');
      if (full === null || t.classList.contains('mark')) continue;
      const shown = t.textContent;
      if (shown === full) continue;
      if ([...full].length <= 32) out.bad.push(where + ': label "' + full + '" (' + [...full].length + ' characters) is cut to "' + shown + '"');
      if (shownAs.has(shown) && shownAs.get(shown) !== full) out.bad.push(where + ': labels "' + short(shownAs.get(shown)) + '" and "' + short(full) + '" both read "' + shown + '"');
      shownAs.set(shown, full);
    }
    // No two texts overlap.
    const qs = texts.map(t => [t, quad(t)]).filter(x => x[1]);
    let overlaps = 0;
    for (let a = 0; a < qs.length && overlaps < 3; a++) {
      for (let b = a + 1; b < qs.length && overlaps < 3; b++) {
        if (overlap(qs[a][1], qs[b][1])) {
          overlaps++;
          out.bad.push(where + ': texts "' + short(qs[a][0].textContent) + '" and "' + short(qs[b][0].textContent) + '" overlap');
        }
      }
    }
    // Every axis: one unit across its ticks, and the title names it.
    const axes = new Set([...svg.querySelectorAll('[data-axis]')].map(e => e.getAttribute('data-axis')));
    if (svg.querySelector('.axis-title:not([data-axis])')) out.bad.push(where + ': axis title without data-axis');
    for (const ax of axes) {
      const ticks = [...svg.querySelectorAll('text.tick[data-axis="' + ax + '"]')].map(t => t.textContent);
      const title = svg.querySelector('.axis-title[data-axis="' + ax + '"]');
      const tu = title ? titleUnit(title.textContent) : '';
      const units = new Set();
      // An axis of counts (data-integral: every value drawn on it is a
      // whole number) has whole-number ticks (issue 32: a one-row chart of
      // runs read 0.2, 0.4, ...).
      const integral = svg.querySelector('[data-axis="' + ax + '"][data-integral]') !== null;
      const signed = svg.querySelector('[data-axis="' + ax + '"][data-signed]') !== null;
      for (const tk of ticks) {
        // Times, sizes and counts start at 0 (issue 32: a time axis read
        // "-0"): a negative tick is a layout bug unless the axis says it
        // carries signed values (data-signed); "-0" is one anywhere.
        if (/^[-−]\s*0([.,]0*)?(\s|$)/.test(tk.trim()) || !signed && /^[-−]/.test(tk.trim())) out.bad.push(where + ': ' + ax + ' tick "' + tk + '" is negative');
        if (integral && /^[-+]?[0-9,]*\.[0-9]+$/.test(tk.trim())) out.bad.push(where + ': ' + ax + ' axis counts whole things but has tick "' + tk + '"');
        const u = tickUnit(tk);
        if (u.bad) { out.bad.push(where + ': ' + ax + ' tick "' + tk + '" is not NUMBER [UNIT]'); continue; }
        if (u.unit !== '' || !/^[-+]?0([.,]0*)?$/.test(tk.trim())) units.add(u.unit);
      }
      if (units.size > 1) out.bad.push(where + ': ' + ax + ' ticks mix units: ' + [...units].join(', ') + ' (' + ticks.join(' | ') + ')');
      const u = [...units][0] || '';
      if (tu !== '' && u !== '' && tu !== u) out.bad.push(where + ': ' + ax + ' axis titled "' + title.textContent + '" over ticks in ' + u);
    }
    // A caption naming a unit in parentheses names one of the axes' units.
    const cap = fig && fig.querySelector('figcaption');
    const cm = cap && /\(([A-Za-zµ]+)\)/.exec(cap.textContent);
    if (cm && unitWords[cm[1].toLowerCase()]) {
      const axisUnits = [...svg.querySelectorAll('.axis-title')].map(t => titleUnit(t.textContent));
      if (!axisUnits.includes(unitWords[cm[1].toLowerCase()])) out.bad.push(where + ': caption "' + short(cap.textContent) + '" names ' + cm[1] + ', the axes are in ' + axisUnits.filter(u => u).join(', '));
    }
  });
  // Graph views: nodes do not overlap, no edge is drawn through a node
  // other than its own two ends, and every node's box is inside the
  // drawing (in the SVG's user units, as laid out).
  document.querySelectorAll('svg.gsvg').forEach((svg, gi) => {
    const where = (svg.closest('section') || {}).id + ' graph ' + gi;
    const boxes = [...svg.querySelectorAll('g.gnode')].map(g => {
      const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute('transform') || '');
      const r = g.querySelector('rect');
      const x = m ? +m[1] : 0, y = m ? +m[2] : 0;
      return {x0: x, y0: y, x1: x + (+r.getAttribute('width')), y1: y + (+r.getAttribute('height')), name: g.getAttribute('data-name')};
    });
    if (boxes.length === 0) { out.bad.push(where + ': a graph without nodes'); return; }
    const W = +svg.getAttribute('data-w'), H = +svg.getAttribute('data-h');
    let problems = 0;
    const report = msg => { if (problems++ < 3) out.bad.push(where + ': ' + msg); };
    boxes.forEach((b, i) => {
      if (b.x0 < 0 || b.y0 < 0 || b.x1 > W + 0.5 || b.y1 > H + 0.5) report('node "' + b.name + '" outside the drawing');
    });
    const sorted = boxes.map((b, i) => i).sort((a, c) => boxes[a].x0 - boxes[c].x0);
    for (let a = 0; a < sorted.length; a++) {
      const p = boxes[sorted[a]];
      for (let c = a + 1; c < sorted.length && boxes[sorted[c]].x0 < p.x1; c++) {
        const q = boxes[sorted[c]];
        if (p.y0 < q.y1 && q.y0 < p.y1) report('nodes "' + p.name + '" and "' + q.name + '" overlap');
      }
    }
    // Liang-Barsky: does segment (ax,ay)-(bx,by) enter box b (shrunk by the 0.1-unit rounding of the drawing)?
    const hits = (ax, ay, bx, by, b) => {
      let t0 = 0, t1 = 1; const dx = bx - ax, dy = by - ay;
      const x0 = b.x0 + 0.2, y0 = b.y0 + 0.2, x1 = b.x1 - 0.2, y1 = b.y1 - 0.2;
      for (const [pp, qq] of [[-dx, ax - x0], [dx, x1 - ax], [-dy, ay - y0], [dy, y1 - ay]]) {
        if (pp === 0) { if (qq < 0) return false; continue; }
        const r = qq / pp;
        if (pp < 0) t0 = Math.max(t0, r); else t1 = Math.min(t1, r);
        if (t0 > t1) return false;
      }
      return true;
    };
    // Bucket the boxes by rows of 64 units so each segment tests few boxes.
    const rows = new Map();
    boxes.forEach((b, i) => { for (let r = Math.floor(b.y0 / 64); r <= Math.floor(b.y1 / 64); r++) { if (!rows.has(r)) rows.set(r, []); rows.get(r).push(i); } });
    svg.querySelectorAll('path.gedge').forEach(e => {
      const pts = (e.getAttribute('d').match(/[-\d.]+,[-\d.]+/g) || []).map(s => s.split(',').map(Number));
      for (let k = 0; k + 1 < pts.length; k++) {
        const [ax, ay] = pts[k], [bx, by] = pts[k + 1];
        const seen = new Set();
        for (let r = Math.floor(Math.min(ay, by) / 64); r <= Math.floor(Math.max(ay, by) / 64); r++) {
          for (const i of rows.get(r) || []) {
            if (seen.has(i)) continue; seen.add(i);
            if (hits(ax, ay, bx, by, boxes[i])) report('an edge ' + e.getAttribute('data-from') + '->' + e.getAttribute('data-to') + ' crosses node "' + boxes[i].name + '"');
          }
        }
      }
    });
    out.charts++;
  });
  return out;
})()`

// graphNode is what the page draws of one graph node.
type graphNode struct {
	Subgraph string `json:"subgraph"` // the figure's data-subgraph
	Op       string `json:"op"`       // data-op-index
	Workload string `json:"workload"` // data-workload-index
	Count    string `json:"count"`    // data-workload-count
	Call     string `json:"call"`     // data-call-index
	Series   string `json:"series"`   // data-series
	Fill     string `json:"fill"`
}

const graphNodesScript = `[...document.querySelectorAll('figure[data-graph] g.gnode')].map(g => ({
  subgraph: g.closest('figure').getAttribute('data-subgraph') || '',
  op: g.getAttribute('data-op-index') || '', workload: g.getAttribute('data-workload-index') || '',
  count: g.getAttribute('data-workload-count') || '', call: g.getAttribute('data-call-index') || '', series: g.getAttribute('data-series') || '',
  fill: (g.querySelector('rect') || {getAttribute: () => ''}).getAttribute('fill') || ''}))`

// checkGraphAgainstInspect matches the page's graph with what `inspect
// --json` (and `edgetpu plan --json` for an uncompiled model) said of the
// same file, when the browser-test script saved them beside the report:
// one node per operator, placed (coloured) where the file or the plan
// runs it; one node per workload, or groups whose counts add up.
func checkGraphAgainstInspect(t *testing.T, ctx context.Context, report string) {
	data, err := os.ReadFile(report + ".inspect.json")
	if err != nil {
		return
	}
	var entries []struct {
		Result struct {
			Operators []struct {
				Subgraph int    `json:"subgraph"`
				Index    int    `json:"index"`
				RunsOn   string `json:"runs_on"`
			} `json:"operators"`
			Cores []struct {
				Workloads int `json:"workloads"`
			} `json:"cores"`
			Variant string `json:"variant"`
		} `json:"result"`
	}
	nodes, err := chromedp.Run(ctx, chromedp.Evaluate[[]graphNode](graphNodesScript))
	if err != nil {
		t.Errorf("graph nodes: %v", err)
		return
	}
	// An NKI kernel: nki inspect's document lists the engine calls.
	var kernel struct {
		Calls []json.RawMessage `json:"calls"`
	}
	if json.Unmarshal(data, &kernel) == nil && kernel.Calls != nil {
		seen := map[string]bool{}
		for _, n := range nodes {
			if n.Call != "" {
				seen[n.Call] = true
			}
		}
		if len(seen) != len(kernel.Calls) {
			t.Errorf("graph: %d engine-call nodes, nki inspect lists %d calls", len(seen), len(kernel.Calls))
		}
		return
	}
	if json.Unmarshal(data, &entries) != nil || len(entries) != 1 {
		return
	}
	r := entries[0].Result
	// A series has one colour wherever it is used.
	fill := map[string]string{}
	for _, n := range nodes {
		if f, ok := fill[n.Series]; ok && f != n.Fill {
			t.Errorf("graph: series %q drawn in %s and %s", n.Series, f, n.Fill)
		}
		fill[n.Series] = n.Fill
	}
	if len(r.Operators) > 0 {
		onTPU := map[string]bool{}
		for _, o := range r.Operators {
			onTPU[fmt.Sprintf("%d/%d", o.Subgraph, o.Index)] = o.RunsOn == "Edge TPU"
		}
		if plan, err := os.ReadFile(report + ".plan.json"); err == nil {
			var p struct {
				Operators []struct {
					Subgraph  int    `json:"subgraph"`
					Index     int    `json:"index"`
					Placement string `json:"placement"`
				} `json:"operators"`
			}
			if json.Unmarshal(plan, &p) == nil {
				for _, o := range p.Operators {
					onTPU[fmt.Sprintf("%d/%d", o.Subgraph, o.Index)] = o.Placement == "TPU"
				}
			}
		}
		drawn := map[string]bool{}
		for _, n := range nodes {
			if n.Op == "" {
				continue
			}
			k := n.Subgraph + "/" + n.Op
			if drawn[k] {
				t.Errorf("graph: operator %s drawn twice", k)
			}
			drawn[k] = true
			if tpu, ok := onTPU[k]; !ok {
				t.Errorf("graph: operator %s that inspect does not list", k)
			} else if tpu != (n.Series == "Edge TPU") {
				t.Errorf("graph: operator %s drawn as %q; inspect/plan put it on the Edge TPU: %v", k, n.Series, tpu)
			}
		}
		if len(drawn) != len(onTPU) {
			t.Errorf("graph: %d operator nodes, inspect lists %d operators", len(drawn), len(onTPU))
		}
	}
	if len(r.Cores) > 0 && r.Variant != "" {
		total := 0
		for _, c := range r.Cores {
			total += c.Workloads
		}
		single, grouped := 0, 0
		for _, n := range nodes {
			if n.Workload != "" {
				single++
			}
			if n.Count != "" {
				var k int
				fmt.Sscan(n.Count, &k)
				grouped += k
			}
		}
		if single+grouped != total {
			t.Errorf("graph: %d workload nodes and groups of %d, inspect counts %d workloads", single, grouped, total)
		}
	}
}
