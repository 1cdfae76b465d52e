package buildinfo

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadAndText(t *testing.T) {
	v := Read("v1.2.3", "0123456789abcdef0123")
	if v.Version != "v1.2.3" || v.Go == "" {
		t.Errorf("%+v", v)
	}
	v.Commit, v.Modified = "0123456789abcdef0123", true
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.HasPrefix(got, "npukit v1.2.3 (go") || !strings.HasSuffix(got, ", commit 0123456789ab, modified)\n") {
		t.Errorf("%q", got)
	}
	if Read("", "").Version == "" {
		t.Error("no version")
	}
}
