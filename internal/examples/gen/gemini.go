package main

import (
	"bytes"

	"github.com/npukit/npukit/gemini"
)

// A synthetic Gemini schedule (compiler IR): 4 cores on a 2x2 mesh, 8
// layers exchanging data core to core and through DRAM, with a 512 KiB L2
// so that tensors wrap around the ring. Built by gemini.Synth; it passes
// check without errors.
func init() {
	Register(Generator{Name: "demo_gemini_schedule.json", Make: func() ([]byte, error) {
		var b bytes.Buffer
		err := gemini.SynthWrite(&b, gemini.SynthConfig{Cores: 4, Workloads: 8, XLen: 2, Buffer: 512 << 10, Seed: 1})
		return b.Bytes(), err
	}})
}
