// Package atomicfile writes files and directories so that a failed command
// leaves no partial output: content goes to a temporary name in the same
// directory and is renamed into place only when complete.
//
// What the user did not name and allow is never deleted or replaced: a
// directory is replaced only when the caller says so (--force), and the
// check is made again at the moment of the rename; a path that is a device,
// a FIFO or a symbolic link is written through, never renamed over; the
// process umask applies to what is created; temporary names still present
// when the process is interrupted are removed by RemoveTemps.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write calls fill with a buffered writer on a temporary file and renames
// it to path when fill succeeds; on any error the temporary file is
// removed. The buffer matters: writers such as npyio's write element by
// element (a 64 MiB .npy was 16 million write calls).
//
// perm applies, less the umask, to a file Write creates; a regular file
// that exists keeps its mode. A symbolic link is followed and its target
// replaced (the link stays); a character device or FIFO (/dev/null,
// /dev/stdout, a named pipe) is written through in place; a directory or
// socket is refused.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	if path == "" {
		return errors.New("empty output path")
	}
	mode := perm.Perm() &^ Umask()
	if st, lerr := os.Lstat(path); lerr == nil {
		if st.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				return fmt.Errorf("%s is a symbolic link that does not resolve: %w", path, err)
			}
			path = target
			if st, err = os.Stat(target); err != nil {
				return err
			}
		}
		switch m := st.Mode(); {
		case m.IsRegular():
			mode = m.Perm()
		case m.IsDir():
			return fmt.Errorf("%s is a directory", path)
		case m&(fs.ModeCharDevice|fs.ModeDevice|fs.ModeNamedPipe) != 0:
			return writeThrough(path, fill)
		default:
			return fmt.Errorf("%s exists and is not a regular file (%s); refusing to replace it", path, m.Type())
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var f *os.File
	tmp, err := newTemp(func() (string, error) {
		var err error
		f, err = os.CreateTemp(dir, "."+base+".tmp-*")
		if err != nil {
			return "", err
		}
		return f.Name(), nil
	})
	if err != nil {
		return tempErr(err, path)
	}
	defer untrack(tmp)
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		return outputErr(err, tmp, path)
	}
	if err = bw.Flush(); err != nil {
		return outputErr(err, tmp, path)
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return outputErr(err, tmp, path)
	}
	return commit(func() error { return os.Rename(tmp, path) }, tmp)
}

// writeThrough writes to a device or FIFO in place: there is nothing to
// make atomic, and renaming over it would replace the node.
func writeThrough(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Dir builds a directory atomically: fill writes into a fresh temporary
// directory beside path, which replaces path only when fill succeeds. An
// existing non-empty path is refused unless replace is set, both before
// fill runs and when the result is renamed into place (a directory that
// appeared meanwhile is not replaced either: the rename itself refuses a
// non-empty target).
func Dir(path string, replace bool, fill func(tmp string) error) (err error) {
	path = filepath.Clean(path)
	if err := checkDirTarget(path, replace); err != nil {
		return err
	}
	parent := filepath.Dir(path)
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return err
	}
	tmp, err := newTemp(func() (string, error) { return os.MkdirTemp(parent, "."+filepath.Base(path)+".tmp-*") })
	if err != nil {
		return tempErr(err, path)
	}
	defer untrack(tmp)
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err = fill(tmp); err != nil {
		return outputErr(err, tmp, path)
	}
	if err = os.Chmod(tmp, 0o777&^Umask()); err != nil {
		return err
	}
	if !replace {
		// rename(2) replaces only an empty directory; anything else that
		// appeared at path while fill ran makes it fail.
		if err = commit(func() error { return os.Rename(tmp, path) }, tmp); err != nil {
			if cerr := checkDirTarget(path, false); cerr != nil {
				return fmt.Errorf("%w (it appeared while writing)", cerr)
			}
			return err
		}
		return nil
	}
	if err = checkDirTarget(path, true); err != nil {
		return err
	}
	if _, statErr := os.Lstat(path); statErr == nil {
		// The old directory steps aside and the new one takes its name
		// as one step for a signal: RemoveTemps waits for both renames
		// (or the undoing of the first), so an interruption never finds
		// the old directory aside and the new one not yet in place, and
		// removes at worst the old one once the new one is there.
		old := tmp + ".old"
		err = commit(func() error {
			if err := os.Rename(path, old); err != nil {
				return err
			}
			temps[old] = true
			if testBetweenRenames != nil {
				testBetweenRenames()
			}
			if err := os.Rename(tmp, path); err != nil {
				if os.Rename(old, path) == nil {
					delete(temps, old)
				}
				return err
			}
			return nil
		}, tmp)
		if err != nil {
			return err
		}
		defer untrack(old)
		return os.RemoveAll(old)
	}
	return commit(func() error { return os.Rename(tmp, path) }, tmp)
}

// outputErr names the output in an error about its temporary (a full disk
// said "write /d/.out.tmp-123/x: no space left on device").
func outputErr(err error, tmp, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && (pe.Path == tmp || strings.HasPrefix(pe.Path, tmp+string(filepath.Separator))) {
		named := *pe
		named.Path = path + strings.TrimPrefix(pe.Path, tmp)
		if pe.Err == syscall.ENOSPC {
			return fmt.Errorf("writing %s: %w", path, &named)
		}
		return &named
	}
	return err
}

// tempErr names the output in an error creating its temporary: a missing
// directory said "open /d/.out.tmp-123: no such file or directory".
func tempErr(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "create", Path: path, Err: pe.Err}
	}
	return err
}

// errInterrupted is a result not put in place because the process is
// being interrupted.
var errInterrupted = errors.New("interrupted")

// commit runs the renames that put a result in place, unless the process
// is being interrupted, and stops tracking tmp once it has been renamed: a
// signal's RemoveTemps runs entirely before or entirely after it.
func commit(rename func() error, tmp string) error {
	tempsMu.Lock()
	defer tempsMu.Unlock()
	if interrupted {
		return errInterrupted
	}
	if err := rename(); err != nil {
		return err
	}
	delete(temps, tmp)
	return nil
}

// testBetweenRenames, when set by a test, runs between the two renames of
// a directory replacement.
var testBetweenRenames func()

// checkDirTarget refuses a path that is not a directory, or that is a
// non-empty directory when replace is not set.
func checkDirTarget(path string, replace bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", path)
	}
	if replace {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if names, _ := f.Readdirnames(1); len(names) > 0 {
		return fmt.Errorf("%s exists and is not empty (use --force to replace it)", path)
	}
	return nil
}

// Join joins a relative member name under root and refuses names that are
// absolute or escape root (zip-slip), so unpackers never write outside
// their target directory.
func Join(root, name string) (string, error) {
	if name == "" || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("unsafe path %q: absolute or empty", name)
	}
	clean := filepath.Clean(filepath.FromSlash(name))
	if clean == ".." || len(clean) >= 3 && clean[:3] == ".."+string(filepath.Separator) {
		return "", fmt.Errorf("unsafe path %q: escapes the target directory", name)
	}
	return filepath.Join(root, clean), nil
}

var (
	tempsMu sync.Mutex
	temps   = map[string]bool{}
	// interrupted: Interrupt was called; nothing more is put in place
	interrupted bool
)

// newTemp makes a temporary (file or directory) and tracks it as one
// step for a signal: one made after Interrupt, or between its making and
// its tracking, would be left behind.
func newTemp(create func() (string, error)) (string, error) {
	tempsMu.Lock()
	defer tempsMu.Unlock()
	if interrupted {
		return "", errInterrupted
	}
	p, err := create()
	if err != nil {
		return "", err
	}
	temps[p] = true
	return p, nil
}

func untrack(p string) {
	tempsMu.Lock()
	delete(temps, p)
	tempsMu.Unlock()
}

// RemoveTemps removes the temporary files and directories of writes still
// in progress; a program calls it when interrupted (SIGINT, SIGTERM),
// before exiting, so no hidden .NAME.tmp-* is left behind. It returns the
// number removed.
func RemoveTemps() int {
	tempsMu.Lock()
	defer tempsMu.Unlock()
	return removeTemps()
}

func removeTemps() int {
	n := 0
	for p := range temps {
		if removeAll(p) {
			n++
		}
		delete(temps, p)
	}
	return n
}

// removeAll removes p even while another goroutine still writes into it
// (a fill creating files as the directory is emptied): it tries again
// until p is gone, a bounded number of times.
func removeAll(p string) bool {
	for range 20 {
		os.RemoveAll(p)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// Interrupt is what a program does on SIGINT, SIGTERM or SIGHUP before it
// exits: no result is put in place any more (a write finishing meanwhile
// fails), the temporaries are removed, and a directory replacement in
// progress completes or is undone first, so the old and new directories
// are never both lost. It keeps the temporaries' lock: the program is
// expected to exit at once.
func Interrupt() int {
	tempsMu.Lock()
	interrupted = true
	return removeTemps()
}

var (
	umaskOnce sync.Once
	umask     os.FileMode
)

// Umask returns the process's file mode creation mask (0 where the system
// has none).
func Umask() os.FileMode {
	umaskOnce.Do(func() { umask = readUmask() })
	return umask
}
