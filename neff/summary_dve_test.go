package neff

import "testing"

// A DVE table set that leaves a table empty says "none" for it: a trn2
// NEFF's printed "control , datapath default_datapath_table.bin".
func TestDVETableDescribe(t *testing.T) {
	got := DVETable{DatapathTable: "d.bin", OpcodeTable: "o.bin"}.Describe()
	if want := "control none, datapath d.bin, opcode o.bin"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
