// Package neff reads, verifies, unpacks and packs AWS Neuron executables
// (NEFF): a 1024-byte little-endian header followed by a payload that is a
// tar archive, gzip-compressed for pkg_version 2 (MD5) and plain for
// pkg_version 1 (SHA-256). On top of the container it offers a typed model of
// the members (kelf graphs, subgraph def.json, engine JSONs with their DMA
// descriptors, neff.json signatures, ...), a device-memory estimate, rules
// (Check), a semantic Diff and a Builder for synthetic NEFFs.
//
// Facts come from the NEFF specification and from measurements on real files
// (shared/notes/neff.md); where they differ, real files win and both forms are
// accepted.
package neff

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// HeaderSize is the size of the fixed NEFF header.
const HeaderSize = 1024

// Header field offsets (packed, little-endian).
const (
	offPkgVersion    = 0x000
	offHeaderSize    = 0x008
	offDataSize      = 0x010
	offMajor         = 0x018
	offMinor         = 0x020
	offBuildVersion  = 0x028 // u8[128]
	offNumTPB        = 0x0A8
	offHash          = 0x0AC // u8[32]
	offUUID          = 0x0CC // u8[16]
	offName          = 0x0DC // char[256]
	offRequestedTPB  = 0x1DC
	offTPBPerNode    = 0x1E0 // u8[64]
	offFeatureBits   = 0x220
	offLNCSize       = 0x228
	offPad           = 0x22C // u8[468]
	lenBuildVersion  = 128
	lenName          = 256
	lenTPBPerNode    = 64
	lenHash          = 32
	lenUUID          = 16
	lenPad           = HeaderSize - offPad
	fieldBuildVerEnd = offBuildVersion + lenBuildVersion
)

// Header is the decoded fixed header. Byte arrays are kept verbatim so that
// a header survives a decode/encode round trip unchanged.
type Header struct {
	PkgVersion        uint64 `json:"pkg_version"`
	HeaderSize        uint64 `json:"header_size"`
	DataSize          uint64 `json:"data_size"`
	NeffVersionMajor  uint64 `json:"neff_version_major"`
	NeffVersionMinor  uint64 `json:"neff_version_minor"`
	BuildVersion      string `json:"neff_build_version"`
	NumTPB            uint32 `json:"num_tpb"`
	Hash              Bytes  `json:"hash"`
	UUID              Bytes  `json:"uuid"`
	Name              string `json:"name"`
	RequestedTPBCount uint32 `json:"requested_tpb_count"`
	TPBPerNode        Bytes  `json:"tpb_per_node"`
	FeatureBits       uint64 `json:"feature_bits"`
	LNCSize           uint32 `json:"lnc_size"`
	// Reserved is the trailing pad; omitted when all zero.
	Reserved Bytes `json:"reserved,omitempty"`
}

// Bytes is a byte string that marshals as lowercase hex.
type Bytes []byte

// MarshalText encodes b as hex.
func (b Bytes) MarshalText() ([]byte, error) {
	out := make([]byte, hex.EncodedLen(len(b)))
	hex.Encode(out, b)
	return out, nil
}

// UnmarshalText decodes hex.
func (b *Bytes) UnmarshalText(t []byte) error {
	v := make([]byte, hex.DecodedLen(len(t)))
	if _, err := hex.Decode(v, t); err != nil {
		return err
	}
	*b = v
	return nil
}

// String returns the hex form.
func (b Bytes) String() string { return hex.EncodeToString(b) }

// ParseHeader decodes the first HeaderSize bytes of b.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("offset 0: NEFF header needs %d bytes, have %d", HeaderSize, len(b))
	}
	le := binary.LittleEndian
	h := Header{
		PkgVersion:        le.Uint64(b[offPkgVersion:]),
		HeaderSize:        le.Uint64(b[offHeaderSize:]),
		DataSize:          le.Uint64(b[offDataSize:]),
		NeffVersionMajor:  le.Uint64(b[offMajor:]),
		NeffVersionMinor:  le.Uint64(b[offMinor:]),
		BuildVersion:      cString(b[offBuildVersion:fieldBuildVerEnd]),
		NumTPB:            le.Uint32(b[offNumTPB:]),
		Hash:              clone(b[offHash : offHash+lenHash]),
		UUID:              clone(b[offUUID : offUUID+lenUUID]),
		Name:              cString(b[offName : offName+lenName]),
		RequestedTPBCount: le.Uint32(b[offRequestedTPB:]),
		TPBPerNode:        clone(b[offTPBPerNode : offTPBPerNode+lenTPBPerNode]),
		FeatureBits:       le.Uint64(b[offFeatureBits:]),
		LNCSize:           le.Uint32(b[offLNCSize:]),
	}
	if pad := b[offPad:HeaderSize]; !allZero(pad) {
		h.Reserved = clone(pad)
	}
	return h, nil
}

// Encode returns the 1024-byte header. Strings longer than their field are
// an error (they would be truncated silently otherwise).
func (h Header) Encode() ([]byte, error) {
	b := make([]byte, HeaderSize)
	le := binary.LittleEndian
	le.PutUint64(b[offPkgVersion:], h.PkgVersion)
	le.PutUint64(b[offHeaderSize:], h.HeaderSize)
	le.PutUint64(b[offDataSize:], h.DataSize)
	le.PutUint64(b[offMajor:], h.NeffVersionMajor)
	le.PutUint64(b[offMinor:], h.NeffVersionMinor)
	if err := putField(b[offBuildVersion:fieldBuildVerEnd], []byte(h.BuildVersion), "neff_build_version", true); err != nil {
		return nil, err
	}
	le.PutUint32(b[offNumTPB:], h.NumTPB)
	if err := putField(b[offHash:offHash+lenHash], h.Hash, "hash", false); err != nil {
		return nil, err
	}
	if err := putField(b[offUUID:offUUID+lenUUID], h.UUID, "uuid", false); err != nil {
		return nil, err
	}
	if err := putField(b[offName:offName+lenName], []byte(h.Name), "name", true); err != nil {
		return nil, err
	}
	le.PutUint32(b[offRequestedTPB:], h.RequestedTPBCount)
	if err := putField(b[offTPBPerNode:offTPBPerNode+lenTPBPerNode], h.TPBPerNode, "tpb_per_node", false); err != nil {
		return nil, err
	}
	le.PutUint64(b[offFeatureBits:], h.FeatureBits)
	le.PutUint32(b[offLNCSize:], h.LNCSize)
	if err := putField(b[offPad:HeaderSize], h.Reserved, "reserved", false); err != nil {
		return nil, err
	}
	return b, nil
}

func putField(dst, v []byte, name string, str bool) error {
	if len(v) > len(dst) {
		return fmt.Errorf("header field %s: %d bytes do not fit in %d", name, len(v), len(dst))
	}
	copy(dst, v)
	return nil
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func clone(b []byte) Bytes { return append(Bytes(nil), b...) }

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
