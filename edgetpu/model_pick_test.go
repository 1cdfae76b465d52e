package edgetpu

import "testing"

// PickExecutable finds the main executable by default and refuses
// operators and executables the file does not have.
func TestPickExecutable(t *testing.T) {
	m := Synthetic(DemoSpec())
	op, e, i, err := m.PickExecutable(0, -1)
	if err != nil || op == nil || e == nil || e != op.Packages[0].Main() || op.Packages[0].Executables[i] != e {
		t.Fatalf("main: %v %v %d %v", op, e, i, err)
	}
	if _, e2, i2, err := m.PickExecutable(0, 0); err != nil || e2 != op.Packages[0].Executables[0] || i2 != 0 {
		t.Errorf("executable 0: %v %d %v", e2, i2, err)
	}
	for _, c := range [][2]int{{1, -1}, {-1, 0}, {0, len(op.Packages[0].Executables)}} {
		if _, _, _, err := m.PickExecutable(c[0], c[1]); err == nil {
			t.Errorf("op %d exe %d accepted", c[0], c[1])
		}
	}
}
