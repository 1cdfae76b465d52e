// Command npukit reads, checks, explains, links, re-allocates, simulates
// and renders NPU executables and schedules. See README.md.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/cli"
)

func main() {
	removeTempsOnSignal()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

func removeTempsOnSignal() {
	// Ctrl-C or a kill during a write: remove the hidden temporary files
	// and directories before exiting with the shell's 128+signal.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		atomicfile.RemoveTemps()
		code := 130
		if s == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}
