package report

import (
	"os"
	"testing"
)

// TestWriteSample writes the sample page for a manual or browser look:
// NPUKIT_SAMPLE_REPORT=path go test ./report -run WriteSample
func TestWriteSample(t *testing.T) {
	p := os.Getenv("NPUKIT_SAMPLE_REPORT")
	if p == "" {
		t.Skip("set NPUKIT_SAMPLE_REPORT to write the sample page")
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Render(f, samplePage()); err != nil {
		t.Fatal(err)
	}
}
