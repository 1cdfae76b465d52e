// Package sbuf embeds the example allocation plans of this directory (the
// NKI direct allocation guide's examples and the placement benchmark plan)
// so that npukit's demo can ship them; tests read the files directly.
package sbuf

import "embed"

// Plans holds the *.yaml plans of this directory.
//
//go:embed *.yaml
var Plans embed.FS
