package stickywriter

import (
	"bytes"
	"errors"
	"testing"
)

type failAfter struct {
	n   int
	buf bytes.Buffer
}

var errFull = errors.New("full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errFull
	}
	f.n--
	return f.buf.Write(p)
}

func TestFirstErrorSticks(t *testing.T) {
	f := &failAfter{n: 1}
	w := New(f)
	w.Printf("a%d", 1)
	if w.Err() != nil || f.buf.String() != "a1" {
		t.Fatalf("first write: %v %q", w.Err(), f.buf.String())
	}
	w.Printf("b")
	f.n = 5 // the sink would accept again: the writer must not
	w.Printf("c")
	if !errors.Is(w.Err(), errFull) || f.buf.String() != "a1" {
		t.Fatalf("after failure: %v %q", w.Err(), f.buf.String())
	}
}
