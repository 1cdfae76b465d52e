package neff

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"sort"
	"time"
)

// PadBlock is the multiple neuronx-cc pads a pkg_version 2 payload to.
const PadBlock = 10240

// PackOptions control Pack. The zero value packs like neuronx-cc 2.18.
type PackOptions struct {
	// HashForm for pkg_version 2 (default neuronx-cc); pkg 1 always uses
	// SHA-256.
	HashForm HashForm
	// NoPadding leaves the gzip member unpadded (other producers).
	NoPadding bool
}

// Pack writes a NEFF from a header and members, reproducibly: members
// sorted by name in a ustar archive (pax only for names ustar cannot hold),
// mtime 0, uid/gid 1000, user/group "nobody", mode 0664; for pkg_version 2
// gzip-compressed and zero-padded to a multiple of 10240 bytes. data_size
// and hash are recomputed; every other header field is kept.
func Pack(h Header, members []Member, opt PackOptions) ([]byte, error) {
	ms := append([]Member(nil), members...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	for i, m := range ms {
		name, err := CleanName(m.Name)
		if err != nil || name == "" {
			return nil, fmt.Errorf("member %q: invalid name: %v", m.Name, err)
		}
		if i > 0 && ms[i-1].Name == m.Name {
			return nil, fmt.Errorf("member %q appears twice", m.Name)
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     name,
			Size:     int64(len(m.Data)),
			Mode:     0o664,
			Uid:      1000,
			Gid:      1000,
			Uname:    "nobody",
			Gname:    "nobody",
			ModTime:  time.Unix(0, 0),
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			// A name ustar cannot represent: let the writer choose pax.
			hdr.Format = tar.FormatUnknown
			if err := tw.WriteHeader(hdr); err != nil {
				return nil, fmt.Errorf("member %q: %w", name, err)
			}
		}
		if _, err := tw.Write(m.Data); err != nil {
			return nil, fmt.Errorf("member %q: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	var payload []byte
	form := opt.HashForm
	switch h.PkgVersion {
	case 1:
		payload = tarBuf.Bytes()
		form = HashSHA256
	case 2:
		var gzBuf bytes.Buffer
		gzBuf.Grow(tarBuf.Len()/4 + PadBlock)
		zw, err := gzip.NewWriterLevel(&gzBuf, gzip.DefaultCompression)
		if err != nil {
			return nil, err
		}
		if _, err := zw.Write(tarBuf.Bytes()); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		if !opt.NoPadding {
			if r := gzBuf.Len() % PadBlock; r != 0 {
				gzBuf.Write(make([]byte, PadBlock-r))
			}
		}
		payload = gzBuf.Bytes()
		if form == "" {
			form = HashNeuronxCC
		}
		if form == HashSHA256 {
			return nil, fmt.Errorf("pkg_version 2 hashes with MD5 (forms neuronx-cc, natural-zero or natural)")
		}
	default:
		return nil, fmt.Errorf("pkg_version %d: can only pack 1 (tar) or 2 (gzip tar)", h.PkgVersion)
	}
	h.HeaderSize = HeaderSize
	h.DataSize = uint64(len(payload))
	h.Hash = ComputeHash(payload, form)
	hb, err := h.Encode()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(hb)+len(payload))
	out = append(out, hb...)
	return append(out, payload...), nil
}
