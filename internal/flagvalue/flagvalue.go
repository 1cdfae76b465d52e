// Package flagvalue holds the command-line values npukit's commands share
// beyond pflag's own: byte counts with binary suffixes, durations that
// also take bare seconds, and the allowed range of a numeric flag, checked
// before a command runs.
package flagvalue

import (
	"fmt"
	"strconv"
	"time"

	"github.com/npukit/npukit/internal/inputfile"
	"github.com/spf13/pflag"
)

// Bytes is a byte-count value that takes K, M, G and T suffixes (powers
// of 1024: --capacity 1G, 8MiB), as --max-memory does (issue 32:
// --capacity 1G failed with a raw ParseInt error).
type Bytes int64

func (b *Bytes) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *Bytes) Type() string   { return "bytes" }
func (b *Bytes) Set(s string) error {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n < 0 {
		*b = Bytes(n) // refused by the flag's range, naming it
		return nil
	}
	v, ok := inputfile.ParseSize(s)
	if !ok {
		return fmt.Errorf("want a number of bytes with an optional K, M, G or T suffix, e.g. 4096 or 8M")
	}
	*b = Bytes(v)
	return nil
}

// Seconds is a duration value that also takes a bare number of seconds
// (--timeout 30), as solvers' command lines usually do.
type Seconds time.Duration

func (d *Seconds) String() string { return time.Duration(*d).String() }
func (d *Seconds) Type() string   { return "duration" }
func (d *Seconds) Set(s string) error {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if v > 1e9 || v < -1e9 {
			return fmt.Errorf("%s seconds out of range", s)
		}
		*d = Seconds(time.Duration(v * float64(time.Second)))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	// A negative one is refused by the flag's range (MarkRange), which
	// names the flag.
	*d = Seconds(v)
	return nil
}

// The ranges of MarkRange.
const (
	Positive    = "positive"     // > 0
	NonNegative = "non-negative" // >= 0
)

// rangeKey is the annotation key of a numeric flag's allowed range.
const rangeKey = "npukit-range"

// MarkRange sets the allowed range (Positive, NonNegative) of numeric
// flags of fs; CheckRanges refuses a value given out of range before the
// command runs (so that --dram-bw 0 is not taken for "the default" and
// --pcie-gbps -3 not ignored).
func MarkRange(fs *pflag.FlagSet, rng string, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, rangeKey, []string{rng}); err != nil {
			panic(err) // a programming error: no such flag
		}
	}
}

// CheckRanges returns an error naming the first flag given outside its
// range.
func CheckRanges(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		rng := f.Annotations[rangeKey]
		if err != nil || len(rng) == 0 {
			return
		}
		s := f.Value.String()
		if d, e := time.ParseDuration(s); e == nil && f.Value.Type() == "duration" {
			s = strconv.FormatInt(int64(d), 10)
		}
		v, e := strconv.ParseFloat(s, 64)
		switch {
		case e != nil:
			return
		case rng[0] == Positive && !(v > 0):
			err = fmt.Errorf("--%s %s: want a value greater than 0", f.Name, f.Value.String())
		case rng[0] == NonNegative && !(v >= 0):
			err = fmt.Errorf("--%s %s: must not be negative", f.Name, f.Value.String())
		}
	})
	return err
}

// deprecatedKey is the annotation key of a deprecated flag's advice.
const deprecatedKey = "npukit-deprecated"

// MarkDeprecated hides a flag from the help and records the advice that
// Deprecated returns when it is given. pflag's MarkDeprecated printed it
// through cobra on the command's output, stdout, where it broke --json
// ("Flag --dma-gibps has been deprecated" above the JSON document).
func MarkDeprecated(fs *pflag.FlagSet, name, advice string) {
	if err := fs.SetAnnotation(name, deprecatedKey, []string{advice}); err != nil {
		panic(err) // a programming error: no such flag
	}
	fs.Lookup(name).Hidden = true
}

// Deprecated returns a note for each deprecated flag given ("--dma-gibps
// is deprecated: use --dma-bw ..."), in flag order.
func Deprecated(fs *pflag.FlagSet) []string {
	var notes []string
	fs.Visit(func(f *pflag.Flag) {
		if a := f.Annotations[deprecatedKey]; len(a) > 0 {
			notes = append(notes, fmt.Sprintf("--%s is deprecated: %s", f.Name, a[0]))
		}
	})
	return notes
}
