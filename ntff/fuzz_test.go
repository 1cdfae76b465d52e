package ntff

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// tiny builds a minimal capture: one core with one instruction pair and
// one DMA packet.
func tiny() []byte {
	pb := func(num int, wire int, payload []byte) []byte {
		b := binary.AppendUvarint(nil, uint64(num<<3|wire))
		if wire == 2 {
			b = binary.AppendUvarint(b, uint64(len(payload)))
		}
		return append(b, payload...)
	}
	vint := func(num int, v uint64) []byte { return binary.AppendUvarint(pb(num, 0, nil), v) }
	region := func(kind int, sub int, off, l int) []byte {
		var m []byte
		m = append(m, vint(1, uint64(kind))...)
		m = append(m, vint(3, uint64(sub))...)
		m = append(m, vint(5, uint64(off))...)
		m = append(m, vint(6, uint64(l))...)
		m = append(m, vint(7, 4)...)
		return pb(16, 2, m)
	}
	var core []byte
	core = append(core, pb(1, 2, []byte("sg00"))...)
	core = append(core, vint(3, 4)...)
	core = append(core, vint(14, 1000)...)
	core = append(core, pb(7, 2, append(append(vint(1, 64), vint(3, 3)...), pb(4, 2, []byte("qSPIO0"))...))...)
	var top []byte
	top = append(top, pb(1, 2, []byte("file.neff"))...)
	top = append(top, pb(2, 2, []byte{1, 2, 3, 4})...)
	top = append(top, pb(4, 2, pb(4, 2, pb(1, 2, core)))...)
	top = append(top, pb(9, 2, []byte("trn2.3xlarge"))...)
	top = append(top, pb(15, 2, append(vint(2, 100), vint(3, 1100)...))...)
	top = append(top, region(0, 0, 0, 32)...)
	top = append(top, region(4, 1, 32, 32)...)
	rec := func(b0, b3, b4 byte, t uint64) []byte {
		r := make([]byte, 16)
		r[0], r[3], r[4] = b0, b3, b4
		binary.LittleEndian.PutUint64(r[8:], t)
		return r
	}
	out := make([]byte, HeaderSize)
	out[0] = 6
	binary.LittleEndian.PutUint32(out[1:], uint32(len(top)))
	out = append(out, top...)
	out = append(out, rec(0, 0x84, 0, 200)...)
	out = append(out, rec(0, 0x85, 0, 300)...)
	out = append(out, rec(0x40, 0x80, 0x05, 400)...)
	out = append(out, rec(0, 0x80, 0x06, 500)...)
	return out
}

func TestTiny(t *testing.T) {
	b := tiny()
	if !Looks(b, int64(len(b))) {
		t.Fatal("the synthetic capture is not recognised")
	}
	p, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(p, "tiny")
	if s.EngineCounts["Tensor"] != 1 || s.StaticDMAPackets != 1 || s.StaticDMABytes != 0x40 || s.TotalTimePs != 1000 {
		t.Fatalf("summary %+v", s)
	}
	if s.Cores[0].Queues[0].Name != "qSPIO0" {
		t.Errorf("queue named %q, want qSPIO0", s.Cores[0].Queues[0].Name)
	}
	// Truncating anywhere is an error or a smaller capture, never a panic.
	for n := 0; n < len(b); n++ {
		Parse(b[:n])
	}
	// A region pointing past the events is refused.
	bad := append([]byte(nil), b[:len(b)-16]...)
	if _, err := Parse(bad); err == nil {
		t.Error("a region past the end of the file was accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(tiny())
	if d := conformance.SharedDir(); d != "" {
		m, _ := filepath.Glob(filepath.Join(d, "corpus3", "ntff", "*.ntff"))
		if len(m) > 0 {
			if b, err := os.ReadFile(m[0]); err == nil && len(b) < 1<<17 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		s := Summarize(p, "fuzz")
		_ = s.WriteText(discard{})
		Check(b)
		if len(b) < 1<<16 {
			p.Timeline()
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
