package report

import "testing"

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"dir/model_edgetpu.tflite": "model_edgetpu.html",
		"-":                        "stdin.html",
		"x.html":                   "x.html",
		".hidden":                  ".hidden.html",
		"plan":                     "plan.html",
	} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}
