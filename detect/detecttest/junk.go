// Package detecttest makes the junk inputs that detection and the CLI
// must reject: each is written into a directory given by the test.
package detecttest

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"

	flatbuffers "github.com/google/flatbuffers/go"
)

// Junk is one malformed input and a fragment the error must contain.
type Junk struct {
	Name string
	Path string
	Want string
}

// WriteJunk writes the junk set into dir.
func WriteJunk(dir string) ([]Junk, error) {
	var out []Junk
	add := func(name, want string, data []byte) error {
		p := filepath.Join(dir, name)
		out = append(out, Junk{Name: name, Path: p, Want: want})
		return os.WriteFile(p, data, 0o644)
	}
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 5000)
	rng.Read(random)
	random[0], random[4] = 0xff, 0xfe // make sure it is no known magic
	neffHead := make([]byte, 600)
	binary.LittleEndian.PutUint64(neffHead[0:], 2)
	binary.LittleEndian.PutUint64(neffHead[8:], 1024)
	badTFL := append([]byte{0xf0, 0xff, 0xff, 0x7f}, []byte("TFL3")...)
	badTFL = append(badTFL, make([]byte, 24)...)
	steps := []struct {
		name, want string
		data       []byte
	}{
		{"empty.bin", "empty file", nil},
		{"three.bin", "3 bytes", []byte{1, 2, 3}},
		{"random.bin", "5,000 bytes", random},
		{"array.json", "JSON array", []byte(`[{"buffersize": 1}]`)},
		{"truncated.neff", "truncated NEFF header", neffHead},
		{"plain.tflite", "without an Edge TPU custom op", PlainTFLite()},
		{"badoffsets.tflite", "malformed model", badTFL},
		{"object.json", "JSON without the keys", []byte(`{"name": "not a schedule"}`)},
		{"wrongheader.csv", "unrecognised", []byte("a,b,c\n1,2,3\n")},
		{"text.txt", `text starting "hello world"`, []byte("hello world\n")},
	}
	for _, s := range steps {
		if err := add(s.name, s.want, s.data); err != nil {
			return nil, err
		}
	}
	d := filepath.Join(dir, "nokelf")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(d, "neff.json"), []byte("{}"), 0o644); err != nil {
		return nil, err
	}
	out = append(out, Junk{Name: "nokelf", Path: d, Want: "without kelf"})
	return out, nil
}

// PlainTFLite builds a minimal valid TFLite model whose only operator code
// is a custom op that is not the Edge TPU's.
func PlainTFLite() []byte {
	b := flatbuffers.NewBuilder(256)
	cc := b.CreateString("SomeOtherCustomOp")
	b.StartObject(4) // OperatorCode
	b.PrependInt8Slot(0, 32, 0)
	b.PrependUOffsetTSlot(1, cc, 0)
	b.PrependInt32Slot(2, 1, 0)
	b.PrependInt32Slot(3, 32, 0)
	op := b.EndObject()
	b.StartVector(4, 1, 4)
	b.PrependUOffsetT(op)
	codes := b.EndVector(1)
	b.StartObject(5) // Model
	b.PrependUint32Slot(0, 3, 0)
	b.PrependUOffsetTSlot(1, codes, 0)
	m := b.EndObject()
	b.FinishWithFileIdentifier(m, []byte("TFL3"))
	return b.FinishedBytes()
}
