package geminireport

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/report"
)

// Every part of a report names a core the same way: by its ID, as the
// per-core table, inspect and the simulation do, with the file's key next
// to it where they differ. The raw multi-core IR keys its cores by mesh
// position (1, 2, 5, 6): its L2 charts were titled "Core 1" for core 0.
func TestCoreNamesAgree(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	for _, f := range conformance.Files(t, dir, "*.json") {
		s, err := gemini.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Page([]File{{Name: f, Schedule: s, Sim: timing.ForName(f)}})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := report.Render(&b, p); err != nil {
			t.Fatal(err)
		}
		html := b.String()
		for _, m := range regexp.MustCompile(`(?i)>core (\d+)(?: \(key (\d+)\))?[:<]`).FindAllStringSubmatch(html, -1) {
			id := m[1]
			found := false
			for _, c := range s.Cores {
				if id == strconv.Itoa(c.ID) {
					found = true
					if m[2] == "" && c.Key != int64(c.ID) && strings.HasSuffix(m[0], ":") { // a caption
						t.Errorf("%s: %q names core %d without its key %d", filepath.Base(f), m[0], c.ID, c.Key)
					}
				}
			}
			if !found {
				t.Errorf("%s: %q names a core by a number that is no core's ID", filepath.Base(f), m[0])
			}
		}
		for _, c := range s.Cores {
			if c.Key != int64(c.ID) && !strings.Contains(html, "Core "+strconv.Itoa(c.ID)+" (key "+strconv.FormatInt(c.Key, 10)+")") {
				t.Errorf("%s: core %d (key %d) is not named with its key", filepath.Base(f), c.ID, c.Key)
			}
		}
	}
}
