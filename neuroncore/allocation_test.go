package neuroncore

import (
	"fmt"
	"testing"
)

// Table 7 of the direct allocation guide: (4, par_dim(128), 512) bf16 with
// mod_alloc(base_addr=0, num_free_tiles=(2,)) -> byte_addr 0, 1024, 0, 1024.
func TestModAllocGuideTable(t *testing.T) {
	m := ModAlloc{BaseAddr: 0, NumFreeTiles: []int64{2}}
	want := []int64{0, 1024, 0, 1024}
	for i, w := range want {
		l := m.SBUFLocation([]int64{int64(i)}, 128, 512*2)
		if l.Partition != 0 || l.Addr != w {
			t.Errorf("tile (%d,): %+v, want partition 0 byte_addr %d", i, l, w)
		}
	}
	if m.PhysicalTiles() != 2 {
		t.Errorf("physical tiles = %d", m.PhysicalTiles())
	}
	if got := m.Code(SBUF); got != "ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,))" {
		t.Errorf("code = %s", got)
	}
}

// The guide's lifetime-conflict example: t1 at base_addr 1024 with two free
// tiles occupies [1024, 3072).
func TestModAllocBase(t *testing.T) {
	m := ModAlloc{BaseAddr: 1024, NumFreeTiles: []int64{2}}
	if l := m.SBUFLocation([]int64{3}, 128, 1024); l.Addr != 2048 {
		t.Errorf("tile 3 at %d, want 2048", l.Addr)
	}
}

func TestModAllocMultiDim(t *testing.T) {
	// Block dims (4, 3), 32-partition tiles: num_par_tiles=(4,) spreads the
	// first index over partitions 0/32/64/96; num_free_tiles=(1, 3) the
	// second over three free slots.
	m := ModAlloc{BaseAddr: 100, NumParTiles: []int64{4}, NumFreeTiles: []int64{1, 3}}
	got := ""
	for i := int64(0); i < 4; i++ {
		for j := int64(0); j < 3; j++ {
			l := m.SBUFLocation([]int64{i, j}, 32, 64)
			got += fmt.Sprintf("(%d,%d)", l.Partition, l.Addr)
		}
	}
	want := "(0,100)(0,164)(0,228)(32,100)(32,164)(32,228)(64,100)(64,164)(64,228)(96,100)(96,164)(96,228)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A shape longer than the index: linearise with the full shape's
	// trailing products (Python zip stops at the shorter).
	m2 := ModAlloc{NumFreeTiles: []int64{2, 3}}
	if l := m2.SBUFLocation([]int64{1}, 128, 10); l.Addr != 30 {
		t.Errorf("short idx: %d, want 30", l.Addr)
	}
	// Empty tuples: every tile at the base.
	m3 := ModAlloc{BaseAddr: 7}
	if l := m3.SBUFLocation([]int64{5, 6}, 128, 10); l.Addr != 7 || l.Partition != 0 {
		t.Errorf("default: %+v", l)
	}
}

func TestPSUMModAlloc(t *testing.T) {
	m := ModAlloc{BaseBank: 2, NumBankTiles: []int64{3}}
	banks := ""
	for i := int64(0); i < 6; i++ {
		banks += fmt.Sprint(m.PSUMLocation([]int64{i}, 128, 2048).Bank)
	}
	if banks != "234234" {
		t.Errorf("banks %s", banks)
	}
	if got := m.Code(PSUM); got != "ncc.psum.mod_alloc(base_bank=2, num_bank_tiles=(3,))" {
		t.Errorf("code %s", got)
	}
	if off := (Location{Bank: 3, Addr: 8}).Offset(2048); off != 6152 {
		t.Errorf("offset %d", off)
	}
}

func TestStartPartition(t *testing.T) {
	cases := []struct {
		p, start int64
		ok       bool
	}{
		{128, 0, true}, {128, 64, false}, {65, 0, true}, {65, 32, false},
		{64, 64, true}, {64, 32, false}, {33, 64, true}, {33, 96, false},
		{32, 96, true}, {32, 16, false}, {1, 32, true}, {0, 0, false}, {129, 0, false},
	}
	for _, c := range cases {
		if got := StartPartitionAllowed(c.p, c.start); got != c.ok {
			t.Errorf("p=%d start=%d: %v, want %v", c.p, c.start, got, c.ok)
		}
		allowed := false
		for _, s := range AllowedStartPartitions(c.p) {
			allowed = allowed || s == c.start
		}
		if allowed != c.ok {
			t.Errorf("AllowedStartPartitions(%d) disagrees for %d", c.p, c.start)
		}
	}
}
