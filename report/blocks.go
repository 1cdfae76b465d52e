package report

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"unicode"
)

// Table is a data table. Columns whose header is listed in Numeric are
// right-aligned. Long tables are cut at MaxRows (0 = 2000) with a note.
type Table struct {
	Caption string
	Header  []string
	Numeric []int // indices of right-aligned columns
	Rows    [][]string
	MaxRows int
	// RowIDs optionally gives each row an anchor (same length as Rows).
	RowIDs []string
}

func (t *Table) html() (template.HTML, error) {
	num := map[int]bool{}
	for _, i := range t.Numeric {
		num[i] = true
	}
	max := t.MaxRows
	if max == 0 {
		max = 2000
	}
	var b strings.Builder
	if t.Caption != "" {
		fmt.Fprintf(&b, "<h3>%s</h3>", esc(t.Caption))
	}
	if len(t.Rows) == 0 {
		// A header over no row says nothing (issue 32: a plain TFLite
		// model's Edge TPU section showed two such tables).
		b.WriteString(`<p class="table-note">None.</p>`)
		return template.HTML(b.String()), nil
	}
	b.WriteString(`<div class="table-wrap"><table><thead><tr>`)
	for i, h := range t.Header {
		fmt.Fprintf(&b, `<th%s>%s</th>`, cls(num[i], "num"), esc(h))
	}
	b.WriteString(`</tr></thead><tbody>`)
	for r, row := range t.Rows {
		if r == max {
			break
		}
		if r < len(t.RowIDs) && t.RowIDs[r] != "" {
			fmt.Fprintf(&b, `<tr id="%s">`, esc(t.RowIDs[r]))
		} else {
			b.WriteString("<tr>")
		}
		for i, c := range row {
			if num[i] {
				fmt.Fprintf(&b, `<td class="num">%s</td>`, esc(c))
				continue
			}
			fmt.Fprintf(&b, `<td>%s</td>`, breakable(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table></div>")
	if len(t.Rows) > max {
		fmt.Fprintf(&b, `<p class="table-note">Showing %d of %d rows; the rest are in npukit inspect --json.</p>`, max, len(t.Rows))
	}
	return template.HTML(b.String()), nil
}

// breakable escapes a cell's text and, when it is long, lets it wrap
// after the separators of fused layer names and paths (; / , _ .):
// a 300-character layer name must not make the page scroll sideways, and
// short cells (types, numbers, tokens) never break.
//
// A number never breaks: not at its decimal point or thousands separator
// ("3.4", "1,234"), not before its unit ("3.4 MiB", keepUnits), not
// inside a unit ("GB/s").
func breakable(s string) string {
	const long = 24
	s = keepUnits(s)
	rs := []rune(s)
	if len(rs) <= long {
		return esc(s)
	}
	var b strings.Builder
	for i, r := range rs {
		b.WriteString(esc(string(r)))
		if strings.ContainsRune(";/,_.", r) && !inNumberOrUnit(rs, i) {
			b.WriteString("<wbr>")
		}
	}
	return b.String()
}

// inNumberOrUnit reports whether rs[i], a separator, is inside a number
// (a digit on both sides: "3.4", "1,234") or a unit's slash ("GB/s",
// "MAC/s": a lone "s" after it).
func inNumberOrUnit(rs []rune, i int) bool {
	digit := func(k int) bool { return k >= 0 && k < len(rs) && unicode.IsDigit(rs[k]) }
	if (rs[i] == '.' || rs[i] == ',') && digit(i-1) && digit(i+1) {
		return true
	}
	letter := func(k int) bool {
		return k < len(rs) && (unicode.IsLetter(rs[k]) || unicode.IsDigit(rs[k]) || rs[k] == '_')
	}
	return rs[i] == '/' && i+1 < len(rs) && rs[i+1] == 's' && !letter(i+2)
}

// keepUnits joins a number to its unit with a no-break space ("3.4 MiB",
// "12 us", "0.47 GB/s", "50 %"), so that a wrapped line never separates a
// quantity from its unit. Other words after a number ("3 files") may
// wrap as usual.
func keepUnits(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	return unitSpace.ReplaceAllString(s, "$1\u00a0$2")
}

// unitSpace matches a digit, a space and a unit npukit prints.
var unitSpace = regexp.MustCompile(`(\d) ((?:B|KiB|MiB|GiB|TiB|KB|MB|GB|ns|us|µs|ms|s|GB/s|MB/s|GMAC/s|MACs?|%|x)(?:[^\p{L}\p{N}_/]|$))`)

func cls(on bool, name string) string {
	if on {
		return ` class="` + name + `"`
	}
	return ""
}

// KeyValues is a two-column list of facts.
type KeyValues struct {
	Caption string
	Items   []KV
}

func (k *KeyValues) html() (template.HTML, error) {
	var b strings.Builder
	if k.Caption != "" {
		fmt.Fprintf(&b, "<h3>%s</h3>", esc(k.Caption))
	}
	b.WriteString(`<dl class="kv">`)
	for _, it := range k.Items {
		fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", esc(it.Key), esc(it.Value))
	}
	b.WriteString("</dl>")
	return template.HTML(b.String()), nil
}

// Text is a paragraph of plain text.
type Text struct {
	Text  string
	Muted bool
}

func (t *Text) html() (template.HTML, error) {
	return template.HTML(fmt.Sprintf("<p%s>%s</p>", cls(t.Muted, "muted"), esc(t.Text))), nil
}

// Tree is a nested, collapsible list (e.g. a container's members).
type Tree struct {
	Caption string
	Root    []TreeNode
}

// TreeNode is one entry of a Tree.
type TreeNode struct {
	Label    string
	Detail   string // shown muted after the label
	Children []TreeNode
}

func (t *Tree) html() (template.HTML, error) {
	var b strings.Builder
	if t.Caption != "" {
		fmt.Fprintf(&b, "<h3>%s</h3>", esc(t.Caption))
	}
	b.WriteString(`<ul class="tree">`)
	var walk func(ns []TreeNode, depth int)
	walk = func(ns []TreeNode, depth int) {
		for _, n := range ns {
			detail := ""
			if n.Detail != "" {
				detail = ` <span class="muted">` + esc(n.Detail) + `</span>`
			}
			if len(n.Children) == 0 {
				fmt.Fprintf(&b, "<li>%s%s</li>", esc(n.Label), detail)
				continue
			}
			fmt.Fprintf(&b, "<li><details%s><summary>%s%s</summary><ul>", openAttr(depth < 1), esc(n.Label), detail)
			walk(n.Children, depth+1)
			b.WriteString("</ul></details></li>")
		}
	}
	walk(t.Root, 0)
	b.WriteString("</ul>")
	return template.HTML(b.String()), nil
}

// Row shows blocks side by side (wrapping to the next line when the page
// is too narrow), such as the graphs of a pipeline's segments.
type Row struct {
	Blocks []Block
}

func (r *Row) html() (template.HTML, error) {
	var b strings.Builder
	b.WriteString(`<div class="brow">`)
	for _, c := range r.Blocks {
		h, err := c.html()
		if err != nil {
			return "", err
		}
		b.WriteString(`<div class="bcell">`)
		b.WriteString(string(h))
		b.WriteString(`</div>`)
	}
	b.WriteString(`</div>`)
	return template.HTML(b.String()), nil
}

// Titled is blocks under a small heading (one model among several).
type Titled struct {
	Title  string
	Blocks []Block
}

func (t *Titled) html() (template.HTML, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `<h3 class="btitle">%s</h3>`, esc(t.Title))
	for _, c := range t.Blocks {
		h, err := c.html()
		if err != nil {
			return "", err
		}
		b.WriteString(string(h))
	}
	return template.HTML(b.String()), nil
}
