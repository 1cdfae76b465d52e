package neff

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Extra holds the JSON fields a typed struct does not know, so that a
// read-write round trip keeps them.
type Extra map[string]json.RawMessage

// decodeObject decodes b into v (a pointer to a struct whose own
// UnmarshalJSON must not be reachable, i.e. a "plain" alias type) and
// returns the fields v's type does not declare.
func decodeObject(b []byte, v any) (Extra, error) {
	if err := decodeTree(b, v, DefaultLimits().JSONValues()); err != nil {
		return nil, err
	}
	extra, _ := reflect.ValueOf(v).Elem().FieldByName("Extra").Interface().(Extra)
	return extra, nil
}

// encodeObject marshals v (a plain alias value) and merges extra into it;
// keys come out sorted.
func encodeObject(v any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, raw := range extra {
		if _, dup := all[k]; !dup {
			all[k] = raw
		}
	}
	return json.Marshal(all)
}

// indentJSON pretty-prints like neuronx-cc (4 spaces).
func indentJSON(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "    "); err != nil {
		return b
	}
	return out.Bytes()
}
