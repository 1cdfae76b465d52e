package neff

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// fromTree stores a parsed JSON tree (see parseTree) into dst with
// encoding/json's meaning for the types the model uses: structs by their
// json tags (fields tagged "-" are skipped; keys no field declares go to a
// field of type Extra when there is one), pointers, slices, string-keyed
// maps, strings, bools, json.Number, integers and floats. null leaves a
// value as it is, like encoding/json. DMAEntry's desc (array or object) is
// handled here too. path names the position for errors.
func fromTree(v any, dst reflect.Value, path string) error {
	return prefixPath(path, fromTreeAt(v, dst))
}

// pathError carries the JSON path of a conversion problem; segments are
// prepended as the error unwinds, so no path is built on success.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return strings.TrimPrefix(e.path, ".") + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

func prefixPath(seg string, err error) error {
	if err == nil || seg == "" {
		return err
	}
	if pe, ok := err.(*pathError); ok {
		pe.path = seg + pe.path
		return pe
	}
	return &pathError{path: seg, err: err}
}

func fromTreeAt(v any, dst reflect.Value) error {
	if v == nil {
		switch dst.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			dst.SetZero()
		}
		return nil
	}
	switch dst.Type() {
	case numberType:
		switch x := v.(type) {
		case json.Number:
			dst.SetString(string(x))
			return nil
		case string:
			if _, err := parseTree([]byte(x), 1<<16); err == nil && x != "" && (x[0] == '-' || (x[0] >= '0' && x[0] <= '9')) {
				dst.SetString(x)
				return nil
			}
		}
		return typeErr(v, dst)
	case extraType:
		return typeErr(v, dst)
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return fromTreeAt(v, dst.Elem())
	case reflect.Interface:
		if dst.NumMethod() != 0 {
			return typeErr(v, dst)
		}
		dst.Set(reflect.ValueOf(untree(v)))
		return nil
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return typeErr(v, dst)
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return typeErr(v, dst)
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return typeErr(v, dst)
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || dst.OverflowInt(i) {
			return fmt.Errorf("number %s does not fit in %s", n, dst.Type())
		}
		dst.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return typeErr(v, dst)
		}
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil || dst.OverflowUint(u) {
			return fmt.Errorf("number %s does not fit in %s", n, dst.Type())
		}
		dst.SetUint(u)
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return typeErr(v, dst)
		}
		f, err := strconv.ParseFloat(string(n), dst.Type().Bits())
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("number %s does not fit in %s", n, dst.Type())
		}
		dst.SetFloat(f)
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			return typeErr(v, dst)
		}
		s := reflect.MakeSlice(dst.Type(), len(a), len(a))
		for i, x := range a {
			if err := fromTreeAt(x, s.Index(i)); err != nil {
				return prefixPath("["+strconv.Itoa(i)+"]", err)
			}
		}
		dst.Set(s)
	case reflect.Map:
		o, ok := v.(treeObject)
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return typeErr(v, dst)
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(dst.Type(), len(o)))
		}
		et := dst.Type().Elem()
		for _, kv := range o {
			e := reflect.New(et).Elem()
			if err := fromTreeAt(kv.V, e); err != nil {
				return prefixPath("."+kv.K, err)
			}
			dst.SetMapIndex(reflect.ValueOf(kv.K).Convert(dst.Type().Key()), e)
		}
	case reflect.Struct:
		o, ok := v.(treeObject)
		if !ok {
			return typeErr(v, dst)
		}
		return structFromTree(o, dst)
	default:
		return typeErr(v, dst)
	}
	return nil
}

var (
	numberType = reflect.TypeFor[json.Number]()
	extraType  = reflect.TypeFor[Extra]()
	dmaType    = reflect.TypeFor[DMAEntry]()
)

type structInfo struct {
	fields map[string]int // json key -> field index
	extra  int            // index of the Extra field, -1 when none
}

var structInfos sync.Map // reflect.Type -> *structInfo

func infoOf(t reflect.Type) *structInfo {
	if v, ok := structInfos.Load(t); ok {
		return v.(*structInfo)
	}
	si := &structInfo{fields: map[string]int{}, extra: -1}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type == extraType {
			si.extra = i
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		si.fields[name] = i
	}
	structInfos.Store(t, si)
	return si
}

func structFromTree(o treeObject, dst reflect.Value) error {
	si := infoOf(dst.Type())
	isDMA := dst.Type() == dmaType
	var extra Extra
	var desc any
	hasDesc := false
	for _, kv := range o {
		if i, ok := si.fields[kv.K]; ok {
			if err := fromTreeAt(kv.V, dst.Field(i)); err != nil {
				return prefixPath("."+kv.K, err)
			}
			continue
		}
		if isDMA && kv.K == "desc" {
			desc, hasDesc = kv.V, true
			continue
		}
		if si.extra < 0 {
			continue
		}
		raw, err := json.Marshal(untree(kv.V))
		if err != nil {
			return prefixPath("."+kv.K, err)
		}
		if extra == nil {
			extra = Extra{}
		}
		extra[kv.K] = raw
	}
	if si.extra >= 0 {
		dst.Field(si.extra).Set(reflect.ValueOf(extra))
	}
	if isDMA {
		e := dst.Addr().Interface().(*DMAEntry)
		e.Desc, e.DescObject, e.HasDesc = nil, false, hasDesc
		switch d := desc.(type) {
		case nil:
		case treeObject:
			var one Desc
			if err := structFromTree(d, reflect.ValueOf(&one).Elem()); err != nil {
				return prefixPath(".desc", err)
			}
			e.Desc, e.DescObject = []*Desc{&one}, true
		default:
			if err := fromTreeAt(d, reflect.ValueOf(&e.Desc).Elem()); err != nil {
				return prefixPath(".desc", err)
			}
		}
	}
	return nil
}

// TreeTypeError is a JSON value of the wrong type for the model.
type TreeTypeError struct {
	Got, Want string
}

func (e *TreeTypeError) Error() string {
	return fmt.Sprintf("cannot use a JSON %s as %s", e.Got, e.Want)
}

func typeErr(v any, dst reflect.Value) error {
	got := "null"
	switch v.(type) {
	case treeObject:
		got = "object"
	case []any:
		got = "array"
	case string:
		got = "string"
	case json.Number:
		got = "number"
	case bool:
		got = "bool"
	}
	return &TreeTypeError{Got: got, Want: dst.Type().String()}
}

// decodeTree parses b and stores it into v (a pointer).
func decodeTree(b []byte, v any, maxValues int64) error {
	_, err := decodeTreeDups(b, v, maxValues)
	return err
}

// decodeTreeDups is decodeTree that also returns the duplicate keys.
func decodeTreeDups(b []byte, v any, maxValues int64) ([]DuplicateKey, error) {
	t, dups, err := parseTreeDups(b, maxValues)
	if err != nil {
		return nil, err
	}
	return dups, fromTree(t, reflect.ValueOf(v).Elem(), "")
}

// TreePath returns the JSON path of a conversion error ("" when none).
func TreePath(err error) string {
	var pe *pathError
	if errors.As(err, &pe) {
		return strings.TrimPrefix(pe.path, ".")
	}
	return ""
}
