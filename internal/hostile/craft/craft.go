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

// NKIKernel is a crafted NKI kernel source: Python that attacks the
// interpreter (issue 39), with the exit codes `nki check` may give.
type NKIKernel struct {
	Name   string
	Source string
	Exits  []int
}

// NKIKernels returns kernels whose Python overflows a naive interpreter's
// stack, exhausts its memory or hangs it; full adds the sizes (a
// 7.8 MB operator chain).
func NKIKernels(full bool) []NKIKernel {
	const head = "import neuronxcc.nki.language as nl\n\ndef kernel():\n"
	k := func(name, body string, exits ...int) NKIKernel {
		var b strings.Builder
		b.WriteString(head)
		for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
			b.WriteString("    " + l + "\n")
		}
		b.WriteString("    return\n")
		if exits == nil {
			exits = []int{2} // refused, naming the line
		}
		return NKIKernel{Name: name, Source: b.String(), Exits: exits}
	}
	chain := 200_000
	if full {
		chain = 3_900_000 // 7.8 MB, under the 8 MiB source cap
	}
	ks := []NKIKernel{
		// what Python prints: these trace (exit 0, or 1 for findings)
		k("cyclic list printed", "a = []\na.append(a)\ns = str(a) + f'{a}'\nassert s == '[[...]][[...]]'", 0, 1),
		k("cyclic dict printed", "d = {}\nd['d'] = d\ns = repr(d)", 0, 1),
		// a RecursionError as in Python, uncaught: refused
		k("cyclic lists compared", "a = []\na.append(a)\nb = []\nb.append(b)\nx = a == b", 1, 2),
		k("cyclic assert message", "a = []\na.append(a)\nassert False, a", 1, 2),
		k("deep nesting printed", "x = []\nfor i in range(3000000):\n    x = [x]\ns = str(x)", 1, 2),
		k("deep tuple hashed", "x = ()\nfor i in range(3000000):\n    x = (x,)\nd = {x: 1}", 1, 2),
		k("operator chain", "x = "+strings.Repeat("1+", chain)+"1"),
		k("attribute chain", "x = nl"+strings.Repeat(".a", chain)),
		k("call chain", "x = len"+strings.Repeat("()", chain)),
		k("subscript chain", "x = [0]"+strings.Repeat("[0]", chain)),
		k("replace blow-up", "s = 'a' * (16 << 20)\nt = s.replace('a', s)"),
		k("string doubling", "s = 'ab'\nwhile True:\n    s = s + s"),
		k("join blow-up", "s = 'a' * (1 << 24)\nt = ''.join([s] * 1000)"),
		k("wide f-string fields", "s = ''\nwhile True:\n    s = f'{s:>{len(s) * 2 + 1}}'"),
		k("dict of big keys", "d = {}\nfor i in range(100000):\n    d['x' * (1 << 20) + str(i)] = i"),
		k("sum of lists", "x = sum([[0] * 1000] * 1000000, [])"),
		k("str of a large list", "a = [123456789] * 4000000\nparts = []\nfor i in range(100):\n    parts.append(str(a))"),
		k("empty list repeated", "x = [] * 10**18\nassert x == []", 0, 1),
		k("pop(0)", "a = list(range(4000000))\nwhile a:\n    a.pop(0)"),
		k("shared tuples compared", "a = (1,)\nb = (1,)\nfor i in range(100):\n    a = (a, a)\n    b = (b, b)\nx = a == b"),
		k("string repeat overflow", "x = 'ab' * 2**62"),
		k("list repeat overflow", "x = [0, 0, 0, 0] * 2**62"),
		k("integer wraparound", "x = 2**64\nassert x != 0"),
		// millions of small objects kept: each costs steps by its size
		k("closures kept", "fs = []\nfor i in range(4000000):\n    fs.append(lambda: 0)"),
		k("dicts kept", "ds = []\nfor i in range(4000000):\n    ds.append({})"),
		k("lists kept", "ls = []\nfor i in range(4000000):\n    ls.append([i])"),
	}
	return ks
}
