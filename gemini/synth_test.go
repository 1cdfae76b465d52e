package gemini

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/npukit/npukit/diag"
)

func synthOK(t *testing.T, cfg SynthConfig) *Schedule {
	t.Helper()
	s, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Check(s) {
		if d.Severity != diag.Info {
			t.Fatalf("synthetic schedule %+v: %s", cfg, d)
		}
	}
	return s
}

func TestSynthPassesCheck(t *testing.T) {
	for _, cfg := range []SynthConfig{
		{Cores: 1, Workloads: 1},
		{Cores: 1, Workloads: 9},
		{Cores: 2, Workloads: 10},
		{Cores: 4, Workloads: 30, XLen: 2, Seed: 7},
		{Cores: 3, Workloads: 400, Buffer: 1 << 20, DRAMEvery: 5},
	} {
		synthOK(t, cfg)
	}
}

func TestSynthRingWraps(t *testing.T) {
	s := synthOK(t, SynthConfig{Cores: 2, Workloads: 200, Buffer: 1 << 20})
	n := 0
	for _, d := range Check(s) {
		if d.Rule == RuleRingWrap {
			n++
		}
	}
	if n == 0 {
		t.Error("no tensor wraps around the ring")
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	s := synthOK(t, SynthConfig{Cores: 3, Workloads: 12})
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var buf2 bytes.Buffer
	if err := Write(&buf2, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Fatal("write(read(write(s))) differs from write(s)")
	}
	if len(Check(back)) != len(Check(s)) {
		t.Error("check differs after a round trip")
	}
	if !reflect.DeepEqual(back.Cores[1].Workloads[5].Buffer, s.Cores[1].Workloads[5].Buffer) {
		t.Errorf("buffer differs:\n%+v\n%+v", back.Cores[1].Workloads[5].Buffer, s.Cores[1].Workloads[5].Buffer)
	}
}
