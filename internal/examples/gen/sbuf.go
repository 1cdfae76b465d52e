package main

import (
	"io/fs"

	sbufplans "github.com/npukit/npukit/examples/sbuf"
	"github.com/npukit/npukit/neuroncore"
)

// The direct allocation guide's double-buffered load/exp loop, from
// examples/sbuf (validated by neuroncore's parser on the way).
func init() {
	Register(Generator{Name: "demo_sbuf_double_buffer.yaml", Make: func() ([]byte, error) {
		b, err := fs.ReadFile(sbufplans.Plans, "double-buffer.yaml")
		if err != nil {
			return nil, err
		}
		if _, err := neuroncore.ParsePlan(b); err != nil {
			return nil, err
		}
		return b, nil
	}})
}
