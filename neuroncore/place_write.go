package neuroncore

import (
	"bytes"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"
)

// WritePlaced rewrites the plan file src (the bytes the plan was parsed
// from) with the alloc of every tensor of placed: the file keeps its
// comments, order and everything else; each tensor's alloc becomes
// {mod_alloc: {...}} or {table: [...]} in flow style. The result is YAML
// (a JSON input comes back as YAML, which ParsePlan reads the same way).
func WritePlaced(src []byte, placed *Plan) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("plan: not a mapping")
	}
	tensors := mapValue(doc.Content[0], "tensors")
	if tensors == nil || tensors.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("plan: no tensors list")
	}
	// The decoder skips null entries; so does this walk.
	var items []*yaml.Node
	for i, tn := range tensors.Content {
		if tn.Kind == yaml.ScalarNode && tn.Tag == "!!null" {
			continue
		}
		if tn.Kind == yaml.AliasNode && tn.Alias != nil {
			// An alias of another tensor's mapping: give this entry its
			// own copy so that its alloc can differ.
			c := *tn.Alias
			c.Anchor = ""
			c.Content = append([]*yaml.Node(nil), tn.Alias.Content...)
			tensors.Content[i] = &c
			tn = &c
		}
		items = append(items, tn)
	}
	if len(items) != len(placed.Tensors) {
		return nil, fmt.Errorf("plan: %d tensors in the file, %d placed", len(items), len(placed.Tensors))
	}
	for i, t := range placed.Tensors {
		tn := items[i]
		if tn.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("plan: tensors[%d] is not a mapping", i)
		}
		if name := mapValue(tn, "name"); name == nil || name.Value != t.Name {
			return nil, fmt.Errorf("plan: tensors[%d] is not %s", i, t.Name)
		}
		if !t.Direct() {
			continue
		}
		an := flowMap(scalar("alloc"), allocNode(t))
		if doc.Content[0].Style&yaml.FlowStyle != 0 {
			jsonStyle(an) // JSON in, JSON out
		}
		if k := mapKey(tn, "alloc"); k >= 0 {
			tn.Content[k+1] = an.Content[1]
		} else {
			tn.Content = append(tn.Content, an.Content...)
		}
	}
	explicitNulls(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// explicitNulls spells implicit nulls (`{output}`, `key:`) as null: yaml.v3
// would re-encode them as empty strings, which no longer decode as null.
func explicitNulls(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" {
		n.Value = "null"
	}
	for _, c := range n.Content {
		explicitNulls(c)
	}
}

// jsonStyle makes a node tree print as JSON: flow collections, quoted keys.
func jsonStyle(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		n.Style = yaml.FlowStyle
		for i := 0; i+1 < len(n.Content); i += 2 {
			n.Content[i].Style = yaml.DoubleQuotedStyle
			jsonStyle(n.Content[i+1])
		}
	case yaml.SequenceNode:
		n.Style = yaml.FlowStyle
		for _, c := range n.Content {
			jsonStyle(c)
		}
	}
}

func mapKey(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func intNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)}
}

func flowMap(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: kv}
}

func intSeq(v []int64) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, x := range v {
		n.Content = append(n.Content, intNode(x))
	}
	return n
}

// allocNode renders a direct allocation as the plan file writes it.
func allocNode(t *Tensor) *yaml.Node {
	if t.Kind == Mod {
		m := t.Mod
		var kv []*yaml.Node
		add := func(k string, v *yaml.Node) { kv = append(kv, scalar(k), v) }
		if t.Buffer == PSUM {
			add("base_bank", intNode(m.BaseBank))
			if m.BaseAddr != 0 {
				add("base_addr", intNode(m.BaseAddr))
			}
		} else {
			add("base_addr", intNode(m.BaseAddr))
		}
		if m.BasePartition != 0 {
			add("base_partition", intNode(m.BasePartition))
		}
		if len(m.NumBankTiles) > 0 {
			add("num_bank_tiles", intSeq(m.NumBankTiles))
		}
		if len(m.NumParTiles) > 0 {
			add("num_par_tiles", intSeq(m.NumParTiles))
		}
		if len(m.NumFreeTiles) > 0 {
			add("num_free_tiles", intSeq(m.NumFreeTiles))
		}
		return flowMap(scalar("mod_alloc"), flowMap(kv...))
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, e := range t.Table {
		kv := []*yaml.Node{scalar("index"), intSeq(e.Index), scalar("partition"), intNode(e.Loc.Partition)}
		if t.Buffer == PSUM {
			kv = append(kv, scalar("bank"), intNode(e.Loc.Bank))
		}
		kv = append(kv, scalar("addr"), intNode(e.Loc.Addr))
		seq.Content = append(seq.Content, flowMap(kv...))
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("table"), seq}}
}
