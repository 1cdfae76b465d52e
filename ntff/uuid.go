package ntff

import (
	"bytes"
	"encoding/hex"
	"fmt"
)

// The outcomes of CompareUUID.
const (
	UUIDMatches = "matches"
	UUIDDiffers = "differs"
	UUIDUnknown = "unknown" // nothing to compare: see UUIDMatch.Detail
)

// UUIDMatch is how the NEFF UUID a capture records compares with a NEFF's
// header UUID: whether the capture is a run of that NEFF.
type UUIDMatch struct {
	Status  string `json:"status"`       // UUIDMatches, UUIDDiffers or UUIDUnknown
	Capture string `json:"capture_uuid"` // hex, as recorded (at most 16 bytes)
	Neff    string `json:"neff_uuid"`    // hex, the NEFF header's
	// Bytes is how many bytes the capture's copy holds of the NEFF's
	// UUID: 16, or fewer when the NEFF's UUID has a zero byte (the
	// runtime copies the UUID up to its first zero byte).
	Bytes  int    `json:"bytes_compared"`
	Detail string `json:"detail,omitempty"`
}

// CompareUUID compares the UUID a capture records (Profile.NeffUUID) with
// a NEFF's header UUID. The runtime copies the UUID as a string: up to
// its first zero byte, and when it has none, sometimes with a few bytes
// past its 16 (whatever its buffer held). So the capture is a run of the
// NEFF when its first 16 bytes at most are the NEFF's UUID up to the
// UUID's first zero byte, exactly: a copy that stops before a zero byte
// of the NEFF's UUID, or goes on past one, is of another UUID. A NEFF
// with no UUID (an unpacked directory without header.json) or a capture
// with none recorded leaves the question open (UUIDUnknown).
func CompareUUID(recorded, neffUUID []byte) UUIDMatch {
	rec := recorded[:min(len(recorded), 16)]
	m := UUIDMatch{Capture: hex.EncodeToString(rec), Neff: hex.EncodeToString(neffUUID)}
	if len(neffUUID) == 0 {
		m.Status, m.Detail = UUIDUnknown, "the NEFF has no header UUID (an unpacked directory without header.json)"
		return m
	}
	want := neffUUID[:min(len(neffUUID), 16)]
	if z := bytes.IndexByte(want, 0); z >= 0 {
		want = want[:z]
	}
	m.Bytes = len(want)
	switch {
	case len(rec) == 0 && len(want) == 0:
		m.Status, m.Detail = UUIDUnknown, "the NEFF's UUID begins with a zero byte, so the capture records none of it"
	case len(rec) == 0:
		m.Status, m.Detail = UUIDUnknown, "the capture records no NEFF UUID"
	case bytes.Equal(rec, want):
		m.Status = UUIDMatches
		if len(want) < 16 {
			first := fmt.Sprintf("the first %d bytes", len(want))
			if len(want) == 1 {
				first = "the first byte"
			}
			m.Detail = first + ", where the NEFF's UUID has a zero byte and the runtime's copy of it stops"
		}
	default:
		m.Status = UUIDDiffers
	}
	return m
}

// MatchNeff compares the capture's recorded NEFF UUID with a NEFF's
// header UUID (CompareUUID).
func (p *Profile) MatchNeff(neffUUID []byte) UUIDMatch {
	return CompareUUID(p.NeffUUID, neffUUID)
}

// String says the outcome in words: "UUID matches", "UUID differs:
// capture e09e25ab..., NEFF 0e903d29...".
func (m UUIDMatch) String() string {
	switch m.Status {
	case UUIDMatches:
		if m.Detail != "" {
			return "UUID matches over " + m.Detail
		}
		return "UUID matches"
	case UUIDDiffers:
		return fmt.Sprintf("UUID differs: capture %s, NEFF %s", orDash(m.Capture), m.Neff)
	}
	return "UUID not compared: " + m.Detail
}
