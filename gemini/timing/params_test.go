package timing

import "testing"

func TestBandwidthFromName(t *testing.T) {
	cases := []struct {
		name string
		want float64
		ok   bool
	}{
		{"int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json", 16, true},
		{"/a/b/x_bw8.json", 8, true},
		{"x-bw12.5-y.json", 12.5, true},
		{"bw32", 32, true},
		{"net_b1_c4_BW32GB_stschedule.json", 32, true},
		{"net_bw64gbps.json", 64, true},
		{"net_bw16x_y.json", 0, false},
		{"resnet_2x2_b1_ir.json", 0, false},
		{"x_bwx_y.json", 0, false},
		{"x_bw0_y.json", 0, false},
		{"abw16_y.json", 0, false},
		{"/dir_bw16/file.json", 0, false},
	}
	for _, c := range cases {
		got, ok := BandwidthFromName(c.name)
		// A name's bwN is N GiB/s; the result is GB/s.
		if got != c.want*GiBps || ok != c.ok {
			t.Errorf("%s: got %g %v, want %g %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestParamsValidate(t *testing.T) {
	p := Default()
	p.DRAMGBps = 16
	if err := p.validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	bad := []func(*Params){
		func(p *Params) { p.DRAMGBps = 0 },
		func(p *Params) { p.CoreGHz = -1 },
		func(p *Params) { p.LinkGBps = 0 },
		func(p *Params) { p.TileOverhead = -1 },
		func(p *Params) { p.HopLatency = -1 },
		func(p *Params) { p.Prefetch = "eager" },
	}
	for i, f := range bad {
		q := p
		f(&q)
		if q.validate() == nil {
			t.Errorf("case %d: invalid params accepted", i)
		}
	}
}

func TestBytesPerCycle(t *testing.T) {
	p := Default()
	// 16 GiB/s (17.18 GB/s) at 1 GHz: 17.18 bytes per cycle (the
	// emulator's ld rate).
	got := p.bytesPerCycle(DefaultDRAMGBps)
	if got < 17.17 || got > 17.19 {
		t.Fatalf("bytes per cycle %g, want about 17.18", got)
	}
}

func TestForName(t *testing.T) {
	if p := ForName("x_c1_bw32_stschedule.json"); p.DRAMGBps != 32*GiBps || p.CoreGHz != Default().CoreGHz {
		t.Errorf("bw32: %+v", p)
	}
	if p := ForName("schedule.json"); p.DRAMGBps != DefaultDRAMGBps {
		t.Errorf("no bandwidth in the name: %g GB/s", p.DRAMGBps)
	}
}
