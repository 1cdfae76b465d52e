// Package stickywriter holds an io.Writer that remembers its first error, so
// text renderers can print line after line and check for failure once at
// the end (the pattern of bufio.Writer, without the buffering).
package stickywriter

import (
	"fmt"
	"io"
)

// Writer passes writes to the underlying writer until one fails; from then
// on it writes nothing and returns that error.
type Writer struct {
	w   io.Writer
	err error
}

// New wraps w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p unless an earlier write failed.
func (s *Writer) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite // the io.Writer contract: a short write is an error
	}
	s.err = err
	return n, err
}

// Printf formats into the writer; a failure is kept for Err.
func (s *Writer) Printf(format string, args ...any) { fmt.Fprintf(s, format, args...) }

// Err is the first write error, or nil.
func (s *Writer) Err() error { return s.err }
