package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neff/dmaprog"
)

func init() { registerNeffCommand(newNeffDMACmd) }

// openNeffDMA opens a NEFF argument and lists its DMA programs.
func openNeffDMA(path string) (*npukit.NeffDMAListing, error) {
	a, err := openArg(path)
	if err != nil {
		return nil, err
	}
	if !a.IsNeff() {
		return nil, wrongKind(path, a, "NEFF")
	}
	o, err := libOptions()
	if err != nil {
		return nil, err
	}
	l, err := a.NeffDMA(o)
	if err != nil {
		return nil, libErr(path, err)
	}
	return l, nil
}

func newNeffDMACmd(env *Env) *cobra.Command {
	var execute, all, force bool
	var maxMemory string
	var inputs []string
	var outDir string
	cmd := &cobra.Command{
		Use:   "dma FILE.neff [--execute --input NAME=x.npy ... -o DIR]",
		Short: "DMA traffic per engine and queue with efficiency findings; --execute runs the DMA program",
		Long:  longHelp("neff-dma"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !execute && (len(inputs) > 0 || outDir != "") {
				return usageErr("--input and -o need --execute")
			}
			if execute && outDir == "" {
				return usageErr("--execute needs -o DIR")
			}
			l, err := openNeffDMA(args[0])
			if err != nil {
				return err
			}
			l.ShowAll = all
			if execute {
				fmt.Fprintln(env.Stderr, "note: executing the DMA program only; engine instructions are not executed")
				var budget int64
				if maxMemory != "" {
					v, ok := inputfile.ParseSize(maxMemory)
					if !ok || v <= 0 {
						return usageErr("--max-memory %q: want a positive number of bytes, e.g. 8G", maxMemory)
					}
					budget = v
				}
				var ins []npukit.NeffInput
				for _, spec := range inputs {
					name, file, ok := strings.Cut(spec, "=")
					if !ok || name == "" || file == "" {
						return usageErr("--input %q: want NAME=x.npy", spec)
					}
					ins = append(ins, npukit.NeffInput{Var: name, Path: file})
				}
				// a failing program is exit 1, any other problem (inputs,
				// budget, output directory) exit 2
				err := l.Execute(ins, outDir, force, budget)
				var be *dmaprog.BudgetError
				switch {
				case errors.Is(err, npukit.ErrDMAExecute):
					return &ExitError{Code: ExitFindings, Err: err}
				case errors.As(err, &be):
					return usageErr("%v (--max-memory BYTES raises the budget)", err)
				case err != nil:
					return usageErr("%v", err)
				}
			}
			return render(env, l)
		},
	}
	cmd.Flags().BoolVar(&execute, "execute", false, "run the DMA program and write the variables as .npy (engine instructions are not executed)")
	cmd.Flags().StringArrayVar(&inputs, "input", nil, "NAME=x.npy: initial contents of variable NAME (repeatable; with --execute)")
	cmd.Flags().StringVarP(&outDir, "output", "o", "", "directory for the variables' .npy files (with --execute)")
	cmd.Flags().BoolVar(&all, "all", false, "list every efficiency finding (default: the first 20 and counts per rule)")
	cmd.Flags().BoolVar(&force, "force", false, "replace a non-empty DIR (with --execute)")
	cmd.Flags().StringVar(&maxMemory, "max-memory", "", "bytes the variables of one subgraph may use with --execute (K, M, G suffixes; default an eighth of memory, at most 4G)")
	return acceptsKinds(cmd, detect.NEFF, detect.NEFFDir)
}
