package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
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
	registerDemoStep(demoStep{order: 10, kind: detect.NEFF, name: "neff unpack + pack round trip", run: neffDemoRoundTrip})
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

// readNeffFile reads a NEFF container with neffLimits; a member total past
// the cap names the variable that raises it.
func readNeffFile(path string) (*neff.File, error) {
	lim, err := neffLimits()
	if err != nil {
		return nil, err
	}
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := neff.Read(b, lim)
	return f, neffLimitHint(err)
}

// neffLimitHint adds how to raise the limit to a too-large error.
func neffLimitHint(err error) error {
	var fe *neff.FormatError
	if errors.As(err, &fe) && fe.Rule == neff.RuleTooLarge {
		return fmt.Errorf("%w (set %s to raise the limit)", err, neffMaxBytesEnv)
	}
	return err
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
	f, err := readNeffFile(path)
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	return f, nil
}

func newNeffUnpackCmd(env *Env) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "unpack FILE -o DIR",
		Short: "Write a NEFF's members and header.json into a directory",
		Long: `unpack writes every member of the NEFF's tar payload into DIR under its own path,
and the header fields to DIR/header.json (edit them there; pack reads them back).
Absolute paths, "..", links and device entries are refused. DIR is built
atomically: it appears complete or not at all; an existing non-empty DIR is
replaced only with --force. A wrong payload hash is reported, not fatal.`,
		Args: cobra.ExactArgs(1),
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
		Long: `pack builds a NEFF from DIR: the header fields come from DIR/header.json, every
other regular file becomes a member. The tar is sorted ustar with mtime 0,
uid/gid 1000 "nobody" and mode 0664; pkg_version 2 payloads are gzip-compressed
and zero-padded to a multiple of 10240 bytes, like neuronx-cc. data_size and
the hash are recomputed and stored in the form header.json records (the form
the unpacked file had, so unpack -> pack keeps it), or as --hash-form says:
neuronx-cc (MD5, 32-bit words byte-reversed, zero tail), natural-zero (MD5,
natural order, zero tail) or natural (MD5, natural order, ASCII '0' tail);
pkg_version 1 always uses SHA-256. The padding also follows header.json unless
--no-padding is given. The same DIR always packs to the same bytes. FILE is
written atomically.`,
		Args: cobra.ExactArgs(1),
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

// neffDemoRoundTrip unpacks the demo NEFF, packs it again and shows that
// the members survive and the repacked file still checks clean.
func neffDemoRoundTrip(env *Env, path, outDir string) error {
	f, err := neff.ReadFile(path)
	if err != nil {
		return err
	}
	// One directory per example, so two NEFF examples do not overwrite
	// each other's members.
	dir := filepath.Join(outDir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".unpacked")
	files, err := neff.Unpack(f, dir, true)
	if err != nil {
		return err
	}
	hj, ms, err := neff.ReadDir(dir, neff.DefaultLimits())
	if err != nil {
		return err
	}
	raw, err := neff.Pack(hj.Header, ms, neff.PackOptions{})
	if err != nil {
		return err
	}
	rep, m := neff.CheckBytes(raw, neff.DefaultLimits(), neff.DefaultRuntime)
	if m == nil {
		return fmt.Errorf("repacked NEFF unreadable: %v", rep)
	}
	d := neff.Diff(&neff.Model{File: f}, m, neff.DiffOptions{})
	fmt.Fprintf(env.Stdout, "unpacked %d files into %s, packed them again: %s; check of the repacked file: %d errors\n",
		len(files), dir, d.Statement, rep.Count(diag.Error))
	return nil
}

// neffRuntimeFlags name the runtime `npukit check` gates NEFF headers
// against (default: the public Neuron runtime 2.x).
var neffRuntimeFlags struct {
	major    uint64
	features string
	fs       *pflag.FlagSet
}

func neffCheckFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	neffRuntimeFlags.fs = fs
	fs.Uint64Var(&neffRuntimeFlags.major, "neff-runtime-major", neff.DefaultRuntime.MaxMajor,
		"NEFF: highest neff_version_major the target runtime loads")
	fs.StringVar(&neffRuntimeFlags.features, "neff-runtime-features", fmt.Sprintf("%#x", neff.DefaultRuntime.Features),
		"NEFF: feature-bit mask the target runtime supports (its \"Currently supporting: 0x...\" message)")
	return func(o *npukit.Options) error {
		rt, err := neffCheckRuntime()
		if err != nil {
			return usageErr("%v", err)
		}
		o.NeffRuntime = &rt
		return nil
	}
}

// neffCheckRuntime is the runtime the flags describe; it keeps the default
// runtime's name unless a flag changed what it accepts.
func neffCheckRuntime() (neff.Runtime, error) {
	rt := neff.DefaultRuntime
	f := neffRuntimeFlags
	if f.major == 0 && f.features == "" { // flags not bound (library callers, tests)
		return rt, nil
	}
	feats, err := strconv.ParseUint(strings.TrimSpace(f.features), 0, 64)
	if err != nil {
		return rt, fmt.Errorf("--neff-runtime-features %q: want a 64-bit mask such as 0x80000000000000ff", f.features)
	}
	if f.major != rt.MaxMajor || feats != rt.Features {
		rt = neff.Runtime{Name: fmt.Sprintf("a runtime loading NEFF major <= %d with feature bits %#x", f.major, feats),
			MaxMajor: f.major, Features: feats}
	}
	// A runtime the user names is a gate (errors); the default one only
	// warns about feature bits (see neff.Runtime.Assumed).
	if f.fs != nil && (f.fs.Changed("neff-runtime-features") || f.fs.Changed("neff-runtime-major")) {
		rt.Assumed = false
	}
	return rt, nil
}
