package fbs

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrBudget says that a file's structures would need more memory than the
// file is large (shared or overlapping offsets).
var ErrBudget = errors.New("structures exceed the input size (overlapping or repeated offsets)")

// Budget bounds the memory the structures decoded from one buffer may take:
// every slice is charged before it is made, so a file declaring more
// elements than it can hold fails before allocating. The zero value has no
// budget left; NewBudget gives the input size plus slack.
type Budget struct{ left int64 }

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget { return &Budget{left: n} }

// StructFactor bounds the memory of the structures decoded from one byte
// of input. A valid file's tables share vtables (every FlatBuffers builder
// deduplicates them), so an operator or tensor can take as little as 8
// bytes of the file (its offset in a vector and its own vtable offset),
// while the decoded Go structure takes up to about 180 bytes: a budget of
// the input size alone refused valid models made of many small operators
// (a 502-operator ADD chain). 32 covers every decoded structure per 8
// encoded bytes with room to spare and still bounds memory linearly.
const StructFactor = 32

// InputBudget is the budget of the structures decoded from an n-byte input
// (StructFactor times n) plus slack bytes.
func InputBudget(n, slack int64) *Budget { return &Budget{left: StructFactor*n + slack} }

// Charge takes n elements of T from the budget. The error is an *Error at
// offset at and path that also matches ErrBudget.
func Charge[T any](b *Budget, n int, path string, at int) error {
	var z T
	b.left -= int64(n) * int64(unsafe.Sizeof(z))
	if b.left < 0 {
		return &budgetError{&Error{Offset: int64(at), Path: path, Msg: fmt.Sprintf("%d elements: %v", n, ErrBudget)}}
	}
	return nil
}

// budgetError is an *Error (offset and path) that also matches ErrBudget.
type budgetError struct{ at *Error }

func (e *budgetError) Error() string   { return e.at.Error() }
func (e *budgetError) Unwrap() []error { return []error{e.at, ErrBudget} }
