package nki

import (
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// BenchmarkCheckManifest reads, traces, lowers and checks every corpus
// entry the tracer accepts (bench/nki.sh times the command per entry).
func BenchmarkCheckManifest(b *testing.B) {
	m, err := ReadManifest(corpusManifest)
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		for i := range m.Entries {
			e := &m.Entries[i]
			res, err := Trace(OptionsFor(m, e))
			if err != nil {
				continue
			}
			arch, _ := neuroncore.ArchByName(e.NCVersion)
			if _, err := CheckKernel(res, arch); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCheckEntry reads, traces, lowers and checks each corpus entry on
// its own (go test -bench CheckEntry/attention_cte -cpuprofile ...).
func BenchmarkCheckEntry(b *testing.B) {
	m, err := ReadManifest(corpusManifest)
	if err != nil {
		b.Skip(err)
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		b.Run(e.ID, func(b *testing.B) {
			arch, _ := neuroncore.ArchByName(e.NCVersion)
			for b.Loop() {
				res, err := Trace(OptionsFor(m, e))
				if err != nil {
					continue
				}
				if _, err := CheckKernel(res, arch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
