// Command npukit reads, checks, explains, links, re-allocates, simulates
// and renders NPU executables and schedules. See README.md.
package main

import (
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/npukit/npukit/cmd/npukit/internal/cli"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/inputfile"
)

func main() {
	removeTempsOnSignal()
	softMemoryLimit()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

func removeTempsOnSignal() {
	// Ctrl-C, a kill or a closed terminal during a write: put nothing more
	// in place, remove the hidden temporary files and directories (a
	// directory replacement in progress completes or is undone first) and
	// exit with the shell's 128+signal.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sig
		atomicfile.Interrupt()
		code := 130
		switch s {
		case syscall.SIGTERM:
			code = 143
		case syscall.SIGHUP:
			code = 129
		}
		os.Exit(code)
	}()
}

// softMemoryLimit makes the garbage collector work harder as the heap
// nears three quarters of the machine's memory (unless GOMEMLIMIT says
// otherwise), so garbage from a large input is returned before the
// machine runs out; the readers' own limits are what bound live memory.
func softMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if m := inputfile.TotalMemory(); m > 0 {
		debug.SetMemoryLimit(m / 4 * 3)
	}
}
