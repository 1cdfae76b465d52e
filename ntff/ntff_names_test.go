package ntff

import (
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// A capture names its engines as every other output does (audit item 14).
func TestEngineNamesAreTheTables(t *testing.T) {
	names := map[string]bool{}
	for _, e := range neuroncore.EngineNames() {
		names[e.Name] = true
	}
	for _, e := range Engines {
		if !names[e] {
			t.Errorf("capture engine %q is not in neuroncore's table", e)
		}
	}
}
