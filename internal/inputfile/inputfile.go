// Package inputfile is the one way npukit opens what it reads: "-" is
// standard input; any other path must be a regular file (or, where the
// caller says so, a directory). FIFOs, devices and sockets are refused
// before anything is read from them — /dev/zero would exhaust memory, a
// FIFO without a writer would hang — and the open itself never blocks.
// A read is bounded: a file larger than the limit is refused by its size
// before it is read, standard input once the limit is passed.
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// LimitEnv names the environment variable that sets the largest input
// read whole (bytes, or with a K, M, G or T suffix of 1024s).
const LimitEnv = "NPUKIT_MAX_INPUT"

// NotRegularError says a path is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	what := "not a regular file"
	switch t := e.Mode.Type(); {
	case t&fs.ModeNamedPipe != 0:
		what = "a FIFO (named pipe)"
	case t&fs.ModeCharDevice != 0:
		what = "a character device"
	case t&fs.ModeDevice != 0:
		what = "a block device"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case t.IsDir():
		what = "a directory"
	}
	return fmt.Sprintf("%s is %s, not a regular file (use - to read standard input)", e.Path, what)
}

// TooLargeError says an input exceeds the limit.
type TooLargeError struct {
	Path  string
	Size  int64 // -1 when unknown (standard input)
	Limit int64
}

func (e *TooLargeError) Error() string {
	size := "more than " + strconv.FormatInt(e.Limit, 10)
	if e.Size >= 0 {
		size = strconv.FormatInt(e.Size, 10)
	}
	return fmt.Sprintf("%s: %s bytes exceed the input limit of %d bytes (%s=BYTES raises it)", e.Path, size, e.Limit, LimitEnv)
}

// Open opens path for reading after checking it is a regular file. The
// open does not block on a FIFO (it is refused afterwards); the file is
// checked again once open, so a path swapped meanwhile is refused too.
func Open(path string) (*os.File, fs.FileInfo, error) {
	if path == Stdin {
		return nil, nil, errors.New("standard input (-) cannot be opened for random access; use ReadFile")
	}
	return openFlags(path, 0)
}

func openFlags(path string, flags int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock|flags, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	if err := clearNonBlock(f); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Stat is os.Stat for an input path: a directory or regular file is
// returned, anything else is a *NotRegularError. Standard input has no
// FileInfo (nil, nil).
func Stat(path string) (fs.FileInfo, error) {
	if path == Stdin {
		return nil, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return st, nil
}

// ReadFile reads a whole input (standard input for "-") of at most
// Limit() bytes.
func ReadFile(path string) ([]byte, error) { return ReadFileMax(path, Limit()) }

// ReadFileMax is ReadFile with an explicit limit.
func ReadFileMax(path string, limit int64) ([]byte, error) {
	if path == Stdin {
		return readStdin(limit)
	}
	return readFileFlags(path, limit, 0)
}

func readFileFlags(path string, limit int64, flags int) ([]byte, error) {
	f, st, err := openFlags(path, flags)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, &TooLargeError{Path: path, Size: st.Size(), Limit: limit}
	}
	b := make([]byte, 0, st.Size()+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > limit {
			return nil, &TooLargeError{Path: path, Size: -1, Limit: limit}
		}
		if len(b) == cap(b) { // the file grew while read
			b = append(b, 0)[:len(b)]
		}
	}
}

var stdin struct {
	sync.Mutex
	read bool
	data []byte
	err  error
}

// readStdin reads standard input once; a second "-" in the same run gets
// the same bytes.
func readStdin(limit int64) ([]byte, error) {
	stdin.Lock()
	defer stdin.Unlock()
	if !stdin.read {
		stdin.read = true
		var buf bytes.Buffer
		n, err := buf.ReadFrom(io.LimitReader(os.Stdin, limit+1))
		switch {
		case err != nil:
			stdin.err = fmt.Errorf("standard input: %w", err)
		case n > limit:
			stdin.err = &TooLargeError{Path: "standard input", Size: -1, Limit: limit}
		default:
			stdin.data = buf.Bytes()
		}
	}
	return stdin.data, stdin.err
}

// DefaultLimit is the input limit when LimitEnv is not set: a quarter of
// the machine's memory (readers hold the input and structures of a small
// multiple of it), at least 64 MiB; 1 GiB where memory is unknown.
func DefaultLimit() int64 {
	if m := TotalMemory(); m > 0 {
		return max(m/4, 64<<20)
	}
	return 1 << 30
}

// Limit returns the input limit: LimitEnv when set and valid, else
// DefaultLimit.
func Limit() int64 {
	if v, ok := ParseSize(os.Getenv(LimitEnv)); ok {
		return v
	}
	return DefaultLimit()
}

// ParseSize parses a byte count with an optional K, M, G or T suffix
// (powers of 1024, "KiB"/"KB" spellings accepted).
func ParseSize(s string) (int64, bool) {
	s = strings.TrimSpace(strings.ToUpper(s))
	if s == "" {
		return 0, false
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
	shift := 0
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		}
		if shift > 0 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, false
	}
	return n << shift, true
}

var (
	memOnce sync.Once
	memSize int64
)

// TotalMemory returns the memory available to the process in bytes: the
// smaller of physical memory and a cgroup limit (0 when unknown).
func TotalMemory() int64 {
	memOnce.Do(func() { memSize = totalMemory() })
	return memSize
}

// OpenReader opens an input for streaming: standard input for "-"
// (closing it is a no-op), else a regular file as Open checks it.
func OpenReader(path string) (io.ReadCloser, error) {
	if path == Stdin {
		return io.NopCloser(os.Stdin), nil
	}
	f, _, err := Open(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ReadFileNoFollow is ReadFileMax for a file that must itself be a regular
// file, not a symbolic link to one (a member of a directory that is packed
// as it is: a link could pull in a file from elsewhere).
func ReadFileNoFollow(path string, limit int64) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return readFileFlags(path, limit, noFollow)
}
