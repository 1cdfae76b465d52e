// Package atomicfile writes files and directories so that a failed command
// leaves no partial output: content goes to a temporary name in the same
// directory and is renamed into place only when complete.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
func Write(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Dir builds a directory atomically: fill writes into a fresh temporary
// directory beside path, which replaces path only when fill succeeds. An
// existing non-empty path is refused unless replace is set.
func Dir(path string, replace bool, fill func(tmp string) error) (err error) {
	path = filepath.Clean(path)
	if st, err := os.Stat(path); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", path)
		}
		entries, _ := os.ReadDir(path)
		if len(entries) > 0 && !replace {
			return fmt.Errorf("%s exists and is not empty (use --force to replace it)", path)
		}
	}
	parent := filepath.Dir(path)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if _, statErr := os.Stat(path); statErr == nil {
		old := tmp + ".old"
		if err = os.Rename(path, old); err != nil {
			return err
		}
		if err = os.Rename(tmp, path); err != nil {
			os.Rename(old, path)
			return err
		}
		return os.RemoveAll(old)
	}
	return os.Rename(tmp, path)
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
