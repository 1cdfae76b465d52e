package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/npukit/npukit/internal/inputfile"
)

// MaxDepth bounds the JSON nesting the reader accepts inside members it
// keeps verbatim (tile_info and unknown keys). The modelled structure itself
// is at most 6 levels deep.
const MaxDepth = 64

// ReadFile reads a schedule from a file.
func ReadFile(path string) (*Schedule, error) {
	f, err := inputfile.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads a schedule (either variant) from a stream. It decodes token by
// token, so memory stays proportional to the model, never to a copy of the
// whole input. Errors name the byte offset and the JSON path.
func Read(r io.Reader) (*Schedule, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	// A UTF-8 byte order mark (Windows editors and converters write one)
	// is skipped; error offsets count from after it.
	if b, _ := br.Peek(3); bytes.Equal(b, utf8BOM) {
		br.Discard(3)
	}
	rd := &reader{
		d:    jsontext.NewDecoder(br, jsontext.AllowDuplicateNames(true)),
		strs: map[string]string{},
	}
	s, err := rd.schedule()
	if err != nil {
		return nil, err
	}
	return s, nil
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// ReadBytes reads a schedule from memory.
func ReadBytes(b []byte) (*Schedule, error) { return Read(bytes.NewReader(b)) }

// ReadError is a malformed-input error with its position.
type ReadError struct {
	Offset int64  // byte offset in the input
	Path   string // JSON pointer of the value
	Msg    string
}

func (e *ReadError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("offset %d: %s: %s", e.Offset, e.Path, e.Msg)
}

type reader struct {
	d             *jsontext.Decoder
	strs          map[string]string
	sawBuffersize bool
	// Variant markers seen while reading, used when buffersize is absent:
	// members only the compiler IR has (buffer addresses, tensor IDs and
	// orders, WL0/WL1 snapshots, ring_buffer_info) and members only the raw
	// IR has (KiB "block" sizes, max_workload_id, an ifmap object).
	sawCompiler, sawRaw bool
}

func (r *reader) errf(format string, args ...any) error {
	return &ReadError{Offset: r.d.InputOffset(), Path: string(r.d.StackPointer()), Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) wrap(err error) error {
	if err == nil {
		return nil
	}
	var re *ReadError
	if errors.As(err, &re) {
		return err
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &ReadError{Offset: r.d.InputOffset(), Path: string(r.d.StackPointer()), Msg: err.Error()}
}

// intern returns a shared copy of a string value (layer names repeat).
func (r *reader) intern(b []byte) string {
	if s, ok := r.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.strs) < 1<<20 {
		r.strs[s] = s
	}
	return s
}

// name reads an object member name; it must be called when one is next.
func (r *reader) name() (string, error) {
	v, err := r.d.ReadValue()
	if err != nil {
		return "", r.wrap(err)
	}
	return r.unquote(v)
}

func (r *reader) unquote(v jsontext.Value) (string, error) {
	if len(v) < 2 || v[0] != '"' {
		return "", r.errf("expected a string")
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return r.intern(body), nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", r.wrap(err)
	}
	return s, nil
}

// object iterates the members of an object. A null reads as an empty object
// when nullOK.
func (r *reader) object(nullOK bool, fn func(key string) error) error {
	k := r.d.PeekKind()
	if k == 'n' && nullOK {
		_, err := r.d.ReadToken()
		return r.wrap(err)
	}
	if k != '{' {
		return r.kindErr("an object", k)
	}
	if _, err := r.d.ReadToken(); err != nil {
		return r.wrap(err)
	}
	for r.d.PeekKind() != '}' {
		if r.d.PeekKind() == 0 {
			_, err := r.d.ReadToken()
			return r.wrap(err)
		}
		key, err := r.name()
		if err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err := r.d.ReadToken()
	return r.wrap(err)
}

// array iterates the elements of an array; null reads as empty when nullOK.
func (r *reader) array(nullOK bool, fn func() error) error {
	k := r.d.PeekKind()
	if k == 'n' && nullOK {
		_, err := r.d.ReadToken()
		return r.wrap(err)
	}
	if k != '[' {
		return r.kindErr("an array", k)
	}
	if _, err := r.d.ReadToken(); err != nil {
		return r.wrap(err)
	}
	for r.d.PeekKind() != ']' {
		if r.d.PeekKind() == 0 {
			_, err := r.d.ReadToken()
			return r.wrap(err)
		}
		if err := fn(); err != nil {
			return err
		}
	}
	_, err := r.d.ReadToken()
	return r.wrap(err)
}

// list iterates a list of objects; a single object reads as a one-element
// list (writers unwrap singletons, as the raw IR does for ifmap).
func (r *reader) list(fn func() error) error {
	if r.d.PeekKind() == '{' {
		return fn()
	}
	return r.array(true, fn)
}

func (r *reader) kindErr(want string, k jsontext.Kind) error {
	if k == 0 {
		_, err := r.d.ReadToken()
		if err != nil {
			return r.wrap(err)
		}
	}
	return r.errf("expected %s, found %s", want, kindName(k))
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "invalid JSON"
}

// int reads an integer. Integral floats (1.0, 2e3) are accepted because
// some converters write them, and so are integers written as strings
// ("12": writers that stringify every scalar); fractions and out-of-range
// values are errors.
func (r *reader) int() (int64, error) {
	n, _, err := r.number(false)
	return n, err
}

// number reads an integer (see int); with round, a fraction is rounded to
// the nearest integer instead of rejected (for estimates such as `time`).
// null is accepted only as an absent value: ok is false.
func (r *reader) number(round bool) (int64, bool, error) {
	k := r.d.PeekKind()
	if k != '0' && k != '"' {
		return 0, false, r.kindErr("an integer", k)
	}
	v, err := r.d.ReadValue()
	if err != nil {
		return 0, false, r.wrap(err)
	}
	if k == '"' {
		s, err := r.unquote(v)
		if err != nil {
			return 0, false, err
		}
		v = bytes.TrimSpace([]byte(s))
	}
	if n, ok := parseInt(v); ok {
		return n, true, nil
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err == nil && round {
		f = math.Round(f)
	}
	if err != nil || f != math.Trunc(f) || f > 1<<62 || f < -(1<<62) {
		return 0, false, r.errf("%s is not an integer in range", v)
	}
	return int64(f), true, nil
}

// parseInt parses a plain JSON integer of at most 18 digits.
func parseInt(v []byte) (int64, bool) {
	neg := false
	if len(v) > 0 && v[0] == '-' {
		neg = true
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// optInt reads an integer or null.
func (r *reader) optInt() (int64, bool, error) {
	if r.d.PeekKind() == 'n' {
		_, err := r.d.ReadToken()
		return 0, false, r.wrap(err)
	}
	n, err := r.int()
	return n, err == nil, err
}

// address reads a buffer address: an integer (or an integer in a string),
// null (absent), or a placeholder for an address not chosen yet, which
// third-party converters write ("address": true in the Gemini-format
// files of one public NPU simulator): a boolean, or a string that is not an
// integer. A placeholder is not an error: the schedule is simply not
// allocated, which is what `alloc --from` is for.
func (r *reader) address() (addr int64, ok, placeholder bool, err error) {
	switch r.d.PeekKind() {
	case 't', 'f':
		_, err := r.d.ReadToken()
		return 0, false, true, r.wrap(err)
	case '"':
		v, err := r.d.ReadValue()
		if err != nil {
			return 0, false, false, r.wrap(err)
		}
		s, err := r.unquote(v)
		if err != nil {
			return 0, false, false, err
		}
		// A number in a string, decimal or with a 0x/0o/0b prefix.
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64); err == nil {
			return n, true, false, nil
		}
		return 0, false, true, nil
	}
	addr, ok, err = r.optInt()
	return addr, ok, false, err
}

// optTime reads a compute estimate: an integer, a number rounded to the
// nearest cycle (the scheduler's per-tile predictions are fractional,
// tile_info single_tile_time_pred, so a writer may emit a fractional sum)
// or null (absent, 0).
func (r *reader) optTime() (int64, error) {
	if r.d.PeekKind() == 'n' {
		_, err := r.d.ReadToken()
		return 0, r.wrap(err)
	}
	n, _, err := r.number(true)
	return n, err
}

// str reads a string; null reads as "" (names are optional labels) and a
// number as its text.
func (r *reader) str() (string, error) {
	k := r.d.PeekKind()
	if k == 'n' {
		_, err := r.d.ReadToken()
		return "", r.wrap(err)
	}
	if k == '0' { // a numeric name (a layer numbered, not named)
		v, err := r.d.ReadValue()
		if err != nil {
			return "", r.wrap(err)
		}
		return r.intern(v), nil
	}
	if k != '"' {
		return "", r.kindErr("a string", k)
	}
	v, err := r.d.ReadValue()
	if err != nil {
		return "", r.wrap(err)
	}
	return r.unquote(v)
}

func (r *reader) bool() (bool, error) {
	switch k := r.d.PeekKind(); k {
	case 't', 'f':
		t, err := r.d.ReadToken()
		if err != nil {
			return false, r.wrap(err)
		}
		return t.Bool(), nil
	case 'n':
		_, err := r.d.ReadToken()
		return false, r.wrap(err)
	case '0':
		// 0/1, as writers without a boolean type emit them
		n, err := r.int()
		if err == nil && n != 0 && n != 1 {
			return false, r.errf("%d is not a boolean (0 or 1)", n)
		}
		return n == 1, err
	case '"':
		v, err := r.str()
		switch {
		case err != nil:
			return false, err
		case v == "true" || v == "True" || v == "1":
			return true, nil
		case v == "false" || v == "False" || v == "0" || v == "":
			return false, nil
		}
		return false, r.errf("%q is not a boolean", v)
	default:
		return false, r.kindErr("a boolean", k)
	}
}

// ints reads an array of integers (null reads as nil) or a single integer
// (read as a one-element list: some converters unwrap singletons).
func (r *reader) ints() ([]int64, error) {
	if k := r.d.PeekKind(); k == '0' || k == '"' {
		n, err := r.int()
		return []int64{n}, err
	}
	var out []int64
	err := r.array(true, func() error {
		n, err := r.int()
		out = append(out, n)
		return err
	})
	return out, err
}

// coord reads a coordinate: an integer (rank 1) or a list of up to 4.
func (r *reader) coord() ([4]int32, uint8, error) {
	var c [4]int32
	if r.d.PeekKind() == 'n' {
		_, err := r.d.ReadToken()
		return c, 0, r.wrap(err)
	}
	if k := r.d.PeekKind(); k == '0' || k == '"' {
		n, err := r.int()
		if err != nil {
			return c, 0, err
		}
		if n > math.MaxInt32 || n < math.MinInt32 {
			return c, 0, r.errf("coordinate %d out of range", n)
		}
		c[0] = int32(n)
		return c, 1, nil
	}
	var rank uint8
	err := r.array(false, func() error {
		n, err := r.int()
		if err != nil {
			return err
		}
		if rank == 4 {
			return r.errf("coordinate has more than 4 dimensions")
		}
		if n > math.MaxInt32 || n < math.MinInt32 {
			return r.errf("coordinate %d out of range", n)
		}
		c[rank] = int32(n)
		rank++
		return nil
	})
	return c, rank, err
}

func (r *reader) lower(b *Box) error {
	c, rank, err := r.coord()
	b.Lower = c
	if rank > b.Rank {
		b.Rank = rank
	}
	return err
}

func (r *reader) upper(b *Box) error {
	c, rank, err := r.coord()
	b.Upper = c
	if rank > b.Rank {
		b.Rank = rank
	}
	return err
}

// keep stores an unknown member verbatim.
func (r *reader) keep(x *Extra, key string) error {
	v, err := r.value()
	if err != nil {
		return err
	}
	if *x == nil {
		*x = Extra{}
	}
	(*x)[key] = v
	return nil
}

// value reads any value verbatim, bounding its nesting.
func (r *reader) value() (json.RawMessage, error) {
	base := r.d.StackDepth()
	v, err := r.d.ReadValue()
	if err != nil {
		return nil, r.wrap(err)
	}
	if depth(v) > MaxDepth {
		return nil, r.errf("value nested deeper than %d (stack depth %d)", MaxDepth, base)
	}
	return bytes.Clone(v), nil
}

// depth returns the maximal nesting of a valid JSON value.
func depth(v []byte) int {
	d, max := 0, 0
	in := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if in {
			if c == '\\' {
				i++
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case '{', '[':
			d++
			if d > max {
				max = d
			}
		case '}', ']':
			d--
		}
	}
	return max
}

func (r *reader) schedule() (*Schedule, error) {
	s := &Schedule{}
	type rawCore struct {
		key int64
		wls []Workload
	}
	var cores []rawCore
	seen := map[int64]bool{}
	err := r.object(false, func(key string) error {
		switch key {
		case "-1":
			return r.dram(s)
		case "buffersize":
			n, err := r.int()
			s.BufferSize = n
			r.sawBuffersize = true
			return err
		case "top_batch_cut":
			n, err := r.int()
			s.TopBatchCut = n
			return err
		case "xlen":
			n, err := r.int()
			s.XLen = n
			return err
		case "ylen":
			n, err := r.int()
			s.YLen = n
			return err
		}
		if n, ok := parseInt([]byte(key)); ok && n >= 0 && strconv.FormatInt(n, 10) == key {
			if seen[n] {
				return r.errf("core %d appears twice", n)
			}
			seen[n] = true
			var wls []Workload
			err := r.array(true, func() error {
				var w Workload
				if err := r.workload(&w); err != nil {
					return err
				}
				wls = append(wls, w)
				return nil
			})
			cores = append(cores, rawCore{n, wls})
			return err
		}
		return r.keep(&s.Extra, key)
	})
	if err != nil {
		return nil, err
	}
	// Nothing may follow the top-level object but whitespace.
	if _, err := r.d.ReadToken(); err != io.EOF {
		if err == nil {
			return nil, r.errf("data after the top-level object")
		}
		return nil, r.wrap(err)
	}
	// The compiler IR always carries buffersize (spec: top-level keys); a
	// file without it is the raw IR unless it has the compiler's snapshot
	// members and none of the raw IR's (a converter dropped buffersize: its
	// sizes are bytes, not bits).
	s.Variant = Raw
	if r.sawBuffersize || (r.sawCompiler && !r.sawRaw) {
		s.Variant = Compiler
	}
	sort.Slice(cores, func(i, j int) bool { return cores[i].key < cores[j].key })
	// The spec defines program order as ascending workload_id, not list
	// order: a writer listing a core's workloads in another order is read
	// in program order (repeated IDs stay adjacent; Check reports them).
	for _, c := range cores {
		if !sort.SliceIsSorted(c.wls, func(i, j int) bool { return c.wls[i].ID < c.wls[j].ID }) {
			sort.SliceStable(c.wls, func(i, j int) bool { return c.wls[i].ID < c.wls[j].ID })
		}
	}
	meshKeys := s.Variant == Raw
	if s.XLen > 0 {
		// Each variant's documented key layout is tried first; a file whose
		// keys do not fit it but fit the other one uses the other (a
		// multi-core compiler IR may number cores on the mesh as the raw IR
		// does: no public multi-core compiler file says otherwise).
		yl := s.YLen
		if yl <= 0 {
			yl = math.MaxInt64 / (s.XLen + 2)
		}
		fitsCompact, fitsMesh := true, true
		for _, c := range cores {
			fitsCompact = fitsCompact && c.key < s.XLen*yl
			fitsMesh = fitsMesh && c.key >= 1 && (c.key-1)%(s.XLen+2) < s.XLen && (c.key-1)/(s.XLen+2) < yl
		}
		if meshKeys && !fitsMesh && fitsCompact {
			meshKeys = false
		} else if !meshKeys && !fitsCompact && fitsMesh {
			meshKeys = true
		}
	}
	for i, c := range cores {
		core := &Core{ID: i, Key: c.key, Workloads: c.wls, X: -1, Y: -1}
		switch {
		case s.XLen <= 0:
		case meshKeys && c.key >= 1:
			core.X, core.Y = (c.key-1)%(s.XLen+2), (c.key-1)/(s.XLen+2)
			if core.X >= s.XLen { // a DRAM column: not a core position
				core.X, core.Y = -1, -1
			}
		case !meshKeys:
			core.X, core.Y = c.key%s.XLen, c.key/s.XLen
		}
		s.Cores = append(s.Cores, core)
	}
	s.normalise()
	return s, nil
}

// normalise resolves core keys to compact IDs and, for the raw IR, converts
// bit sizes to bytes and KiB blocks to bytes.
func (s *Schedule) normalise() {
	idx := make(map[int64]int, len(s.Cores))
	for _, c := range s.Cores {
		idx[c.Key] = c.ID
	}
	resolve := func(typ string, key int64) int {
		// The spec writes "DRAM"; WL0 sources say "DDR"; accept any case.
		if strings.EqualFold(typ, "DRAM") || strings.EqualFold(typ, "DDR") || (typ == "" && key == -1) {
			return DRAM
		}
		if id, ok := idx[key]; ok {
			return id
		}
		return UnknownCore
	}
	bytesOf := func(n int64) int64 {
		if s.Variant == Raw {
			return (n + 7) / 8
		}
		return n
	}
	dests := func(ds []Destination) {
		for i := range ds {
			ds[i].Core = resolve(ds[i].Type, ds[i].CoreKey)
		}
	}
	for i := range s.DRAMWrites {
		w := &s.DRAMWrites[i]
		w.Core = resolve("core", w.CoreKey)
	}
	for i := range s.DRAMReads {
		d := &s.DRAMReads[i]
		d.Size = bytesOf(d.Size)
		dests(d.Destinations)
	}
	entries := func(es []BufferEntry) {
		for i := range es {
			e := &es[i]
			switch {
			case e.Size != 0:
				e.Size = bytesOf(e.Size)
			case e.Blocks != 0:
				e.Size = e.Blocks * 1024
			}
			for j := range e.Sources {
				src := &e.Sources[j]
				src.Size = bytesOf(src.Size)
				src.Core = resolve(src.Type, src.CoreKey)
			}
		}
	}
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			if s.Variant != Raw {
				w.IfmapsFromBuffer = false
			}
			w.OfmapSize = bytesOf(w.OfmapSize)
			for i := range w.Ifmaps {
				w.Ifmaps[i].Size = bytesOf(w.Ifmaps[i].Size)
			}
			for i := range w.Ofmaps {
				w.Ofmaps[i].Size = bytesOf(w.Ofmaps[i].Size)
				dests(w.Ofmaps[i].Destinations)
			}
			if w.Weight != nil {
				w.Weight.Size = bytesOf(w.Weight.Size)
			}
			entries(w.Buffer)
			entries(w.WeightBuffer)
			if w.IfmapsFromBuffer {
				depsFromBuffer(w)
			}
		}
	}
}

// depsFromBuffer reads the inputs of a raw-IR workload that has no ifmap
// list from its buffer (sizes already in bytes): each ifmap-typed entry
// with transfers is an ifmap, and a weight-typed entry is the weight when
// the workload has none. The dialect of some hand-written raw schedules
// lists a workload's dependencies only there (ids, KiB blocks, source
// sizes in bits), and their simulator loads every source of the buffer.
func depsFromBuffer(w *Workload) {
	w.IfmapsFromBuffer = false
	for i := range w.Buffer {
		e := &w.Buffer[i]
		ids := e.TransferIDs
		if len(ids) == 0 {
			for _, src := range e.Sources {
				ids = append(ids, src.TransferID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		var size int64
		for _, src := range e.Sources {
			size += max(src.Size, 0)
		}
		switch e.Type {
		case "ifmap":
			w.Ifmaps = append(w.Ifmaps, Ifmap{Box: e.Box, TransferIDs: slices.Clone(ids), MaxWorkloadID: -1})
			w.IfmapsFromBuffer = true
		case "weight":
			if w.Weight == nil || w.WeightFromBuffer {
				if w.Weight == nil {
					w.Weight = &Weight{Box: e.Box}
					w.WeightFromBuffer = true
				}
				w.Weight.Size += size
				w.Weight.TransferIDs = append(w.Weight.TransferIDs, ids...)
			}
		}
	}
}

func (r *reader) dram(s *Schedule) error {
	return r.object(true, func(key string) error {
		switch key {
		case "in":
			return r.array(true, func() error {
				var w DRAMWrite
				w.Workload = -1
				err := r.object(false, func(k string) error {
					var err error
					switch k {
					case "transfer_id":
						w.TransferID, err = r.int()
					case "core_id", "id":
						w.CoreKey, err = r.int()
					case "workload_id":
						w.Workload, err = r.int()
					case "layer_name", "layer":
						w.LayerName, err = r.str()
					case "lower":
						err = r.lower(&w.Box)
					case "upper":
						err = r.upper(&w.Box)
					case "related_ofmap":
						w.RelatedOfmap, err = r.ints()
					default:
						err = r.keep(&w.Extra, k)
					}
					return err
				})
				s.DRAMWrites = append(s.DRAMWrites, w)
				return err
			})
		case "out":
			return r.array(true, func() error {
				var d DRAMRead
				err := r.object(false, func(k string) error {
					var err error
					switch k {
					case "transfer_id":
						d.TransferID, err = r.int()
					case "type":
						d.Type, err = r.str()
					case "layer_name", "layer":
						d.LayerName, err = r.str()
					case "size":
						d.Size, err = r.int()
					case "lower":
						err = r.lower(&d.Box)
					case "upper":
						err = r.upper(&d.Box)
					case "related_ifmap":
						d.RelatedIfmap, err = r.ints()
					case "destination":
						d.Destinations, err = r.destinations()
					default:
						err = r.keep(&d.Extra, k)
					}
					return err
				})
				s.DRAMReads = append(s.DRAMReads, d)
				return err
			})
		}
		return r.keep(&s.Extra, "-1."+key)
	})
}

func (r *reader) destinations() ([]Destination, error) {
	var out []Destination
	err := r.list(func() error {
		var d Destination
		err := r.object(false, func(k string) error {
			var err error
			switch k {
			case "type":
				d.Type, err = r.str()
			case "core_id", "id":
				var ok bool
				d.CoreKey, ok, err = r.optInt()
				if !ok {
					d.CoreKey = -1 // null: DRAM, or a core destination naming no core
				}
			case "workload_id":
				// null: a DRAM destination has no workload
				d.Workload, d.HasWorkload, err = r.optInt()
			case "layer_name", "layer":
				d.LayerName, err = r.str()
			default:
				err = r.keep(&d.Extra, k)
			}
			return err
		})
		out = append(out, d)
		return err
	})
	return out, err
}

func (r *reader) workload(w *Workload) error {
	sawIfmap := false
	defer func() { w.IfmapsFromBuffer = !sawIfmap }() // kept for the raw IR only (normalise)
	return r.object(false, func(k string) error {
		var err error
		switch k {
		case "workload_id":
			w.ID, err = r.int()
		case "layer_name", "layer":
			w.LayerName, err = r.str()
		case "layer_type":
			w.LayerType, err = r.str()
		case "time":
			w.Time, err = r.optTime()
		case "ofmap_size":
			w.OfmapSize, err = r.int()
		case "workload":
			i := 0
			err = r.array(false, func() error {
				var err error
				switch i {
				case 0:
					err = r.lower(&w.Range)
				case 1:
					err = r.upper(&w.Range)
				default:
					return r.errf("workload range has more than 2 corners")
				}
				i++
				return err
			})
		case "ifmap":
			sawIfmap = true
			switch r.d.PeekKind() {
			case '{':
				r.sawRaw = true
				var f Ifmap
				err = r.ifmap(&f)
				w.Ifmaps = append(w.Ifmaps, f)
			default:
				err = r.array(true, func() error {
					var f Ifmap
					err := r.ifmap(&f)
					w.Ifmaps = append(w.Ifmaps, f)
					return err
				})
			}
		case "ofmap":
			err = r.list(func() error {
				var o Ofmap
				err := r.object(false, func(k string) error {
					var err error
					switch k {
					case "transfer_id":
						o.TransferID, err = r.int()
					case "size":
						o.Size, err = r.int()
					case "lower":
						err = r.lower(&o.Box)
					case "upper":
						err = r.upper(&o.Box)
					case "destination":
						o.Destinations, err = r.destinations()
					default:
						err = r.keep(&o.Extra, k)
					}
					return err
				})
				w.Ofmaps = append(w.Ofmaps, o)
				return err
			})
		case "weight":
			if r.d.PeekKind() == 'n' {
				_, err = r.d.ReadToken()
				return r.wrap(err)
			}
			// An object, or a list of weight pieces read as one weight
			// (sizes and transfer IDs summed, the first piece's box).
			wt := &Weight{}
			pieces := 0
			err = r.list(func() error {
				pieces++
				var box Box
				err := r.object(false, func(k string) error {
					var err error
					switch k {
					case "transfer_id":
						var ids []int64
						ids, err = r.ints()
						wt.TransferIDs = append(wt.TransferIDs, ids...)
					case "size":
						var n int64
						n, err = r.int()
						wt.Size += n
					case "lower":
						err = r.lower(&box)
					case "upper":
						err = r.upper(&box)
					default:
						err = r.keep(&wt.Extra, k)
					}
					return err
				})
				if pieces == 1 {
					wt.Box = box
				}
				return err
			})
			if pieces > 0 {
				w.Weight = wt
			}
		case "buffer":
			err = r.list(func() error {
				var e BufferEntry
				err := r.entry(&e)
				w.Buffer = append(w.Buffer, e)
				return err
			})
		case "wl0_buffer", "wl1_buffer":
			r.sawCompiler = true
			w.WeightBufferKey = k
			err = r.list(func() error {
				var e BufferEntry
				err := r.entry(&e)
				w.WeightBuffer = append(w.WeightBuffer, e)
				return err
			})
		case "ring_buffer_info":
			r.sawCompiler = true
			w.HasRingRegions = true
			var flat []int64 // one region written unnested: [0, 8388608]
			err = r.array(true, func() error {
				if k := r.d.PeekKind(); k == '0' || k == '"' {
					n, err := r.int()
					flat = append(flat, n)
					return err
				}
				v, err := r.ints()
				if err != nil {
					return err
				}
				if len(v) != 2 {
					return r.errf("ring buffer region has %d bounds, want 2", len(v))
				}
				w.RingRegions = append(w.RingRegions, [2]int64{v[0], v[1]})
				return nil
			})
			if err == nil && len(flat) > 0 {
				if len(flat) != 2 || len(w.RingRegions) > 0 {
					return r.errf("ring_buffer_info mixes %d bare numbers with regions; want [[start, end], ...]", len(flat))
				}
				w.RingRegions = [][2]int64{{flat[0], flat[1]}}
			}
		case "tile_padding_tblr":
			w.TilePadding, err = r.ints()
		case "tile_info":
			w.TileInfo, err = r.value()
		default:
			err = r.keep(&w.Extra, k)
		}
		return err
	})
}

func (r *reader) ifmap(f *Ifmap) error {
	f.MaxWorkloadID = -1
	return r.object(false, func(k string) error {
		var err error
		switch k {
		case "transfer_id":
			f.TransferIDs, err = r.ints()
		case "size":
			f.Size, err = r.int()
		case "align":
			f.Align, err = r.int()
		case "bitwidth":
			f.Bitwidth, err = r.int()
		case "lower":
			err = r.lower(&f.Box)
		case "upper":
			err = r.upper(&f.Box)
		case "max_workload_id":
			r.sawRaw = true
			f.MaxWorkloadID, err = r.int()
		default:
			err = r.keep(&f.Extra, k)
		}
		return err
	})
}

func (r *reader) entry(e *BufferEntry) error {
	return r.object(false, func(k string) error {
		var err error
		switch k {
		case "type":
			e.Type, err = r.str()
		case "layer_name", "layer":
			e.LayerName, err = r.str()
		case "lower":
			err = r.lower(&e.Box)
		case "upper":
			err = r.upper(&e.Box)
		case "size":
			e.Size, err = r.int()
		case "block":
			r.sawRaw = true
			e.Blocks, err = r.int()
		case "address":
			r.sawCompiler = true
			e.Address, e.HasAddress, e.Unallocated, err = r.address()
		case "align":
			e.Align, err = r.int()
		case "bitwidth":
			e.Bitwidth, err = r.int()
		case "tensor_id":
			r.sawCompiler = true
			e.TensorID, e.HasTensorID, err = r.optInt()
		case "tensor_order":
			r.sawCompiler = true
			e.TensorOrder, e.HasTensorOrder, err = r.optInt()
		case "newly_added":
			if r.d.PeekKind() == 'n' { // null: not stated
				_, err = r.d.ReadToken()
				return r.wrap(err)
			}
			e.NewlyAdded, err = r.bool()
			e.HasNewlyAdded = true
		case "cur_wl_ifmap":
			e.CurWLIfmap, err = r.bool()
		case "start_send":
			e.StartSend, err = r.bool()
		case "transfer_id":
			e.TransferIDs, err = r.ints()
		case "workload_id":
			e.Workload, e.HasWorkload, err = r.optInt()
		case "source":
			if r.d.PeekKind() == '"' {
				var s string
				s, err = r.str()
				switch u := strings.ToUpper(s); u {
				case "DDR", "DRAM":
					e.SourceKind = "DRAM"
				case "CORE":
					e.SourceKind = "CORE"
				default:
					e.SourceKind = s
				}
				return err
			}
			err = r.array(true, func() error {
				var src Source
				err := r.object(false, func(k string) error {
					var err error
					switch k {
					case "type":
						src.Type, err = r.str()
					case "core_id", "id":
						src.CoreKey, err = r.int()
					case "layer_name", "layer":
						src.LayerName, err = r.str()
					case "lower":
						err = r.lower(&src.Box)
					case "upper":
						err = r.upper(&src.Box)
					case "size":
						src.Size, err = r.int()
					case "transfer_id":
						src.TransferID, err = r.int()
					case "channel":
						src.Channel, err = r.ints()
					default:
						err = r.keep(&src.Extra, k)
					}
					return err
				})
				e.Sources = append(e.Sources, src)
				return err
			})
		default:
			err = r.keep(&e.Extra, k)
		}
		return err
	})
}
