package main

import "github.com/npukit/npukit/edgetpu"

// A synthetic compiled Edge TPU model: one edgetpu-custom-op holding a
// package with an EXECUTION_ONLY and a PARAMETER_CACHING executable, a tiled
// 8x8x6 output and a signed 1-D output, built by npukit's writer.
func init() {
	Register(Generator{Name: "demo_edgetpu.tflite", Make: func() ([]byte, error) {
		return edgetpu.Write(edgetpu.Synthetic(edgetpu.DemoSpec()))
	}})
}
