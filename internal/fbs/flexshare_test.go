package fbs_test

import (
	"runtime"
	"testing"

	"github.com/npukit/npukit/internal/fbs"
	"github.com/npukit/npukit/internal/hostile"
)

// Entries sharing one long key: every Value copied the key into its path
// (a 1 MB file reached gigabytes). Now a path quotes at most MaxPathKey
// bytes and KeyBytes gives the shared offset without a copy.
func TestFlexSharedKeyNotCopiedPerEntry(t *testing.T) {
	const n, keyLen = 4000, 64 << 10
	b := hostile.FlexSharedKeys(n, keyLen)
	root, err := fbs.FlexRoot(b, "r")
	if err != nil {
		t.Fatal(err)
	}
	m, err := root.Map()
	if err != nil || m.Len() != n {
		t.Fatalf("map: %v, %d entries", err, m.Len())
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	offs := map[int]bool{}
	for i := range n {
		k, off, err := m.KeyBytes(i)
		if err != nil || len(k) != keyLen {
			t.Fatalf("key %d: %d bytes, %v", i, len(k), err)
		}
		offs[off] = true
		v, err := m.Value(i)
		if err != nil {
			t.Fatal(err)
		}
		if x, _ := v.Int(); x != int64(i) || len(v.Path) > 2*fbs.MaxPathKey+40 {
			t.Fatalf("value %d = %d, path of %d bytes", i, x, len(v.Path))
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("reading %d entries of a shared %d-byte key allocated %d bytes", n, keyLen, got)
	}
	if len(offs) != 1 {
		t.Errorf("%d key offsets, want 1", len(offs))
	}
}
