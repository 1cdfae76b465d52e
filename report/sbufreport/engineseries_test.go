package sbufreport

import "testing"

// An engine gets its colour by AWS's name or the NEFF's key, in any case;
// DMA and Sync share one.
func TestEngineSeries(t *testing.T) {
	for in, want := range map[string]int{"tensor": 0, "pe": 0, "Vector": 1, "dve": 1, "scalar": 2, "act": 2,
		"gpsimd": 3, "pool": 3, "sync": 4, "sp": 4, "dma": 4, "DMA": 4, "host": 5} {
		if got := engineSeries(in); got != want || kernelSeries[got].Name == "" {
			t.Errorf("engineSeries(%q) = %d, want %d", in, got, want)
		}
	}
}
