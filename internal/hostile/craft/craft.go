// Package craft generates hostile inputs of the formats (NEFF, Edge TPU)
// for tests and the harness; package hostile holds the format-free ones,
// which the format packages' own tests can import without a cycle.
package craft

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"time"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/neff"
)

// NEFFMember kinds for NEFFBigMember.
const (
	ZeroMember = iota // a binary member of zeros
	JSONMember        // a JSON array of zeros: the member parses
)

// NEFFBigMember returns a valid NEFF (gzip tar, right hash) whose
// sg00/def.json-declared subgraph has one extra member of size bytes
// that compresses about 1000:1, generated while compressing: the file is
// about size/1000 bytes and nothing of size is ever held in memory.
func NEFFBigMember(size int64, kind int) []byte {
	b := neff.NewBuilder("big.neff")
	b.Subgraph("sg00").AddVar("x", "input", 16)
	ms, err := b.Members()
	if err != nil {
		panic(err)
	}
	name := "sg00/big.bin"
	if kind == JSONMember {
		name = "sg00/tensor_map.json"
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	hdr := func(n string, size int64) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: n, Size: size, Mode: 0o664, ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR})
	}
	for _, m := range ms {
		hdr(m.Name, int64(len(m.Data)))
		tw.Write(m.Data)
	}
	hdr(name, size)
	if kind == JSONMember {
		// {"a":[0,0,...,0]} padded with spaces to size bytes.
		body := size - int64(len(`{"a":[0]}`))
		io.WriteString(tw, `{"a":[0`)
		n := body / 2
		io.Copy(tw, io.LimitReader(repeat(",0"), 2*n))
		io.WriteString(tw, `]}`)
		io.Copy(tw, io.LimitReader(repeat(" "), body-2*n))
	} else {
		io.Copy(tw, io.LimitReader(repeat("\x00"), size))
	}
	tw.Close()
	zw.Close()
	if r := gz.Len() % neff.PadBlock; r != 0 {
		gz.Write(make([]byte, neff.PadBlock-r))
	}
	h := b.Header
	h.DataSize = uint64(gz.Len())
	h.Hash = neff.ComputeHash(gz.Bytes(), neff.HashNeuronxCC)
	hb, err := h.Encode()
	if err != nil {
		panic(err)
	}
	return append(hb, gz.Bytes()...)
}

// repeat is an endless reader of s.
func repeat(s string) io.Reader { return &repeater{s: s} }

type repeater struct {
	s string
	i int
}

func (r *repeater) Read(p []byte) (int, error) {
	for n := range p {
		p[n] = r.s[r.i]
		r.i = (r.i + 1) % len(r.s)
	}
	return len(p), nil
}

// EdgeTPUCustomOptions returns the demo Edge TPU model with its custom
// operator's options replaced by opts (written as they are).
func EdgeTPUCustomOptions(opts []byte) ([]byte, error) {
	m := edgetpu.Synthetic(edgetpu.DemoSpec())
	for si := range m.TFLite.Subgraphs {
		for oi := range m.TFLite.Subgraphs[si].Operators {
			m.TFLite.Subgraphs[si].Operators[oi].CustomOptions = opts
		}
	}
	m.Ops = nil
	return edgetpu.Write(m)
}

// NEFFNames returns a NEFF whose variable, queue and file names carry
// terminal escapes, newlines and long bytes (extra bytes each).
func NEFFNames(extra int) ([]byte, error) {
	evil := "evil\x1b[2J\x1b]0;owned\x07\n" + strings.Repeat("v", extra)
	b := neff.NewBuilder("names.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar(evil, "input", 16)
	sg.AddVar("y", "output", 16)
	sg.AddQueue("q\x1b[31m", "in", 16, "sp")
	sg.Engine("sp", "SP").AddDMA("q\x1b[31m", "load", neff.Copy(evil, 0, []int64{16}, []int64{1}, "y", 0, []int64{16}, []int64{1}))
	return b.Bytes(neff.PackOptions{})
}

// NEFFVarSize returns a NEFF declaring an input variable of size bytes
// that its DMA program reads.
func NEFFVarSize(size int64) ([]byte, error) {
	b := neff.NewBuilder("var.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", size)
	sg.AddVar("y", "output", 16)
	sg.AddQueue("q", "in", 16, "sp")
	sg.Engine("sp", "SP").AddDMA("q", "load", neff.Copy("x", 0, []int64{16}, []int64{1}, "y", 0, []int64{16}, []int64{1}))
	return b.Bytes(neff.PackOptions{})
}

// EdgeTPUSharedBitstreams returns the demo Edge TPU model whose every
// executable lists n instruction chunks that all reference one stored
// bitstream of size bytes, with the demo's relocations (flatbuffer vectors
// may be shared): the file grows by a few bytes per reference while a
// reader, linker or extractor that copies per reference grows by the whole
// chunk.
func EdgeTPUSharedBitstreams(n, size int) ([]byte, error) {
	m := edgetpu.Synthetic(edgetpu.DemoSpec())
	for _, op := range m.Ops {
		for _, p := range op.Packages {
			for _, e := range p.Executables {
				if len(e.Bitstreams) == 0 {
					continue
				}
				bs := e.Bitstreams[0]
				if size > len(bs.Data) {
					bs.Data = append(bs.Data, make([]byte, size-len(bs.Data))...)
				}
				e.Bitstreams = make([]edgetpu.Bitstream, n)
				for i := range e.Bitstreams {
					e.Bitstreams[i] = bs
				}
			}
		}
	}
	return edgetpu.Write(m)
}
