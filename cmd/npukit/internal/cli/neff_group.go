package cli

import "github.com/spf13/cobra"

func init() { registerCommand(41, newNeffCmd) }

// neffCommands lets the NEFF files of this package (container tools, DMA
// tools) each add their subcommands to `npukit neff` without editing a
// shared list.
var neffCommands []func(env *Env) *cobra.Command

func registerNeffCommand(f func(env *Env) *cobra.Command) { neffCommands = append(neffCommands, f) }

func newNeffCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "neff",
		Short: "AWS Neuron NEFF tools: unpack, pack, dma",
		Long:  longHelp("neff"),
	}
	for _, f := range neffCommands {
		cmd.AddCommand(f(env))
	}
	return cmd
}
