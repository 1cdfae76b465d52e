package nki

import (
	"fmt"
	"strings"
)

// maxDiffEdits bounds the edit script of UnifiedDiff's search (Myers'
// greedy algorithm keeps one frontier per edit); past it the whole file is
// one hunk.
const maxDiffEdits = 20000

// UnifiedDiff renders the changes from a to b as a unified diff (3 lines
// of context) with the given file names; "" when equal.
func UnifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := diffOps(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	const ctx = 3
	// ops: ' ' keep, '-' delete (from x), '+' insert (from y)
	i := 0
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// a hunk from ctx lines before the change to ctx lines after the
		// last change closer than 2*ctx
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(len(ops), end+ctx+1)
		ax, ay := ops[start].x, ops[start].y
		na, nb := 0, 0
		var body strings.Builder
		for _, o := range ops[start:stop] {
			switch o.kind {
			case ' ':
				body.WriteString(" " + x[o.x])
				na++
				nb++
			case '-':
				body.WriteString("-" + x[o.x])
				na++
			case '+':
				body.WriteString("+" + y[o.y])
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n%s", hunkRange(ax, na), hunkRange(ay, nb), body.String())
		i = stop
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}

type diffOp struct {
	kind byte
	x, y int // line in x (keep, delete) / in y (keep, insert)
}

// diffOps is Myers' O((N+M)D) shortest edit script.
func diffOps(x, y []string) []diffOp {
	n, m := len(x), len(y)
	off := n + m
	v := make([]int, 2*off+2)
	var trace [][]int
	found := false
	limit := min(maxDiffEdits, (1<<22)/len(v)) // frontiers kept for the backtrack
	for d := 0; d <= n+m && d <= limit; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var px int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				px = v[off+k+1]
			} else {
				px = v[off+k-1] + 1
			}
			py := px - k
			for px < n && py < m && x[px] == y[py] {
				px++
				py++
			}
			v[off+k] = px
			if px >= n && py >= m {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		var ops []diffOp
		for i := range x {
			ops = append(ops, diffOp{'-', i, 0})
		}
		for j := range y {
			ops = append(ops, diffOp{'+', n, j})
		}
		return ops
	}
	// backtrack
	var rev []diffOp
	px, py := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vv := trace[d]
		k := px - py
		var pk int
		if k == -d || (k != d && vv[off+k-1] < vv[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		sx := vv[off+pk]
		sy := sx - pk
		for px > sx && py > sy {
			px--
			py--
			rev = append(rev, diffOp{' ', px, py})
		}
		if px == sx {
			py--
			rev = append(rev, diffOp{'+', px, py})
		} else {
			px--
			rev = append(rev, diffOp{'-', px, py})
		}
	}
	for px > 0 && py > 0 {
		px--
		py--
		rev = append(rev, diffOp{' ', px, py})
	}
	ops := make([]diffOp, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}
