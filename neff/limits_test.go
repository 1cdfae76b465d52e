package neff_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/hostile"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neff"
)

// The default cap fits the machine: an eighth of its memory (it was 4 GiB
// whatever the machine), so that about 3x the cap stays below it.
func TestDefaultLimitFitsMemory(t *testing.T) {
	lim := neff.DefaultLimits()
	if m := inputfile.TotalMemory(); m > 0 && lim.MaxDecompressed > max(m/8, 256<<20) {
		t.Errorf("MaxDecompressed %d on a machine of %d bytes", lim.MaxDecompressed, m)
	}
}

// A JSON member of 32 MiB holding 16 million values: parsing took about 40
// bytes per input byte (a 256 MB member used 10 GB). Past the value limit
// the member is a neff/too-large finding naming the limit, and memory
// stays in proportion to the limit.
func TestJSONValueLimit(t *testing.T) {
	b := hostile.NEFFBigMember(32<<20, hostile.JSONMember)
	lim := neff.Limits{MaxDecompressed: 64 << 20, MaxMembers: 100}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := neff.OpenBytes(b, lim)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range m.Problems {
		if d.Rule == neff.RuleTooLarge && strings.Contains(d.Message, "NPUKIT_NEFF_MAX_BYTES") && strings.Contains(d.Message, "1048576") {
			found = true
		}
	}
	if !found {
		t.Errorf("no neff/too-large finding: %v", m.Problems)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*uint64(lim.MaxDecompressed) {
		t.Errorf("allocated %d bytes for a %d-byte limit", got, lim.MaxDecompressed)
	}
}
