package cli_test

import (
	binle "encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// check gates the header against a named runtime: the default is the public
// runtime 2.x; --neff-runtime-major/--neff-runtime-features describe another.
func TestNeffCheckRuntimeFlags(t *testing.T) {
	files := conformance.Files(t, conformance.Corpus(t, "neff"), "*.neff")
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// NEFF 2.x with feature bit 8, which runtime 2.x does not support
	// (header offsets 0x018 neff_version_major, 0x220 feature_bits; the
	// hash covers the payload only).
	binle.LittleEndian.PutUint64(b[0x018:], 2)
	binle.LittleEndian.PutUint64(b[0x220:], 0x100)
	f := filepath.Join(t.TempDir(), "features.neff")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The default runtime is one old error message's mask: newer runtimes
	// support more bits. This NEFF names its compiler (neuronx-cc 2.18 in
	// info.json), whose own SDK's runtime loads what it writes: an info
	// naming that release, not a warning.
	r := run(t, "", "check", f)
	if r.code != 0 || !strings.Contains(r.stdout, "info [neff/features-need-runtime]") || !strings.Contains(r.stdout, "0x100") ||
		!strings.Contains(r.stdout, "Neuron SDK 2.23") {
		t.Fatalf("default runtime: want a feature-bits info naming the compiler's release, got %s", r)
	}
	// Audit r3 #24: the printed default of --neff-runtime-major, given,
	// made the info an error (exit 1); it gates the major version only.
	// --neff-runtime-features prints no default, since naming any mask
	// (below) is what makes feature bits errors.
	if d := run(t, "", "check", "--neff-runtime-major", "2", f); d.code != 0 || d.stdout != r.stdout {
		t.Fatalf("--neff-runtime-major 2 (its default) changed the check:\n%s\nwithout it:\n%s", d, r)
	}
	if h := run(t, "", "check", "--help"); strings.Contains(h.stdout, `(default "0x80000000000000ff")`) || !strings.Contains(h.stdout, "default: none named") {
		t.Errorf("--neff-runtime-features help: %s", h.stdout)
	}
	r = run(t, "", "check", "--neff-runtime-features", "0x80000000000000ff", f)
	if r.code != 1 || !strings.Contains(r.stdout, "neff/unsupported-features") || !strings.Contains(r.stdout, "0x100") {
		t.Fatalf("named runtime: want a feature-bits error, got %s", r)
	}
	r = run(t, "", "check", "--neff-runtime-features", "0x1ff", f)
	if r.code != 0 || strings.Contains(r.stdout, "neff/unsupported-features") {
		t.Fatalf("runtime supporting bit 8: want no error, got %s", r)
	}
	r = run(t, "", "check", "--neff-runtime-major", "1", "--neff-runtime-features", "0x1ff", f)
	if r.code != 1 || !strings.Contains(r.stdout, "major <= 1") {
		t.Fatalf("runtime loading major 1 only: want a version error naming it, got %s", r)
	}
	r = run(t, "", "check", "--neff-runtime-features", "lots", f)
	if r.code != 2 || !strings.Contains(r.stderr, "--neff-runtime-features") {
		t.Fatalf("bad mask: want exit 2 naming the flag, got %s", r)
	}
}
