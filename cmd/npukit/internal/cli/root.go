// Package cli is npukit's command tree. It is thin: each file holds one
// command (flags, a call into the library, a renderer). Format support is
// added by registering a Format (formats.go) and, where a format has its
// own commands, a command factory (registerCommand) from the format's file.
package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/flagvalue"
	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/spf13/cobra"
)

// Exit codes of every command.
const (
	ExitOK         = 0 // success
	ExitFindings   = 1 // check found errors
	ExitUsage      = 2 // usage error, unreadable or unrecognised input
	ExitUnexpected = 3 // an internal failure (a bug): please report
)

// ExitError carries an exit code through cobra.
type ExitError struct {
	Code int
	Err  error // nil when the message was already printed
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageErr wraps an error as exit code 2.
func usageErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// argsError is a usage error about a command's operands: a missing or
// extra argument, or a missing -o. Main prints every one the same way,
// naming the command and showing its usage line (README: "A wrong argument
// count names the command and shows its usage line"), whichever check
// found it: cobra's argument count, a command's own (check, alloc) or the
// library's (nki.ErrKernelCount).
type argsError struct{ err error }

func (e *argsError) Error() string { return e.err.Error() }
func (e *argsError) Unwrap() error { return e.err }

// argsErr is a usage error (exit 2) about the command's operands.
func argsErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: &argsError{fmt.Errorf(format, args...)}}
}

// Env is what every command receives.
type Env struct {
	Stdout, Stderr io.Writer
	JSON           bool
	Quiet          bool
}

type commandFactory struct {
	order int
	make  func(env *Env) *cobra.Command
}

var commandFactories []commandFactory

// registerCommand adds a top-level command; order sorts the help listing
// (lower first) so that the output is stable whatever the init order.
func registerCommand(order int, make func(env *Env) *cobra.Command) {
	commandFactories = append(commandFactories, commandFactory{order, make})
}

// NewRoot builds the command tree writing to the given streams.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "npukit",
		Short:         "Inspect, check, link, simulate and plan NPU executables and schedules",
		Long:          longHelp("npukit"),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.PersistentFlags().BoolVar(&env.JSON, "json", false, "write machine-readable JSON instead of text")
	root.PersistentFlags().BoolVarP(&env.Quiet, "quiet", "q", false, "no progress output on stderr")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if env.JSON && cmd.HasParent() && cmd.Parent().Name() == "completion" {
			return usageErr("completion %s writes a shell script: --json does not apply", cmd.Name())
		}
		if err := flagvalue.CheckRanges(cmd.Flags()); err != nil {
			return usageErr("%v", err)
		}
		for _, n := range flagvalue.Deprecated(cmd.Flags()) {
			fmt.Fprintf(env.Stderr, "npukit: note: %s\n", n)
		}
		return checkOutputs(cmd, args)
	}
	var showVersion bool
	root.Flags().BoolVar(&showVersion, "version", false, "print npukit's version (as the version command does)")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if showVersion {
			return printVersion(env)
		}
		return cmd.Help()
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: withUsage(c, err)}
	})
	fs := append([]commandFactory(nil), commandFactories...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].order < fs[j].order })
	for _, f := range fs {
		root.AddCommand(f.make(env))
	}
	guardGroups(root)
	nameArgErrors(root)
	addKindsHelp(root)
	documentOutputs(root)
	return root
}

// guardGroups makes every command group (a command with subcommands and
// no action of its own) refuse an unknown subcommand with exit 2 and
// cobra's "did you mean" suggestions; bare, it prints its help. Without
// this cobra prints the group's help and exits 0 on "neff unpak".
func guardGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		guardGroups(sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || (c.Run != nil || c.RunE != nil) && c.Args != nil && !isNoArgs(c) {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s\n\nRun '%s --help' for usage.", msg, cmd.CommandPath())}
	}
	c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	c.Run = nil
}

// nameArgErrors makes a wrong number of arguments say which command
// refused them and show its usage line (issue 32: "requires at least 1
// arg(s), only received 0" named neither).
func nameArgErrors(c *cobra.Command) {
	for _, sub := range c.Commands() {
		nameArgErrors(sub)
	}
	if !c.HasParent() || c.Args == nil {
		return
	}
	args := c.Args
	c.Args = func(cmd *cobra.Command, a []string) error {
		err := args(cmd, a)
		var ee *ExitError
		if err == nil || errors.As(err, &ee) {
			return err
		}
		if strings.Contains(err.Error(), "arg(s)") { // cobra's count check
			return argsErr("%s", argCountMsg(cmd, len(a)))
		}
		return argsErr("%v", err)
	}
}

// argCountMsg says what a command whose argument count cobra refused
// wants, from its usage line ("inspect FILE..." wants at least one FILE),
// instead of cobra's "requires at least 1 arg(s), only received 0".
func argCountMsg(c *cobra.Command, n int) string {
	var spec []string
	for _, w := range strings.Fields(c.Use)[1:] {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[-") {
			break
		}
		spec = append(spec, w)
	}
	want := strings.Join(spec, " ")
	switch {
	case want == "":
		return fmt.Sprintf("takes no arguments (%d given)", n)
	case n == 0 && len(spec) == 1 && strings.HasSuffix(want, "..."):
		return "needs at least one " + strings.TrimSuffix(want, "...")
	case n == 0:
		return "needs " + want
	case n == 1:
		return fmt.Sprintf("takes %s (1 argument given)", want)
	}
	return fmt.Sprintf("takes %s (%d arguments given)", want, n)
}

// withUsage prefixes a usage error with the command's path and follows it
// with the command's usage line.
func withUsage(c *cobra.Command, err error) error {
	if !c.HasParent() {
		return fmt.Errorf("%v\nRun '%s --help' for usage.", err, c.Name())
	}
	name := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ") // "npukit: inspect: ..."
	return fmt.Errorf("%s: %v\nusage: %s\nRun '%s --help' for more.", name, err, c.UseLine(), c.CommandPath())
}

// isNoArgs reports whether c refuses every positional argument.
func isNoArgs(c *cobra.Command) bool { return c.Args(c, []string{"x"}) != nil }

// Main runs npukit with args and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	out := stickywriter.New(stdout)
	stdout = out
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "npukit: internal error (please report): %v\n", r)
			code = ExitUnexpected
		}
		// output that did not reach its destination (a full disk,
		// /dev/full, a closed pipe) is a failure, whatever the command
		// concluded
		if out.Err() != nil && code == ExitOK {
			fmt.Fprintf(stderr, "npukit: writing standard output: %v\n", out.Err())
			code = ExitUsage
		}
	}()
	// Text output escapes control characters and cuts overlong lines, so a
	// name from an input cannot drive the terminal or flood it; --json
	// output passes unchanged (JSON escapes for itself).
	env := &Env{Stderr: &termsafe.Writer{W: stderr}}
	env.Stdout = &termsafe.Writer{W: stdout, Skip: func() bool { return env.JSON }}
	root := NewRoot(env)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		var ae *argsError
		if errors.As(ee.Err, &ae) && cmd != nil {
			ee.Err = withUsage(cmd, ae.err)
		}
		if ee.Err != nil {
			fmt.Fprintf(env.Stderr, "npukit: %v\n", ee.Err)
		}
		return ee.Code
	}
	// Errors cobra raises itself (unknown command, bad args) are usage errors.
	fmt.Fprintf(env.Stderr, "npukit: %v\n", err)
	return ExitUsage
}
