package neff

import (
	"encoding/json"
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"strings"
)

// An engine JSON's dma list is the engine's DMA program: each entry names
// a queue and holds descriptors that move a variable's bytes at an offset.
// A recompile or an edit that inserts one entry shifts the position (and
// the id, which follows the position) of every entry after it, so diffDMA
// matches entries by identity rather than position, in rounds from the
// most specific key to the least:
//
//  1. queue, comment and every descriptor's content (the same transfer);
//  2. queue and comment (the compiler's name for the transfer, when set);
//  3. queue and every descriptor's endpoints (variable and offset of the
//     source and destination).
//
// Within one key, the k-th entry of A pairs with the k-th of B, so repeated
// identical transfers pair in order. What no round pairs is an entry on one
// side only. A matched pair is compared field by field; an id that differs
// is counted as renumbered, not as a differing field.

// dmaKeyRounds are the identity keys of a DMA entry, most specific first.
var dmaKeyRounds = []func(e map[string]any) (string, bool){
	func(e map[string]any) (string, bool) {
		return dmaQueue(e) + "\x00" + dmaComment(e) + "\x00" + canonicalDescs(e, false), true
	},
	func(e map[string]any) (string, bool) {
		c := dmaComment(e)
		return dmaQueue(e) + "\x00" + c, c != ""
	},
	func(e map[string]any) (string, bool) {
		return dmaQueue(e) + "\x00" + canonicalDescs(e, true), true
	},
}

// diffDMA compares two engine dma lists entry by entry, matched by
// identity; entries are named by queue and comment (or endpoints).
func (w *jsonWalk) diffDMA(path string, a, b []any, noise bool) {
	rounds := make([]func(any) (string, bool), len(dmaKeyRounds))
	for i, key := range dmaKeyRounds {
		rounds[i] = func(v any) (string, bool) { return dmaKey(v, key) }
	}
	pairB, usedB := matchByKeys(a, b, rounds)
	labels := dmaLabels(a)
	labelsB := dmaLabels(b)
	for i, v := range a {
		p := path + "[" + labels[i] + "]"
		j := pairB[i]
		if j < 0 {
			w.add(noise, p, describeDMA(v), "absent")
			continue
		}
		x, okX := v.(map[string]any)
		y, okY := b[j].(map[string]any)
		if !okX || !okY {
			w.diff(p, v, b[j], noise)
			continue
		}
		if fmt.Sprint(short(x["id"])) != fmt.Sprint(short(y["id"])) {
			if _, has := x["id"]; has {
				if _, has := y["id"]; has {
					w.renumbered++
					x, y = withoutKey(x, "id"), withoutKey(y, "id")
				}
			}
		}
		// Descriptors of one entry are matched by identity too: by their
		// whole content, then by their endpoints.
		if da, ok := x["desc"].([]any); ok {
			if db, ok := y["desc"].([]any); ok {
				w.diffDescs(p+".desc", da, db, noise)
				x, y = withoutKey(x, "desc"), withoutKey(y, "desc")
			}
		}
		w.diff(p, x, y, noise)
	}
	for j, v := range b {
		if !usedB[j] {
			w.add(noise, path+"["+labelsB[j]+"]", "absent", describeDMA(v))
		}
	}
}

// diffDescs compares the descriptors of two matched DMA entries, paired
// by identity; a descriptor is named by its index on its own side.
func (w *jsonWalk) diffDescs(path string, a, b []any, noise bool) {
	canon := func(endpoints bool) func(any) (string, bool) {
		return func(v any) (string, bool) {
			return canonicalDescs(map[string]any{"desc": []any{v}}, endpoints), true
		}
	}
	// What is left pairs in order: a descriptor whose endpoint changed
	// is that descriptor changed, not one removed and one added.
	pairB, usedB := matchByKeys(a, b, []func(any) (string, bool){canon(false), canon(true)})
	var ra, rb []int
	for i := range a {
		if pairB[i] < 0 {
			ra = append(ra, i)
		}
	}
	for j := range b {
		if !usedB[j] {
			rb = append(rb, j)
		}
	}
	for k := 0; k < min(len(ra), len(rb)); k++ {
		pairB[ra[k]], usedB[rb[k]] = rb[k], true
	}
	for i, v := range a {
		p := fmt.Sprintf("%s[%d]", path, i)
		if j := pairB[i]; j >= 0 {
			w.diff(p, v, b[j], noise)
		} else {
			w.add(noise, p, describeDesc(v), "absent")
		}
	}
	for j, v := range b {
		if !usedB[j] {
			w.add(noise, fmt.Sprintf("%s[%d]", path, j), "absent", describeDesc(v))
		}
	}
}

// describeDesc says what a descriptor on one side only moves.
func describeDesc(v any) any {
	d, ok := v.(map[string]any)
	if !ok {
		return short(v)
	}
	op, _ := d["op"].(string)
	if op == "" {
		op = "copy"
	}
	return op + " " + firstEndpoints(map[string]any{"desc": d})
}

// matchByKeys pairs the elements of a and b in rounds of identity keys,
// most specific first; within a key the k-th unmatched element of a pairs
// with the k-th of b. pairB[i] is the index in b paired with a[i] (-1:
// none); usedB marks the paired elements of b.
func matchByKeys(a, b []any, rounds []func(any) (string, bool)) (pairB []int, usedB []bool) {
	pairB = make([]int, len(a))
	for i := range pairB {
		pairB[i] = -1
	}
	usedB = make([]bool, len(b))
	for _, key := range rounds {
		free := map[string][]int{} // key -> unmatched B indices in order
		for j, v := range b {
			if usedB[j] {
				continue
			}
			if k, ok := key(v); ok {
				free[k] = append(free[k], j)
			}
		}
		for i, v := range a {
			if pairB[i] >= 0 {
				continue
			}
			k, ok := key(v)
			if !ok || len(free[k]) == 0 {
				continue
			}
			j := free[k][0]
			free[k] = free[k][1:]
			pairB[i], usedB[j] = j, true
		}
	}
	return pairB, usedB
}

// dmaKey applies key to an entry that is a JSON object.
func dmaKey(v any, key func(map[string]any) (string, bool)) (string, bool) {
	e, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	return key(e)
}

// dmaQueue is the entry's queue as QueueName reads it.
func dmaQueue(e map[string]any) string {
	if s, ok := e["instance_name"].(string); ok && s != "" {
		return s
	}
	s, _ := e["queue"].(string)
	return s
}

func dmaComment(e map[string]any) string {
	s, _ := e["#comment"].(string)
	return s
}

// endpointKeys are the descriptor fields that say which bytes move where.
var endpointKeys = []string{"from", "from_off", "to", "to_off", "from_arr"}

// canonicalDescs renders the entry's descriptors as compact JSON (keys
// sorted by encoding/json), all fields or only the endpoints.
func canonicalDescs(e map[string]any, endpoints bool) string {
	d := e["desc"]
	if endpoints {
		var list []any
		switch x := d.(type) {
		case []any:
			list = x
		case map[string]any:
			list = []any{x}
		}
		var out []any
		for _, v := range list {
			m, ok := v.(map[string]any)
			if !ok {
				out = append(out, v)
				continue
			}
			ep := map[string]any{}
			for _, k := range endpointKeys {
				if f, ok := m[k]; ok {
					ep[k] = f
				}
			}
			out = append(out, ep)
		}
		d = out
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// dmaLabels names each entry of one list the way a user finds it: its
// queue and comment, or its first descriptor's endpoints when it has no
// comment ("qSPIO0 W+4608 -> SB+192000"), with "#k" for the k-th of
// entries that share a name.
func dmaLabels(list []any) []string {
	out := make([]string, len(list))
	seen := map[string]int{}
	for i, v := range list {
		e, ok := v.(map[string]any)
		if !ok {
			out[i] = fmt.Sprintf("#%d", i)
			continue
		}
		l := dmaQueue(e)
		if c := dmaComment(e); c != "" {
			l += " " + c
		} else if ep := firstEndpoints(e); ep != "" {
			l += " " + ep
		}
		seen[l]++
		if n := seen[l]; n > 1 {
			l += fmt.Sprintf(" #%d", n)
		}
		out[i] = strings.TrimSpace(l)
	}
	return out
}

// describeDMA says what an entry on one side only does: its descriptor
// count and its first descriptor's operation and endpoints.
func describeDMA(v any) any {
	e, ok := v.(map[string]any)
	if !ok {
		return short(v)
	}
	n := 0
	op := ""
	switch x := e["desc"].(type) {
	case []any:
		n = len(x)
		if n > 0 {
			if d, ok := x[0].(map[string]any); ok {
				op, _ = d["op"].(string)
			}
		}
	case map[string]any:
		n = 1
		op, _ = x["op"].(string)
	}
	s := humanize.Plural(n, "descriptor")
	if ep := firstEndpoints(e); ep != "" {
		if op == "" {
			op = "copy"
		}
		s += ", first " + op + " " + ep
	}
	return s
}

// firstEndpoints renders the first descriptor's "from+off -> to+off".
func firstEndpoints(e map[string]any) string {
	var d map[string]any
	switch x := e["desc"].(type) {
	case []any:
		if len(x) > 0 {
			d, _ = x[0].(map[string]any)
		}
	case map[string]any:
		d = x
	}
	if d == nil {
		return ""
	}
	side := func(v, off string) string {
		s, _ := d[v].(string)
		if o, ok := d[off]; ok {
			s += fmt.Sprintf("+%v", short(o))
		}
		return s
	}
	return side("from", "from_off") + " -> " + side("to", "to_off")
}

func withoutKey(m map[string]any, k string) map[string]any {
	out := make(map[string]any, len(m))
	for key, v := range m {
		if key != k {
			out[key] = v
		}
	}
	return out
}
