// Package nki embeds npukit's NKI kernels after the examples of the NKI
// direct allocation guide (Beta 1 API) and their manifest, so that
// npukit's demo can ship them; tests read the files in place.
package nki

import "embed"

// Kernels holds the *.py kernels of this directory and manifest.json
// (the arguments each kernel is traced with, in the corpus manifest's
// shape: `npukit nki check --manifest manifest.json --entry guide.overlap`).
//
//go:embed *.py manifest.json
var Kernels embed.FS
