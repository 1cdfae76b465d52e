package gemini

import (
	"fmt"
	"io"

	"github.com/npukit/npukit/internal/humanize"
)

// SynthReport is what `npukit gemini synth` wrote.
type SynthReport struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	Cores     int    `json:"cores"`
	Workloads int    `json:"workloads_per_core"`
}

// WriteText says what was written and how large it is.
func (s *SynthReport) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "wrote %s: %s, %s x %s\n", s.Path, humanize.Bytes(s.Bytes), humanize.Plural(s.Cores, "core"), humanize.Plural(s.Workloads, "workload"))
	return err
}

// Validate reports whether Synth accepts cfg, without generating the
// schedule.
func (cfg SynthConfig) Validate() error {
	_, err := newSynth(cfg)
	return err
}
