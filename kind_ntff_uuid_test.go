package npukit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/ntff"
)

// Every shared capture matches its own NEFF (truth.csv, including the two
// whose NEFF UUID has a zero byte at byte 1 and 4, which the capture
// records only up to it) and no other: inspect --neff names the match,
// and sim --measured refuses a capture of another NEFF unless asked to
// compare two programs, and then says so. (--measured compared any
// capture; inspect --neff printed "UUID matches" for any path.)
func TestNtffNeffUUIDPairs(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	rows := conformance.CSV(t, filepath.Join(dir, "truth.csv"))
	uuids := map[string][]byte{}
	for _, r := range rows {
		a, err := Open(filepath.Join(dir, r["neff_file"]))
		if err != nil {
			t.Fatal(err)
		}
		if uuids[r["neff_file"]], err = neffHeaderUUID(a); err != nil {
			t.Fatal(err)
		}
	}
	prefix := 0
	for _, r := range rows {
		capf := filepath.Join(dir, r["ntff_file"])
		b, err := os.ReadFile(capf)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ntff.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		for nf, u := range uuids {
			m := p.MatchNeff(u)
			if nf == r["neff_file"] {
				if m.Status != ntff.UUIDMatches {
					t.Errorf("%s against its NEFF %s: %s", r["ntff_file"], nf, m)
				}
				if m.Bytes < 16 {
					prefix++
				}
			} else if m.Status != ntff.UUIDDiffers {
				t.Errorf("%s against another NEFF %s: %s", r["ntff_file"], nf, m)
			}
		}
		a, err := Open(capf)
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Inspect(&Options{NtffNeff: filepath.Join(dir, r["neff_file"])})
		if err != nil {
			t.Fatal(err)
		}
		if s := out.(*NtffSummary); s.NeffMatch == nil || s.NeffMatch.Status != ntff.UUIDMatches {
			t.Errorf("inspect %s --neff its NEFF: %+v", r["ntff_file"], s.NeffMatch)
		}
	}
	if prefix < 2 {
		t.Errorf("%d pairs matched on a prefix of the UUID, want the 2 truth.csv names", prefix)
	}
	if len(rows) < 2 {
		t.Fatal("fewer than two pairs")
	}
	// The first pair's capture against the second pair's NEFF.
	capb, err := os.ReadFile(filepath.Join(dir, rows[0]["ntff_file"]))
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(filepath.Join(dir, rows[1]["neff_file"]))
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Simulate(&Options{NeffMeasured: capb, NeffMeasuredName: rows[0]["ntff_file"]})
	var oe *MeasuredOtherNeffError
	if !errors.As(err, &oe) {
		t.Fatalf("sim %s --measured %s: %v, want a refusal", rows[1]["neff_file"], rows[0]["ntff_file"], err)
	}
	out, err := other.Simulate(&Options{NeffMeasured: capb, NeffMeasuredName: rows[0]["ntff_file"], NeffMeasuredOtherNeff: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := out.(*NeffMeasured); m.Warning() == "" {
		t.Error("a forced comparison with another NEFF's capture does not say so")
	}
	capf := filepath.Join(dir, rows[0]["ntff_file"])
	a, err := Open(capf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Inspect(&Options{NtffNeff: filepath.Join(t.TempDir(), "none.neff")}); err == nil {
		t.Error("inspect --neff of a missing file is not an error")
	}
}
