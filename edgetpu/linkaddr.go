package edgetpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/npukit/npukit/edgetpu/link"
)

// LinkAddresses reads the addresses to link e at, as `npukit edgetpu
// link` takes them: layers are NAME=ADDR[@BATCH] of input and output
// layers by name ("in:NAME" or "out:NAME" when a name is both), params
// and scratch the parameter and scratch buffers' addresses ("" for
// none). Addresses accept 0x prefixes.
func (e *Executable) LinkAddresses(layers []string, params, scratch string) (link.Addresses, error) {
	var a link.Addresses
	inputs, outputs, err := e.splitLayers(layers)
	if err != nil {
		return a, err
	}
	if a.Inputs, err = addrMap(inputs); err != nil {
		return a, err
	}
	if a.Outputs, err = addrMap(outputs); err != nil {
		return a, err
	}
	for _, f := range []struct {
		s   string
		dst **uint64
	}{{params, &a.Parameters}, {scratch, &a.Scratch}} {
		if f.s != "" {
			v, err := strconv.ParseUint(f.s, 0, 64)
			if err != nil {
				return a, fmt.Errorf("address %q: %v", f.s, err)
			}
			*f.dst = &v
		}
	}
	return a, nil
}

// parseAddr parses NAME=ADDR[@BATCH].
func parseAddr(s string) (name string, addr uint64, batch int, err error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return "", 0, 0, fmt.Errorf("%q: want NAME=ADDR[@BATCH]", s)
	}
	a, b, hasBatch := strings.Cut(rest, "@")
	addr, err = strconv.ParseUint(a, 0, 64)
	if err != nil {
		return "", 0, 0, fmt.Errorf("%q: address %q: %v", s, a, err)
	}
	if hasBatch {
		if batch, err = strconv.Atoi(b); err != nil || batch < 0 {
			return "", 0, 0, fmt.Errorf("%q: batch %q is not a non-negative integer", s, b)
		}
	}
	return name, addr, batch, nil
}

// splitLayers sorts NAME=ADDR specs into the executable's input and
// output layers by name; an unknown name lists the layers.
func (e *Executable) splitLayers(specs []string) (inputs, outputs []string, err error) {
	has := func(ls []*Layer, name string) bool {
		for _, l := range ls {
			if l.Name == name {
				return true
			}
		}
		return false
	}
	for _, s := range specs {
		name, _, _ := strings.Cut(s, "=")
		switch {
		case strings.HasPrefix(name, "in:"):
			inputs = append(inputs, strings.TrimPrefix(s, "in:"))
		case strings.HasPrefix(name, "out:"):
			outputs = append(outputs, strings.TrimPrefix(s, "out:"))
		case has(e.InputLayers, name) && has(e.OutputLayers, name):
			return nil, nil, fmt.Errorf("--layer %s: %q is both an input and an output layer: write in:%s or out:%s", s, name, name, name)
		case has(e.InputLayers, name):
			inputs = append(inputs, s)
		case has(e.OutputLayers, name):
			outputs = append(outputs, s)
		default:
			var names []string
			for _, l := range e.InputLayers {
				names = append(names, "in:"+l.Name)
			}
			for _, l := range e.OutputLayers {
				names = append(names, "out:"+l.Name)
			}
			return nil, nil, fmt.Errorf("--layer %s: no layer %q (layers: %s)", s, name, strings.Join(names, ", "))
		}
	}
	return inputs, outputs, nil
}

// addrMap gathers NAME=ADDR[@BATCH] specs into one address per batch
// element of each layer; a batch without an address is an error.
func addrMap(specs []string) (map[string][]uint64, error) {
	set := map[string]map[int]uint64{}
	for _, s := range specs {
		name, addr, batch, err := parseAddr(s)
		if err != nil {
			return nil, err
		}
		if set[name] == nil {
			set[name] = map[int]uint64{}
		}
		set[name][batch] = addr
	}
	out := map[string][]uint64{}
	for name, byBatch := range set {
		n := 0
		for b := range byBatch {
			n = max(n, b+1)
		}
		for b := range n {
			a, ok := byBatch[b]
			if !ok {
				return nil, fmt.Errorf("--layer %s: no address for batch %d", name, b)
			}
			out[name] = append(out[name], a)
		}
	}
	return out, nil
}
