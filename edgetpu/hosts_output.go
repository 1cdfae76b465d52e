package edgetpu

import (
	"encoding/json"
	"io"
)

// HostList is the host classes as `--host help` gives them: HostsText's
// table as text, and under --json the classes with their constants and
// sources (audit r3 #5: --json was ignored and the table printed).
type HostList struct{}

// WriteText writes the host classes' table (HostsText).
func (HostList) WriteText(w io.Writer) error { return HostsText(w) }

// MarshalJSON gives {"default": DefaultHost, "hosts": [...]}.
func (HostList) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Default string      `json:"default"`
		Hosts   []HostClass `json:"hosts"`
	}{DefaultHost, hostClasses})
}
