package cli

import "github.com/spf13/cobra"

func init() { registerCommand(42, newGeminiCmd) }

// geminiCommands lets the Gemini files of this package each add their
// subcommands to `npukit gemini` without editing a shared list.
var geminiCommands []func(env *Env) *cobra.Command

func registerGeminiCommand(f func(env *Env) *cobra.Command) {
	geminiCommands = append(geminiCommands, f)
}

func newGeminiCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gemini",
		Short: "Gemini scheduler IR tools: synth, realloc",
		Long:  longHelp("gemini"),
	}
	for _, f := range geminiCommands {
		cmd.AddCommand(f(env))
	}
	return cmd
}
