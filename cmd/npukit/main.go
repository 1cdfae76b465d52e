// Command npukit reads, checks, explains, links, re-allocates, simulates
// and renders NPU executables and schedules. See README.md.
package main

import (
	"os"

	"github.com/npukit/npukit/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
