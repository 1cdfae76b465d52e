package simhook

import "testing"

func TestSetAndRestore(t *testing.T) {
	Simulated("nobody listens")
	var seen []any
	restore := Set(func(p any) { seen = append(seen, p) })
	Simulated("a")
	Simulated("b")
	restore()
	Simulated("c")
	if len(seen) != 2 || seen[0] != "a" || seen[1] != "b" {
		t.Fatalf("seen %v, want [a b]", seen)
	}
}
