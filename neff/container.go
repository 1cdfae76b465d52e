package neff

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/inputfile"
)

// Limits bound what reading a NEFF may allocate. Declared sizes are checked
// against them (and against the input size) before any allocation.
type Limits struct {
	// MaxDecompressed caps the total bytes of all tar members.
	MaxDecompressed int64
	// MaxMembers caps the number of tar entries.
	MaxMembers int
}

// DefaultLimits allows an eighth of the machine's memory of members (at
// least 256 MiB, at most 4 GiB: the runtime's def.json parser limit) and
// one million entries. Reading holds the members once and, while a member
// grows, part of it twice; parsed JSON is bounded by JSONValues. Peak
// memory stays within about 3x MaxDecompressed plus the input.
func DefaultLimits() Limits {
	limit := int64(4 << 30)
	if m := inputfile.TotalMemory(); m > 0 {
		limit = min(limit, max(m/8, 256<<20))
	}
	return Limits{MaxDecompressed: limit, MaxMembers: 1 << 20}
}

// JSONValues is the most values (scalars, arrays, objects) one JSON member
// may hold: one per 64 bytes of MaxDecompressed. A parsed value takes up
// to about 48 bytes, so parsing stays under MaxDecompressed whatever the
// member (a 256 MB array of zeros took 10 GB); real members hold one value
// per 5 to 30 bytes, far below.
func (l Limits) JSONValues() int64 { return max(l.MaxDecompressed/64, 1<<16) }

// FormatError is a structural problem that stops reading. Rule is the
// diagnostic rule it corresponds to; Offset is a byte offset in the file
// (or -1) and Member a tar member name when the problem is inside the tar.
type FormatError struct {
	Rule   string
	Offset int64
	Member string
	Msg    string
}

func (e *FormatError) Error() string {
	var b strings.Builder
	if e.Member != "" {
		fmt.Fprintf(&b, "tar member %q: ", e.Member)
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, "offset %d: ", e.Offset)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func formatErr(rule string, off int64, member, f string, args ...any) error {
	return &FormatError{Rule: rule, Offset: off, Member: member, Msg: fmt.Sprintf(f, args...)}
}

// Member is one regular file of the tar payload.
type Member struct {
	Name  string `json:"name"`
	Data  []byte `json:"-"`
	Mode  int64  `json:"mode"`
	Uid   int    `json:"uid"`
	Gid   int    `json:"gid"`
	Uname string `json:"uname,omitempty"`
	Gname string `json:"gname,omitempty"`
	// ModTime is Unix seconds.
	ModTime int64 `json:"mtime"`
}

// Payload describes the framing of the data after the header.
type Payload struct {
	Compressed bool `json:"compressed"`
	// Stored is data_size (payload bytes in the file, padding included).
	Stored int64 `json:"stored_bytes"`
	// Content is the length of the gzip member (or tar) inside Stored.
	Content int64 `json:"content_bytes"`
	// Padding is Stored - Content; PaddingNonZero reports a non-zero byte.
	Padding        int64 `json:"padding_bytes"`
	PaddingNonZero bool  `json:"padding_nonzero,omitempty"`
	// Trailing counts file bytes after header + data_size.
	Trailing int64 `json:"trailing_bytes,omitempty"`
	// Uncompressed is the tar stream length.
	Uncompressed int64 `json:"uncompressed_bytes"`
}

// TarInfo records producer variants of the tar stream.
type TarInfo struct {
	Formats    []string `json:"formats"` // ustar, gnu, pax (sorted)
	DirEntries int      `json:"dir_entries,omitempty"`
	DotSlash   bool     `json:"dot_slash,omitempty"`
	Sorted     bool     `json:"sorted"`
}

// File is a NEFF container: header, payload framing and members.
type File struct {
	Header  Header    `json:"header"`
	Hash    HashCheck `json:"hash"`
	Payload Payload   `json:"payload"`
	Tar     TarInfo   `json:"tar"`
	Members []Member  `json:"members"`

	index map[string]int
	// trees holds the JSON members parsed while the rest of the payload
	// was still being inflated (see Read); Decode uses them.
	trees map[string]treeResult
	// jsonValues bounds each JSON member's values (Limits.JSONValues).
	jsonValues int64
}

type treeResult struct {
	data []byte // the bytes parsed (a member whose Data changed is parsed again)
	tree any
	dups []DuplicateKey
	err  error
}

// jsonTree returns the pre-parsed tree of a member, if Read made one from
// the member's current data.
func (f *File) jsonTree(m *Member) (treeResult, bool) {
	if f == nil {
		return treeResult{}, false
	}
	r, ok := f.trees[m.Name]
	if !ok || len(r.data) != len(m.Data) || len(m.Data) == 0 || &r.data[0] != &m.Data[0] {
		return treeResult{}, false
	}
	return r, true
}

// Member returns the member with the given name (without "./").
func (f *File) Member(name string) (*Member, bool) {
	if f.index == nil {
		f.index = make(map[string]int, len(f.Members))
		for i, m := range f.Members {
			f.index[m.Name] = i
		}
	}
	i, ok := f.index[name]
	if !ok {
		return nil, false
	}
	return &f.Members[i], true
}

// ReadFile reads a NEFF file with default limits.
func ReadFile(name string) (*File, error) {
	b, err := inputfile.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Read(b, DefaultLimits())
}

// Read decodes a whole NEFF. A wrong hash is not an error (see File.Hash);
// framing and tar problems are *FormatError.
func Read(b []byte, lim Limits) (*File, error) { return read(b, lim, false) }

// read is Read; with parseJSON (for callers that decode the model next)
// and a second CPU, JSON members are parsed while inflating goes on.
func read(b []byte, lim Limits, parseJSON bool) (*File, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return nil, formatErr(RuleHeaderTruncated, 0, "", "%v", err)
	}
	size := uint64(len(b))
	if h.PkgVersion != 1 && h.PkgVersion != 2 {
		return nil, formatErr(RulePkgVersion, offPkgVersion, "", "pkg_version %d is not 1 (tar or gzip tar + SHA-256) or 2 (gzip tar + MD5)", h.PkgVersion)
	}
	if h.HeaderSize != HeaderSize {
		return nil, formatErr(RuleHeaderSize, offHeaderSize, "", "header_size %d, want %d", h.HeaderSize, HeaderSize)
	}
	if h.DataSize > size-HeaderSize {
		return nil, formatErr(RuleDataSize, offDataSize, "", "data_size %d exceeds the %d bytes after the header", h.DataSize, size-HeaderSize)
	}
	data := b[HeaderSize : HeaderSize+h.DataSize]
	f := &File{Header: h, jsonValues: lim.JSONValues()}
	// The hash covers the stored bytes: with a second CPU it is computed
	// while the payload is inflated.
	hashed := make(chan HashCheck, 1)
	if runtime.GOMAXPROCS(0) > 1 {
		go func() { hashed <- VerifyHash(h, data) }()
	} else {
		hashed <- VerifyHash(h, data)
	}
	f.Payload.Stored = int64(h.DataSize)
	f.Payload.Trailing = int64(size - HeaderSize - h.DataSize)
	var tr io.Reader
	var gz *gzip.Reader
	// gzip reads a bytes.Reader (an io.ByteReader) without read-ahead, so
	// what it consumed tells where the gzip member ends.
	cr := bytes.NewReader(data)
	// pkg_version 2 is a gzip tar; 1 is a plain tar in the spec, but Amazon's
	// KLR (KLR/NEFF/Basic.lean) documents 1 as "tgz+sha256", so a version-1
	// payload opening with the gzip magic is inflated too (a tar's first
	// bytes are a member name, never 1f 8b).
	if h.PkgVersion == 2 || bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		f.Payload.Compressed = true
		gz, err = gzip.NewReader(cr)
		if err != nil {
			return nil, formatErr(RuleGzip, HeaderSize, "", "gzip: %v", err)
		}
		// The payload is padded with zeros after the gzip member: a
		// multistream reader would try to parse the padding as a header.
		gz.Multistream(false)
		tr = gzipErrs{gz}
	} else {
		tr = cr
	}
	lr := &limitedReader{r: tr, n: lim.MaxDecompressed}
	var jobs chan *Member
	done := make(chan map[string]treeResult, 1)
	if parseJSON && runtime.GOMAXPROCS(0) > 1 {
		jobs = make(chan *Member, 256)
		go func() {
			trees := map[string]treeResult{}
			for m := range jobs {
				t, dups, err := parseTreeDups(m.Data, lim.JSONValues())
				trees[m.Name] = treeResult{m.Data, t, dups, err}
			}
			done <- trees
		}()
	}
	err = f.readTar(lr, lim, int64(len(data)), jobs)
	if jobs != nil {
		close(jobs)
		f.trees = <-done
	}
	if err != nil {
		return nil, err
	}
	// Drain what follows the tar end marker inside the gzip member.
	if _, err := io.Copy(io.Discard, lr); err != nil {
		return nil, payloadErr(err)
	}
	f.Payload.Uncompressed = lr.read
	if gz != nil {
		if err := gz.Close(); err != nil {
			return nil, payloadErr(err)
		}
	}
	f.Payload.Content = int64(len(data))
	if gz != nil {
		f.Payload.Content -= int64(cr.Len())
	}
	f.Payload.Padding = int64(len(data)) - f.Payload.Content
	f.Payload.PaddingNonZero = !allZero(data[f.Payload.Content:])
	f.Hash = <-hashed
	return f, nil
}

func payloadErr(err error) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return formatErr(RuleGzip, HeaderSize, "", "payload truncated: %v", err)
	}
	return formatErr(RuleGzip, HeaderSize, "", "payload: %v", err)
}

// gzipErrs tags decompression errors with the payload rule, so that a
// truncated or corrupt gzip stream is not blamed on the tar inside.
type gzipErrs struct{ r io.Reader }

func (g gzipErrs) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = payloadErr(err)
	}
	return n, err
}

// limitedReader fails once more than n bytes were read.
type limitedReader struct {
	r    io.Reader
	n    int64
	read int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.read += int64(n)
	if l.read > l.n {
		return n, formatErr(RuleTooLarge, -1, "", "decompressed payload exceeds the limit of %d bytes", l.n)
	}
	return n, err
}

func (f *File) readTar(r io.Reader, lim Limits, stored int64, jsonMembers chan<- *Member) error {
	t := tar.NewReader(r)
	formats := map[string]bool{}
	seen := map[string]bool{}
	var total int64
	var entries int
	var prev string
	f.Tar.Sorted = true
	for {
		hdr, err := t.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return tarErr(err, prev)
		}
		entries++
		if entries > lim.MaxMembers {
			return formatErr(RuleTooLarge, -1, hdr.Name, "more than %d tar entries", lim.MaxMembers)
		}
		// archive/tar reports a plain ustar header (magic "ustar\x0000",
		// no PAX records: what neuronx-cc writes) as FormatUnknown, since
		// it could equally be the start of a PAX archive; PAX is only
		// certain once records were seen, GNU by its own magic.
		switch {
		case hdr.Format&tar.FormatGNU != 0 && hdr.Format&tar.FormatPAX == 0:
			formats["gnu"] = true
		case len(hdr.PAXRecords) > 0 || hdr.Format == tar.FormatPAX:
			formats["pax"] = true
		default:
			formats["ustar"] = true
		}
		if strings.HasPrefix(hdr.Name, "./") {
			f.Tar.DotSlash = true
		}
		name, err := CleanName(hdr.Name)
		if err != nil {
			return formatErr(RuleUnsafeMember, -1, hdr.Name, "%v", err)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			f.Tar.DirEntries++
			continue
		case tar.TypeReg, tar.TypeRegA:
		case tar.TypeXGlobalHeader:
			continue
		default:
			return formatErr(RuleUnsafeMember, -1, hdr.Name, "entry type %q (link, device or fifo) is not allowed", string(hdr.Typeflag))
		}
		if name == "" {
			return formatErr(RuleUnsafeMember, -1, hdr.Name, "empty member name")
		}
		if seen[name] {
			return formatErr(RuleDuplicateMember, -1, hdr.Name, "member appears twice")
		}
		seen[name] = true
		if hdr.Size < 0 || hdr.Size > lim.MaxDecompressed-total {
			return formatErr(RuleTooLarge, -1, hdr.Name, "declared size %d exceeds the remaining limit of %d bytes", hdr.Size, lim.MaxDecompressed-total)
		}
		if !f.Payload.Compressed && hdr.Size > stored {
			return formatErr(RuleTarFraming, -1, hdr.Name, "declared size %d exceeds the %d-byte payload", hdr.Size, stored)
		}
		// One allocation of the declared size, which the limit above
		// bounds. A fresh allocation this large is mapped memory the
		// kernel backs with pages only as the inflated bytes are written,
		// so a 1 MB gzip payload that declares a 1 GiB member costs
		// resident memory only for what it really inflates to, and a real
		// member is never copied while it grows (growing by doubling held
		// the old and the new slice together: 2.5 GB resident for a 1 GiB
		// member).
		data, err := readMember(t, hdr.Size)
		if err != nil {
			return tarErr(err, name)
		}
		n := int64(len(data))
		if n != hdr.Size {
			return formatErr(RuleTarFraming, -1, name, "member truncated: %d of %d bytes", n, hdr.Size)
		}
		total += n
		if prev != "" && name < prev {
			f.Tar.Sorted = false
		}
		prev = name
		f.Members = append(f.Members, Member{
			Name: name, Data: data, Mode: hdr.Mode, Uid: hdr.Uid, Gid: hdr.Gid,
			Uname: hdr.Uname, Gname: hdr.Gname, ModTime: hdr.ModTime.Unix(),
		})
		if jsonMembers != nil && strings.HasSuffix(name, ".json") {
			// A copy of the header: the Members slice may move.
			jsonMembers <- &Member{Name: name, Data: data}
		}
	}
	for k := range formats {
		f.Tar.Formats = append(f.Tar.Formats, k)
	}
	sort.Strings(f.Tar.Formats)
	return nil
}

func tarErr(err error, after string) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		return err
	}
	if after != "" {
		return formatErr(RuleTarFraming, -1, after, "tar: %v", err)
	}
	return formatErr(RuleTarFraming, -1, "", "tar: %v", err)
}

// CleanName validates a tar member name and returns it without a leading
// "./". Absolute names, ".." components, backslashes and NUL are refused:
// a member must stay inside the directory it is unpacked to.
func CleanName(name string) (string, error) {
	if strings.ContainsRune(name, 0) || strings.Contains(name, `\`) {
		return "", fmt.Errorf("name %q contains NUL or backslash", name)
	}
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("absolute name %q", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("name %q leaves the archive root", name)
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	return c, nil
}

// readMember reads a tar entry of the declared size into one exactly sized
// slice; a short entry returns what was read with the tar reader's error.
func readMember(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(r, buf)
	return buf[:n], err
}
