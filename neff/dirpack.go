package neff

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
)

// Unpacked is what Unpack wrote, as `npukit neff unpack` reports it.
type Unpacked struct {
	Dir      string         `json:"dir"`
	HashForm HashForm       `json:"hash_form"`
	HashOK   bool           `json:"hash_ok"`
	Payload  Payload        `json:"payload"`
	Tar      TarInfo        `json:"tar"`
	Files    []UnpackedFile `json:"files"`
	Total    int64          `json:"total_bytes"`
}

// UnpackReport unpacks f into dir (Unpack) and reports what was written.
func UnpackReport(f *File, dir string, replace bool) (*Unpacked, error) {
	files, err := Unpack(f, dir, replace)
	if err != nil {
		return nil, err
	}
	o := &Unpacked{Dir: dir, HashForm: f.Hash.Form, HashOK: f.Hash.OK, Files: files, Payload: f.Payload, Tar: f.Tar}
	for _, x := range files {
		o.Total += x.Bytes
	}
	return o, nil
}

// WriteText lists the files written with their sizes.
func (o *Unpacked) WriteText(w io.Writer) error {
	hash := "hash ok"
	if !o.HashOK {
		hash = "HASH MISMATCH (npukit check explains)"
	}
	fmt.Fprintf(w, "Unpacked %s (%s) into %s; %s, %s form\n", humanize.Plural(len(o.Files), "file"), humanize.Bytes(o.Total), o.Dir, hash, o.HashForm)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FILE\tSIZE")
	for _, f := range o.Files {
		fmt.Fprintf(tw, "  %s\t%s\n", f.Name, humanize.Bytes(f.Bytes))
	}
	return tw.Flush()
}

// Packed is what PackDir built, as `npukit neff pack` reports it.
type Packed struct {
	Output   string   `json:"output"` // where the caller wrote it
	Members  int      `json:"members"`
	Bytes    int64    `json:"bytes"`
	DataSize uint64   `json:"data_size"`
	HashForm HashForm `json:"hash_form"`
	Hash     Bytes    `json:"hash"`
}

// PackDir builds a NEFF from a directory Unpack wrote: the header from
// header.json, every other regular file a member, in the hash form and
// padding header.json records unless adjust changes them.
func PackDir(dir string, lim Limits, adjust func(*PackOptions)) ([]byte, *Packed, error) {
	hj, ms, err := ReadDir(dir, lim)
	if err != nil {
		return nil, nil, err
	}
	opt := hj.PackOptions()
	if adjust != nil {
		adjust(&opt)
	}
	raw, err := Pack(hj.Header, ms, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", dir, err)
	}
	h, err := ParseHeader(raw)
	if err != nil {
		return nil, nil, err
	}
	hf := opt.HashForm
	if hj.PkgVersion == 1 {
		hf = HashSHA256
	}
	return raw, &Packed{Members: len(ms), Bytes: int64(len(raw)), DataSize: h.DataSize, HashForm: hf, Hash: h.Hash}, nil
}

// WriteText says what was packed and where.
func (o *Packed) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "Packed %s into %s (%s, data_size %d, %s hash %s)\n", humanize.Plural(o.Members, "member"), o.Output, humanize.Bytes(o.Bytes), o.DataSize, o.HashForm, o.Hash)
	return err
}
