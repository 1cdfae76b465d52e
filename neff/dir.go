package neff

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/inputfile"
)

// HeaderFileName is the file Unpack writes the header to, beside the
// members; Pack reads the header fields back from it.
const HeaderFileName = "header.json"

// HeaderJSON is the content of header.json: every header field, plus the
// hash form and padding found in the unpacked file. Pack recomputes
// data_size and the hash; PackOptions gives the form and padding to
// reproduce, so that unpack -> pack keeps a file's own storage form.
type HeaderJSON struct {
	Header
	HashForm HashForm `json:"hash_form,omitempty"`
	Padded   bool     `json:"padded,omitempty"`
}

// PackOptions returns the options that reproduce the unpacked file: its
// hash form and whether its gzip payload was zero-padded. A header.json
// without a hash form (written by hand, or by another tool) gets
// neuronx-cc's conventions: the neuronx-cc MD5 form, padded.
func (hj HeaderJSON) PackOptions() PackOptions {
	if hj.HashForm == "" || hj.HashForm == HashSHA256 && hj.PkgVersion != 1 {
		return PackOptions{HashForm: HashNeuronxCC}
	}
	return PackOptions{HashForm: hj.HashForm, NoPadding: !hj.Padded}
}

// UnpackedFile is one file written by Unpack.
type UnpackedFile struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// Unpack writes every member of f under dir (members keep their tar
// paths) and the header to dir/header.json. dir is built atomically: it
// appears complete or not at all, and an existing non-empty dir is
// replaced only when replace is set. Names were validated by Read;
// atomicfile.Join refuses anything escaping dir once more.
func Unpack(f *File, dir string, replace bool) ([]UnpackedFile, error) {
	hj := HeaderJSON{Header: f.Header, HashForm: f.Hash.Form, Padded: f.Payload.Padding > 0}
	hb, err := json.MarshalIndent(hj, "", "  ")
	if err != nil {
		return nil, err
	}
	hb = append(hb, '\n')
	out := []UnpackedFile{{Name: HeaderFileName, Bytes: int64(len(hb))}}
	for _, m := range f.Members {
		if m.Name == HeaderFileName {
			return nil, fmt.Errorf("member %q would collide with the header file unpack writes", m.Name)
		}
		out = append(out, UnpackedFile{Name: m.Name, Bytes: int64(len(m.Data))})
	}
	err = atomicfile.Dir(dir, replace, func(tmp string) error {
		if err := os.WriteFile(filepath.Join(tmp, HeaderFileName), hb, 0o644); err != nil {
			return err
		}
		made := map[string]bool{}
		for _, m := range f.Members {
			p, err := atomicfile.Join(tmp, m.Name)
			if err != nil {
				return fmt.Errorf("member %q: %w", m.Name, err)
			}
			if d := filepath.Dir(p); !made[d] {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
				made[d] = true
			}
			if err := os.WriteFile(p, m.Data, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadDir reads a directory written by Unpack (or by hand): header.json
// and every regular file below dir as a member, named by its slash path.
// Links and other non-regular files are refused, and the total size is
// checked against lim before any file is read.
func ReadDir(dir string, lim Limits) (HeaderJSON, []Member, error) {
	var hj HeaderJSON
	hb, err := inputfile.ReadFileNoFollow(filepath.Join(dir, HeaderFileName), maxHeaderJSON)
	if err != nil {
		return hj, nil, fmt.Errorf("%s: %w (unpack writes it; pack needs the header fields)", HeaderFileName, err)
	}
	if err := json.Unmarshal(hb, &hj); err != nil {
		return hj, nil, fmt.Errorf("%s: %w", filepath.Join(dir, HeaderFileName), err)
	}
	ms, err := readMembers(dir, lim)
	return hj, ms, err
}

// OpenDir decodes an unpacked NEFF directory (see detect.NEFFDir): the
// members below dir, and the header from header.json when present (a
// directory extracted with tar has none; the header is then zero). There
// is no payload, so no hash to verify.
func OpenDir(dir string, lim Limits) (*Model, error) {
	var hj HeaderJSON
	if hb, err := inputfile.ReadFileNoFollow(filepath.Join(dir, HeaderFileName), maxHeaderJSON); err == nil {
		if err := json.Unmarshal(hb, &hj); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, HeaderFileName), err)
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	ms, err := readMembers(dir, lim)
	if err != nil {
		return nil, err
	}
	f := &File{Header: hj.Header, Members: ms, Hash: HashCheck{OK: true, Form: hj.HashForm, Unchecked: true}, jsonValues: lim.JSONValues()}
	return Decode(f), nil
}

// maxHeaderJSON bounds header.json: unpack writes about 600 bytes.
const maxHeaderJSON = 1 << 20

func readMembers(dir string, lim Limits) ([]Member, error) {
	type entry struct {
		name, path string
		size       int64
	}
	var entries []entry
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if d.IsDir() || name == HeaderFileName {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file (links and devices are not packed)", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if _, err := CleanName(name); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		total += info.Size()
		if total > lim.MaxDecompressed {
			return fmt.Errorf("%s: members exceed the %d-byte limit", dir, lim.MaxDecompressed)
		}
		if len(entries) >= lim.MaxMembers {
			return fmt.Errorf("%s: more than %d members", dir, lim.MaxMembers)
		}
		entries = append(entries, entry{name, p, info.Size()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	ms := make([]Member, 0, len(entries))
	for _, e := range entries {
		data, err := inputfile.ReadFileNoFollow(e.path, e.size)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Member{Name: e.name, Data: data, Mode: 0o664, Uid: 1000, Gid: 1000, Uname: "nobody", Gname: "nobody"})
	}
	return ms, nil
}
