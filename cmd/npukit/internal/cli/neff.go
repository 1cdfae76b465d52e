package cli

import (
	"os"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	registerKindFlags("check", neffCheckFlags, detect.NEFF, detect.NEFFDir)
	registerNeffCommand(newNeffUnpackCmd)
	registerNeffCommand(newNeffPackCmd)
}

// neffMaxBytesEnv raises (or lowers) the cap on a NEFF's decompressed
// members, neff.DefaultLimits by default (an eighth of memory, at most
// 4 GiB): bytes, or a number with a K, M, G or T
// (binary) suffix.
const neffMaxBytesEnv = "NPUKIT_NEFF_MAX_BYTES"

// neffLimits are the reading limits: neff.DefaultLimits with the member
// cap from NPUKIT_NEFF_MAX_BYTES when it is set.
func neffLimits() (neff.Limits, error) {
	lim := neff.DefaultLimits()
	v := os.Getenv(neffMaxBytesEnv)
	if strings.TrimSpace(v) == "" {
		return lim, nil
	}
	n, ok := inputfile.ParseSize(v)
	if !ok || n <= 0 {
		return lim, usageErr("%s=%q: want a positive number of bytes, e.g. 8G", neffMaxBytesEnv, v)
	}
	lim.MaxDecompressed = n
	return lim, nil
}

// neffArg reads a FILE argument that must be a NEFF.
func neffArg(path string) (*neff.File, error) {
	a, err := openArg(path)
	if err != nil {
		return nil, err
	}
	if a.Kind != detect.NEFF {
		return nil, wrongKind(path, a, "NEFF")
	}
	o, err := libOptions()
	if err != nil {
		return nil, err
	}
	f, err := a.NeffFile(o)
	if err != nil {
		return nil, libErr(path, err)
	}
	return f, nil
}

func newNeffUnpackCmd(env *Env) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "unpack FILE -o DIR",
		Short: "Write a NEFF's members and header.json into a directory",
		Long:  longHelp("neff-unpack"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("unpack needs -o DIR")
			}
			f, err := neffArg(args[0])
			if err != nil {
				return err
			}
			o, err := neff.UnpackReport(f, out, force)
			if err != nil {
				return usageErr("%v", err)
			}
			if env.Quiet && !env.JSON {
				return nil
			}
			return render(env, o)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "directory to write into")
	cmd.Flags().BoolVar(&force, "force", false, "replace a non-empty DIR")
	return acceptsKinds(cmd, detect.NEFF)
}

func newNeffPackCmd(env *Env) *cobra.Command {
	var out, form string
	var noPad bool
	cmd := &cobra.Command{
		Use:   "pack DIR -o FILE",
		Short: "Build a NEFF from a directory written by unpack, reproducibly",
		Long:  longHelp("neff-pack"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("pack needs -o FILE")
			}
			lim, err := neffLimits()
			if err != nil {
				return err
			}
			if st, err := os.Stat(args[0]); err == nil && !st.IsDir() {
				if a, err := npukit.Open(args[0]); err == nil {
					return wrongKind(args[0], a, "unpacked NEFF directory")
				}
				return usageErr("%s: not a directory: pack takes the directory unpack wrote", args[0])
			}
			hf, err := neff.ParseHashForm(form)
			if err != nil && cmd.Flags().Changed("hash-form") {
				return usageErr("--hash-form: %v", err)
			}
			raw, res, err := neff.PackDir(args[0], lim, func(opt *neff.PackOptions) {
				if cmd.Flags().Changed("hash-form") {
					opt.HashForm = hf
				}
				if cmd.Flags().Changed("no-padding") {
					opt.NoPadding = noPad
				}
			})
			if err != nil {
				return usageErr("%v", err)
			}
			if err := atomicfile.WriteFile(out, raw, 0o644); err != nil {
				return usageErr("%v", err)
			}
			res.Output = out
			if env.Quiet && !env.JSON {
				return nil
			}
			return render(env, res)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "NEFF file to write")
	cmd.Flags().StringVar(&form, "hash-form", "", "MD5 storage form for pkg_version 2: neuronx-cc, natural-zero or natural (default: header.json's, else neuronx-cc)")
	cmd.Flags().BoolVar(&noPad, "no-padding", false, "do not zero-pad the gzip payload to 10240 bytes")
	return acceptsKinds(cmd, detect.NEFFDir)
}

// neffCheckFlags bind the runtime `npukit check` gates NEFF headers
// against (default: the public Neuron runtime 2.x).
func neffCheckFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	var major uint64
	var features string
	fs.Uint64Var(&major, "neff-runtime-major", neff.DefaultRuntime.MaxMajor, "NEFF: highest neff_version_major the target runtime loads")
	// No printed default: naming a mask, even the public runtime's, makes
	// bits past it errors, so a default shown would not be one (audit r3 #24).
	fs.StringVar(&features, "neff-runtime-features", "", neff.FeaturesFlagHelp)
	return func(o *npukit.Options) error {
		rt, err := neff.RuntimeOfFlags(major, features, fs.Changed("neff-runtime-features"))
		if err != nil {
			return usageErr("--neff-runtime-features %q: want a 64-bit mask such as 0x80000000000000ff", features)
		}
		o.NeffRuntime = &rt
		return nil
	}
}
