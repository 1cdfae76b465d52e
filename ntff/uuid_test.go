package ntff

import "testing"

// The runtime copies a NEFF's UUID up to its first zero byte: a capture
// matches a NEFF when its copy is exactly that much of the NEFF's UUID.
func TestCompareUUID(t *testing.T) {
	full := []byte{0x0e, 0x90, 0x3d, 0x29, 0x74, 0x0b, 0x48, 0xba, 0x82, 0x8d, 0x2a, 0x19, 0x07, 0xee, 0x0b, 0xc6}
	nul4 := []byte{0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0x12, 0x34}
	other := append([]byte{0xaa, 0xbb, 0xcc, 0xdd, 0x01}, nul4[5:]...)
	for _, c := range []struct {
		name      string
		rec, neff []byte
		want      string
	}{
		{"whole UUID", full, full, UUIDMatches},
		{"bytes past its 16", append(append([]byte{}, full...), 0x41, 0x42), full, UUIDMatches},
		{"another UUID", nul4[:4], full, UUIDDiffers},
		{"up to the zero byte", nul4[:4], nul4, UUIDMatches},
		{"a copy of another UUID with the same first bytes", other, nul4, UUIDDiffers},
		{"a copy stopping short of the zero byte", nul4[:3], nul4, UUIDDiffers},
		{"a copy stopping at a zero byte the NEFF lacks", nul4[:4], other, UUIDDiffers},
		{"nothing recorded", nil, full, UUIDUnknown},
		{"no NEFF UUID", full, nil, UUIDUnknown},
	} {
		m := CompareUUID(c.rec, c.neff)
		if m.Status != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, m.Status, m, c.want)
		}
	}
	if m := CompareUUID(nul4[:4], nul4); m.Bytes != 4 || m.String() == "UUID matches" {
		t.Errorf("a prefix match says how much it compared: %d bytes, %q", m.Bytes, m)
	}
}
