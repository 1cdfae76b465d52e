package neff

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

// A NEFF whose payload cannot be read still gets its hash verdict: a
// damaged payload is a hash mismatch beside the framing error, and a
// payload that was written broken (its hash matches) says so.
func TestDamagedPayloadKeepsHashVerdict(t *testing.T) {
	b, err := baseBuilder(t).Bytes(PackOptions{HashForm: HashNeuronxCC})
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), b...)
	for i := HeaderSize + 10; i < HeaderSize+40 && i < len(damaged); i++ {
		damaged[i] ^= 0xa5
	}
	rep, m := CheckBytes(damaged, DefaultLimits(), DefaultRuntime)
	if m != nil {
		t.Skip("the damage did not break the framing")
	}
	if !hasRule(rep, RuleHashMismatch) {
		t.Errorf("damaged payload: no hash verdict in %v", rep)
	}
	// Rewrite the stored hash to match the damaged payload: the file is
	// then as its writer produced it.
	h, _ := ParseHeader(damaged)
	stored := ComputeHash(damaged[HeaderSize:HeaderSize+h.DataSize], HashNeuronxCC)
	copy(damaged[offHash:], stored)
	rep, _ = CheckBytes(damaged, DefaultLimits(), DefaultRuntime)
	if hasRule(rep, RuleHashMismatch) || rep.Count(diag.Error) == 0 || !strings.Contains(rep[0].Message, "hash matches") {
		t.Errorf("matching hash: %v", rep)
	}
}

// An unpacked directory has no payload: its summary never says the hash
// is ok, since nothing was hashed.
func TestUnpackedDirHashNotChecked(t *testing.T) {
	b, err := baseBuilder(t).Bytes(PackOptions{HashForm: HashNeuronxCC})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(b, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "x")
	if _, err := Unpack(f, dir, false); err != nil {
		t.Fatal(err)
	}
	m, err := OpenDir(dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(m)
	var text strings.Builder
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if s.Header.Hashed || strings.Contains(text.String(), "hash           ok") || !strings.Contains(text.String(), "not checked") {
		t.Errorf("hashed %v; text:\n%s", s.Header.Hashed, text.String())
	}
	// A packed file is hashed.
	if sp := Summarize(Decode(f)); !sp.Header.Hashed || !sp.Header.HashOK {
		t.Errorf("packed: hashed %v ok %v", sp.Header.Hashed, sp.Header.HashOK)
	}
}
