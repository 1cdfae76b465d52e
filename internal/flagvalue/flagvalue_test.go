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
