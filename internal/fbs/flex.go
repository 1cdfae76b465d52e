package fbs

import (
	"fmt"
	"math"
)

// FlexType is a FlexBuffers value type (flatbuffers.dev, "FlexBuffers":
// the type lives in the high 6 bits of a packed type byte, the log2 of the
// byte width in the low 2 bits).
type FlexType uint8

// FlexBuffers types.
const (
	FlexNull          FlexType = 0
	FlexInt           FlexType = 1
	FlexUint          FlexType = 2
	FlexFloat         FlexType = 3
	FlexKey           FlexType = 4
	FlexString        FlexType = 5
	FlexIndirectInt   FlexType = 6
	FlexIndirectUint  FlexType = 7
	FlexIndirectFloat FlexType = 8
	FlexMap           FlexType = 9
	FlexVector        FlexType = 10
	FlexVectorInt     FlexType = 11
	FlexVectorUint    FlexType = 12
	FlexVectorFloat   FlexType = 13
	FlexVectorKey     FlexType = 14
	FlexVectorString  FlexType = 15 // deprecated
	FlexVectorInt2    FlexType = 16
	FlexVectorFloat4  FlexType = 24
	FlexBlob          FlexType = 25
	FlexBool          FlexType = 26
	FlexVectorBool    FlexType = 36
)

var flexNames = map[FlexType]string{
	FlexNull: "NULL", FlexInt: "INT", FlexUint: "UINT", FlexFloat: "FLOAT", FlexKey: "KEY",
	FlexString: "STRING", FlexIndirectInt: "INDIRECT_INT", FlexIndirectUint: "INDIRECT_UINT",
	FlexIndirectFloat: "INDIRECT_FLOAT", FlexMap: "MAP", FlexVector: "VECTOR",
	FlexVectorInt: "VECTOR_INT", FlexVectorUint: "VECTOR_UINT", FlexVectorFloat: "VECTOR_FLOAT",
	FlexVectorKey: "VECTOR_KEY", FlexVectorString: "VECTOR_STRING_DEPRECATED",
	16: "VECTOR_INT2", 17: "VECTOR_UINT2", 18: "VECTOR_FLOAT2", 19: "VECTOR_INT3",
	20: "VECTOR_UINT3", 21: "VECTOR_FLOAT3", 22: "VECTOR_INT4", 23: "VECTOR_UINT4",
	24: "VECTOR_FLOAT4", FlexBlob: "BLOB", FlexBool: "BOOL", FlexVectorBool: "VECTOR_BOOL",
}

func (t FlexType) String() string {
	if n, ok := flexNames[t]; ok {
		return n
	}
	return fmt.Sprintf("TYPE_%d", uint8(t))
}

func (t FlexType) inline() bool {
	return t == FlexNull || t == FlexInt || t == FlexUint || t == FlexFloat || t == FlexBool
}

// FlexRef is a reference to one FlexBuffers value.
type FlexRef struct {
	buf         []byte
	pos         int // where the value (or the offset to it) is stored
	parentWidth int
	typ         FlexType
	width       int // byte width of the target (from the packed type)
	Path        string
}

// FlexRoot returns the root value of a FlexBuffer.
func FlexRoot(buf []byte, path string) (FlexRef, error) {
	if len(buf) < 3 {
		return FlexRef{}, errAt(0, path, "FlexBuffer of %d bytes is too short", len(buf))
	}
	if len(buf) > MaxSize {
		return FlexRef{}, errAt(0, path, "FlexBuffer of %d bytes is too large", len(buf))
	}
	w := int(buf[len(buf)-1])
	if w != 1 && w != 2 && w != 4 && w != 8 {
		return FlexRef{}, errAt(len(buf)-1, path, "root byte width %d is not 1, 2, 4 or 8", w)
	}
	packed := buf[len(buf)-2]
	pos := len(buf) - 2 - w
	if pos < 0 {
		return FlexRef{}, errAt(0, path, "root value of %d bytes does not fit", w)
	}
	return newRef(buf, pos, w, packed, path), nil
}

func newRef(buf []byte, pos, parentWidth int, packed byte, path string) FlexRef {
	return FlexRef{buf: buf, pos: pos, parentWidth: parentWidth, typ: FlexType(packed >> 2), width: 1 << (packed & 3), Path: path}
}

// Type is the value's type.
func (r FlexRef) Type() FlexType { return r.typ }

// Pos is where the value's slot is stored.
func (r FlexRef) Pos() int { return r.pos }

func (r FlexRef) readAt(p, w int) (uint64, error) {
	if p < 0 || p+w > len(r.buf) {
		return 0, errAt(p, r.Path, "%d-byte value outside the %d-byte buffer", w, len(r.buf))
	}
	return readUint(r.buf[p:], w), nil
}

// target follows the offset of an offset-stored value.
func (r FlexRef) target() (int, error) {
	off, err := r.readAt(r.pos, r.parentWidth)
	if err != nil {
		return 0, err
	}
	if off > uint64(r.pos) {
		return 0, errAt(r.pos, r.Path, "%s offset %d points before the buffer", r.typ, off)
	}
	return r.pos - int(off), nil
}

// Int returns INT, UINT, BOOL and the indirect integer types as int64.
func (r FlexRef) Int() (int64, error) {
	switch r.typ {
	case FlexInt, FlexBool:
		v, err := r.readAt(r.pos, r.parentWidth)
		return signExtend(v, r.parentWidth), err
	case FlexUint:
		v, err := r.readAt(r.pos, r.parentWidth)
		return int64(v), err
	case FlexIndirectInt, FlexIndirectUint:
		t, err := r.target()
		if err != nil {
			return 0, err
		}
		v, err := r.readAt(t, r.width)
		if r.typ == FlexIndirectInt {
			return signExtend(v, r.width), err
		}
		return int64(v), err
	case FlexFloat:
		v, err := r.readAt(r.pos, r.parentWidth)
		return int64(flexFloat(v, r.parentWidth)), err
	}
	return 0, errAt(r.pos, r.Path, "%s is not an integer", r.typ)
}

func flexFloat(v uint64, w int) float64 {
	switch w {
	case 4:
		return float64(math.Float32frombits(uint32(v)))
	case 8:
		return math.Float64frombits(v)
	}
	return 0
}

func signExtend(v uint64, w int) int64 {
	shift := uint(64 - 8*w)
	return int64(v<<shift) >> shift
}

// Bytes returns the data of a STRING or BLOB (a sub-slice of the buffer,
// without the terminator) and its offset; KEY returns the NUL-terminated key.
func (r FlexRef) Bytes() ([]byte, int, error) {
	switch r.typ {
	case FlexString, FlexBlob:
		t, err := r.target()
		if err != nil {
			return nil, 0, err
		}
		n, err := r.readAt(t-r.width, r.width)
		if err != nil {
			return nil, 0, err
		}
		if n > uint64(len(r.buf)-t) {
			return nil, 0, errAt(t-r.width, r.Path, "%s of %d bytes runs past the %d-byte buffer", r.typ, n, len(r.buf))
		}
		return r.buf[t : t+int(n) : t+int(n)], t, nil
	case FlexKey:
		t, err := r.target()
		if err != nil {
			return nil, 0, err
		}
		b, err := cstring(r.buf, t, r.Path)
		return b, t, err
	}
	return nil, 0, errAt(r.pos, r.Path, "%s is not a string or blob", r.typ)
}

func cstring(buf []byte, p int, path string) ([]byte, error) {
	for i := p; i < len(buf); i++ {
		if buf[i] == 0 {
			return buf[p:i:i], nil
		}
	}
	return nil, errAt(p, path, "key without a terminating NUL")
}

// FlexVec is a vector (untyped, typed or fixed-length) or the values of a map.
type FlexVec struct {
	buf      []byte
	start    int
	n        int
	width    int
	elemType FlexType // typed vectors; FlexNull for untyped (types follow the elements)
	Path     string
}

// Len is the number of elements.
func (v FlexVec) Len() int { return v.n }

// At returns element i.
func (v FlexVec) At(i int) FlexRef {
	p := v.start + i*v.width
	path := fmt.Sprintf("%s[%d]", v.Path, i)
	if v.elemType != FlexNull {
		return FlexRef{buf: v.buf, pos: p, parentWidth: v.width, typ: v.elemType, width: v.width, Path: path}
	}
	return newRef(v.buf, p, v.width, v.buf[v.start+v.n*v.width+i], path)
}

// Vector returns a vector value.
func (r FlexRef) Vector() (FlexVec, error) {
	t, err := r.target()
	if err != nil {
		return FlexVec{}, err
	}
	v := FlexVec{buf: r.buf, start: t, width: r.width, Path: r.Path}
	typesPerElem := 0
	switch {
	case r.typ == FlexVector || r.typ == FlexMap:
		typesPerElem = 1
	case r.typ >= FlexVectorInt && r.typ <= FlexVectorKey:
		v.elemType = FlexInt + (r.typ - FlexVectorInt)
	case r.typ == FlexVectorString:
		v.elemType = FlexString
	case r.typ == FlexVectorBool:
		v.elemType = FlexBool
	case r.typ >= FlexVectorInt2 && r.typ <= FlexVectorFloat4:
		k := r.typ - FlexVectorInt2
		v.elemType = FlexInt + k%3
		v.n = int(k/3) + 2
		if v.n*v.width > len(r.buf)-t {
			return FlexVec{}, errAt(t, r.Path, "fixed vector runs past the buffer")
		}
		return v, nil
	default:
		return FlexVec{}, errAt(r.pos, r.Path, "%s is not a vector", r.typ)
	}
	n, err := r.readAt(t-r.width, r.width)
	if err != nil {
		return FlexVec{}, err
	}
	if n > uint64(len(r.buf)-t)/uint64(r.width+typesPerElem) {
		return FlexVec{}, errAt(t-r.width, r.Path, "vector of %d elements runs past the %d-byte buffer", n, len(r.buf))
	}
	v.n = int(n)
	return v, nil
}

// FlexMapRef is a map: sorted keys and their values.
type FlexMapRef struct {
	keys   FlexVec
	values FlexVec
	Path   string
}

// Map returns a map value.
func (r FlexRef) Map() (FlexMapRef, error) {
	if r.typ != FlexMap {
		return FlexMapRef{}, errAt(r.pos, r.Path, "%s is not a map", r.typ)
	}
	values, err := r.Vector()
	if err != nil {
		return FlexMapRef{}, err
	}
	t := values.start
	// Before the length: the keys vector's byte width, and before that the
	// offset to the keys vector.
	kp := t - 3*r.width
	kw, err := r.readAt(t-2*r.width, r.width)
	if err != nil {
		return FlexMapRef{}, err
	}
	if kw != 1 && kw != 2 && kw != 4 && kw != 8 {
		return FlexMapRef{}, errAt(t-2*r.width, r.Path, "map keys byte width %d is not 1, 2, 4 or 8", kw)
	}
	keysRef := FlexRef{buf: r.buf, pos: kp, parentWidth: r.width, typ: FlexVectorKey, width: int(kw), Path: r.Path + ".keys"}
	keys, err := keysRef.Vector()
	if err != nil {
		return FlexMapRef{}, err
	}
	if keys.n != values.n {
		return FlexMapRef{}, errAt(kp, r.Path, "map has %d keys but %d values", keys.n, values.n)
	}
	return FlexMapRef{keys: keys, values: values, Path: r.Path}, nil
}

// Len is the number of entries.
func (m FlexMapRef) Len() int { return m.values.n }

// Key returns key i (a copy: see KeyBytes for keys that may be shared).
func (m FlexMapRef) Key(i int) (string, error) {
	b, _, err := m.KeyBytes(i)
	return string(b), err
}

// KeyBytes returns key i as a sub-slice of the buffer and its offset.
// Keys of many entries may point at one string: a caller that keeps keys
// should convert each offset once, not each entry (a 1 MB file whose
// entries share one long key was gigabytes of copies).
func (m FlexMapRef) KeyBytes(i int) ([]byte, int, error) {
	return m.keys.At(i).Bytes()
}

// MaxPathKey is the number of key bytes a value's Path quotes.
const MaxPathKey = 64

// Value returns value i, its path naming the key (at most MaxPathKey
// bytes of it, so that paths stay small whatever the key).
func (m FlexMapRef) Value(i int) (FlexRef, error) {
	k, _, err := m.KeyBytes(i)
	if err != nil {
		return FlexRef{}, err
	}
	v := m.values.At(i)
	if len(k) > MaxPathKey {
		v.Path = fmt.Sprintf("%s[%q...(%d bytes)]", m.Path, k[:MaxPathKey], len(k))
	} else {
		v.Path = fmt.Sprintf("%s[%q]", m.Path, k)
	}
	return v, nil
}

// Lookup finds a key (linear scan: maps here hold a handful of keys).
func (m FlexMapRef) Lookup(key string) (FlexRef, bool, error) {
	for i := 0; i < m.Len(); i++ {
		k, _, err := m.KeyBytes(i)
		if err != nil {
			return FlexRef{}, false, err
		}
		if string(k) == key {
			v, err := m.Value(i)
			return v, err == nil, err
		}
	}
	return FlexRef{}, false, nil
}

// Walk visits every value below r depth-first (maps and vectors), up to
// maxDepth levels, calling fn for each. It exists for verification and
// fuzzing: offsets in FlexBuffers point backwards, and a value may point at
// itself or be shared, so the depth bound and a budget of one visit per input
// byte are what make a walk terminate quickly.
func Walk(r FlexRef, maxDepth int, fn func(FlexRef) error) error {
	budget := len(r.buf) + 1
	return walk(r, maxDepth, &budget, fn)
}

func walk(r FlexRef, maxDepth int, budget *int, fn func(FlexRef) error) error {
	*budget--
	if *budget < 0 {
		return errAt(r.pos, r.Path, "more values than bytes: shared or cyclic references")
	}
	if err := fn(r); err != nil {
		return err
	}
	if maxDepth <= 0 {
		return nil
	}
	switch {
	case r.typ == FlexMap:
		m, err := r.Map()
		if err != nil {
			return err
		}
		for i := 0; i < m.Len(); i++ {
			v, err := m.Value(i)
			if err != nil {
				return err
			}
			if err := walk(v, maxDepth-1, budget, fn); err != nil {
				return err
			}
		}
	case r.typ == FlexVector || (r.typ >= FlexVectorInt && r.typ <= FlexVectorFloat4) || r.typ == FlexVectorBool:
		v, err := r.Vector()
		if err != nil {
			return err
		}
		for i := 0; i < v.Len(); i++ {
			if err := walk(v.At(i), maxDepth-1, budget, fn); err != nil {
				return err
			}
		}
	case r.typ == FlexString || r.typ == FlexBlob || r.typ == FlexKey:
		_, _, err := r.Bytes()
		return err
	case r.typ == FlexIndirectInt || r.typ == FlexIndirectUint || r.typ == FlexInt || r.typ == FlexUint || r.typ == FlexBool:
		_, err := r.Int()
		return err
	}
	return nil
}
