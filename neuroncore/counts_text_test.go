package neuroncore

import (
	"bytes"
	"testing"

	"github.com/npukit/npukit/internal/humanize"
)

// sbuf inspect, sim and place (and nki sim and place, which print the
// same summaries) write counts of steps, tiles and bytes with thousands
// separators, as check does: sim said "6000 steps" and tabled "4000" DMA
// steps, inspect tabled "16384" tile bytes beside "4,000 executed".
func TestTextCountsCarrySeparators(t *testing.T) {
	src := `name: many
tensors:
  - {name: a, block: [2000], partitions: 128, free: [4096], dtype: fp32}
  - {name: b, block: [2000], partitions: 128, free: [4096], dtype: fp32}
body:
  - loop: i
    range: 2000
    body: [{op: load, write: "a[i]"}, {op: activation, read: "a[i]", write: "b[i]"}, {op: store, read: "b[i]"}]
`
	p := mustParse(t, src)
	r, err := Simulate(p)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := Place(p, PlaceOptions{Fewest: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(p)
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string]func(b *bytes.Buffer) error{
		"sim":     func(b *bytes.Buffer) error { return r.Summary().WriteText(b) },
		"inspect": func(b *bytes.Buffer) error { return sum.WriteText(b) },
		"place":   func(b *bytes.Buffer) error { return pl.WriteText(b) },
	}
	for name, write := range outs {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if bare := humanize.BareCounts(b.String()); len(bare) != 0 {
			t.Errorf("%s writes %v without separators:\n%s", name, bare, b.String())
		}
		if !bytes.Contains(b.Bytes(), []byte("2,000")) {
			t.Errorf("%s: no count of 2,000:\n%s", name, b.String())
		}
	}
}
