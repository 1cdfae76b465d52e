package edgetpureport

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/report"
)

// The page's table cells never break inside a quantity (audit item 19): no
// break opportunity inside a number ("3.<wbr>4 MiB"), no breakable space
// between a number and its unit ("3.4 MiB"), and a yes/no column speaks
// in words, not "true". Cells of text wrap (they hold long statements and
// layer names); numeric cells never wrap (td.num, white-space: nowrap).
func TestPageNumbersDoNotBreak(t *testing.T) {
	files := conformance.Files(t, conformance.Shared(t, "corpus2/edgetpu"), "Cattainer__yolov8n_full_integer_quant_edgetpu.tflite")
	files = append(files, conformance.Files(t, conformance.Corpus(t, "edgetpu"), "pipeline__ssd_mobilenet_v1_coco_quant_postprocess_segment_1_of_2_edgetpu.tflite")...)
	if len(files) == 0 {
		t.Skip("no model")
	}
	cell := regexp.MustCompile(`(?s)<td>(.*?)</td>`)
	inNumber := regexp.MustCompile(`\d[.,]<wbr>\d`)
	beforeUnit := regexp.MustCompile(`\d(<wbr>)? +(B|KiB|MiB|GiB|us|ms|ns|GB/s|MACs?|%)\b`)
	inUnit := regexp.MustCompile(`/<wbr>s\b`)
	raw := regexp.MustCompile(`>(true|false)<`)
	for _, f := range files {
		m, err := edgetpu.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		page, err := Page([]edgetpu.NamedModel{{Path: f, Model: m}})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := report.Render(&buf, page); err != nil {
			t.Fatal(err)
		}
		html := buf.String()
		if x := raw.FindString(html); x != "" {
			t.Errorf("%s: a raw boolean in the page: %s", filepath.Base(f), x)
		}
		cells := 0
		for _, c := range cell.FindAllStringSubmatch(html, -1) {
			cells++
			for _, re := range []*regexp.Regexp{inNumber, beforeUnit, inUnit} {
				if loc := re.FindStringIndex(c[1]); loc != nil {
					t.Errorf("%s: a line may break inside a quantity: %q", filepath.Base(f), c[1][max(loc[0]-40, 0):min(loc[1]+10, len(c[1]))])
				}
			}
		}
		if cells == 0 {
			t.Errorf("%s: no table cell of text", filepath.Base(f))
		}
	}
}
