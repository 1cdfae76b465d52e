package report

import (
	"path/filepath"
	"strings"
)

// FileName is the file name of the report page of input: its base name
// without the extension, plus .html ("model_edgetpu.tflite" gives
// "model_edgetpu.html", standard input "-" gives "stdin.html").
func FileName(input string) string {
	if input == "-" {
		return "stdin.html"
	}
	base := filepath.Base(filepath.Clean(input))
	if stem := strings.TrimSuffix(base, filepath.Ext(base)); stem != "" {
		base = stem
	}
	return base + ".html"
}
