package main

import (
	"bytes"
	"fmt"

	"github.com/npukit/npukit/alloc"
)

// A small static allocation problem in MiniMalloc's CSV form: the
// activations and scratch buffers of a 12-layer network with a skip
// connection every third layer, 64-byte aligned, capacity 64 KiB in the
// file name (NAME.<capacity>.csv, MiniMalloc's convention).
func init() {
	Register(Generator{Name: "demo_alloc.65536.csv", Make: func() ([]byte, error) {
		p := &alloc.Problem{Capacity: 65536}
		add := func(id string, lo, hi, size int64) {
			p.Buffers = append(p.Buffers, alloc.Buffer{ID: id, Lower: lo, Upper: hi, Size: size, Alignment: 64})
		}
		for l := int64(0); l < 12; l++ {
			size := int64(4096 + 1024*((l*5)%7))
			add(fmt.Sprintf("act%d", l), l, l+2, size)
			add(fmt.Sprintf("scratch%d", l), l, l+1, int64(1024+512*(l%4)))
			if l%3 == 0 {
				add(fmt.Sprintf("skip%d", l), l, l+4, 2048)
			}
		}
		add("weights", 0, 13, 8192)
		var b bytes.Buffer
		err := alloc.WriteCSV(&b, p, nil)
		return b.Bytes(), err
	}})
}
