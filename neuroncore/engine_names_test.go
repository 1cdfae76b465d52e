package neuroncore

import "testing"

// One naming of the engines (audit item 14): every def.json key maps to
// one AWS name, every Engine but DMA titles itself with the table's name,
// and no two keys share a name.
func TestEngineNames(t *testing.T) {
	want := map[string]string{"pe": "Tensor", "act": "Scalar", "dve": "Vector", "pool": "GpSimd", "sp": "Sync"}
	for k, n := range want {
		if got := EngineOfNEFFKey(k); got != n {
			t.Errorf("%s: %q, want %q", k, got, n)
		}
		if got := NEFFEngineLabel(k); got != n+" ("+k+")" {
			t.Errorf("label of %s: %q", k, got)
		}
	}
	if NEFFEngineLabel("xyz") != "xyz" || EngineOfNEFFKey("xyz") != "" {
		t.Error("an unknown key is not shown as itself")
	}
	names := map[string]bool{}
	for _, e := range EngineNames() {
		if names[e.Name] {
			t.Errorf("%s twice", e.Name)
		}
		names[e.Name] = true
	}
	for _, e := range Engines() {
		if e != DMA && !names[e.Title()] {
			t.Errorf("%v titles itself %q, not a name of the table", e, e.Title())
		}
	}
}
