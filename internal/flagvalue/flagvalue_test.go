package flagvalue

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestValuesAndRanges(t *testing.T) {
	var b Bytes
	var d Seconds
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Var(&b, "capacity", "")
	fs.Var(&d, "timeout", "")
	MarkRange(fs, Positive, "capacity")
	MarkRange(fs, NonNegative, "timeout")
	if err := fs.Parse([]string{"--capacity", "8M", "--timeout", "30"}); err != nil {
		t.Fatal(err)
	}
	if b != 8<<20 || time.Duration(d) != 30*time.Second || CheckRanges(fs) != nil {
		t.Errorf("capacity %d timeout %v: %v", b, time.Duration(d), CheckRanges(fs))
	}
	if err := fs.Parse([]string{"--capacity", "lots"}); err == nil {
		t.Error("--capacity lots accepted")
	}
	if err := fs.Parse([]string{"--capacity", "0", "--timeout", "-2s"}); err != nil {
		t.Fatal(err)
	}
	if err := CheckRanges(fs); err == nil || !strings.Contains(err.Error(), "--capacity 0") {
		t.Errorf("out of range: %v", err)
	}
}

func TestDeprecated(t *testing.T) {
	var old, cur float64
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Float64Var(&old, "dma-gibps", 0, "")
	fs.Float64Var(&cur, "dma-bw", 0, "")
	MarkDeprecated(fs, "dma-gibps", "use --dma-bw")
	if err := fs.Parse([]string{"--dma-bw", "2"}); err != nil || len(Deprecated(fs)) != 0 {
		t.Errorf("no deprecated flag given: %v %v", err, Deprecated(fs))
	}
	if err := fs.Parse([]string{"--dma-gibps", "2"}); err != nil {
		t.Fatal(err)
	}
	if n := Deprecated(fs); len(n) != 1 || n[0] != "--dma-gibps is deprecated: use --dma-bw" || !fs.Lookup("dma-gibps").Hidden {
		t.Errorf("notes %v", n)
	}
}
