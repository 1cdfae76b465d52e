package neff

import (
	"strings"
	"testing"
)

// TestDecodeTypeErrorPath: a value of the wrong type is a json-syntax
// problem located by its JSON path.
func TestDecodeTypeErrorPath(t *testing.T) {
	m := &Model{}
	var d Def
	if m.decodeJSON(&Member{Name: "sg00/def.json", Data: []byte(`{"var":{"in":{"type":"input","size":"big"}}}`)}, &d) {
		t.Fatal("decoded a string size")
	}
	if len(m.Problems) != 1 || m.Problems[0].Rule != RuleJSONSyntax || m.Problems[0].Location != "sg00/def.json: var.in.size" || !strings.Contains(m.Problems[0].Message, "string") {
		t.Fatalf("%+v", m.Problems)
	}
	// Syntax errors keep encoding/json's wording and byte offset.
	m = &Model{}
	m.decodeJSON(&Member{Name: "x.json", Data: []byte(`{"a":}`)}, &d)
	if len(m.Problems) != 1 || m.Problems[0].Location != "x.json: byte 6" {
		t.Fatalf("%+v", m.Problems)
	}
	// desc as an object and as an array, unknown fields kept.
	var e EngineJSON
	if err := decodeTree([]byte(`{"dma":[{"queue":"q","desc":{"from":"a","x":1}},{"desc":[{"to":"b"}],"y":[2]}],"z":{}}`), &e, 1<<20); err != nil {
		t.Fatal(err)
	}
	if len(e.DMA) != 2 || !e.DMA[0].DescObject || *e.DMA[0].Desc[0].From != "a" || string(e.DMA[0].Desc[0].Extra["x"]) != "1" ||
		e.DMA[1].DescObject || *e.DMA[1].Desc[0].To != "b" || string(e.DMA[1].Extra["y"]) != "[2]" || string(e.Extra["z"]) != "{}" {
		t.Fatalf("%+v", e)
	}
}
