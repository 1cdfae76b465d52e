package cli

import (
	"path/filepath"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/spf13/pflag"
)

func init() {
	registerKindFlags("sim", neffMeasuredFlags, detect.NEFF, detect.NEFFDir)
	registerKindFlags("report", neffMeasuredFlags, detect.NEFF, detect.NEFFDir)
	registerKindFlags("inspect", ntffNeffFlags, detect.NTFF)
}

// neffMeasuredFlags binds `npukit sim X.neff --measured X.ntff`.
func neffMeasuredFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	var path string
	var other bool
	fs.StringVar(&path, "measured", "", "NEFF: compare the simulation with a Neuron profile capture (.ntff) of the NEFF's run: total, per core, engine and DMA queue, with the ratio (report: both timelines); a capture whose recorded NEFF UUID is not the NEFF's is refused")
	fs.BoolVar(&other, "measured-other-neff", false, "NEFF: compare with the --measured capture even though it records another NEFF's UUID (a comparison of two different programs, said so in the output)")
	return func(o *npukit.Options) error {
		if path == "" {
			if other {
				return usageErr("--measured-other-neff applies to a --measured capture: give --measured X.ntff")
			}
			return nil
		}
		o.NeffMeasuredOtherNeff = other
		if err := refuseOtherKind(path, detect.NTFF.Describe(), detect.NTFF); err != nil {
			return err
		}
		b, err := inputfile.ReadFile(path)
		if err != nil {
			return usageErr("--measured %s: %v", path, ioCause(err))
		}
		o.NeffMeasured, o.NeffMeasuredName = b, filepath.Base(path)
		return nil
	}
}

// ntffNeffFlags binds `npukit inspect X.ntff --neff X.neff`.
func ntffNeffFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	var path string
	fs.StringVar(&path, "neff", "", "Neuron profile captures: the NEFF that was profiled (default: the .neff beside the capture whose UUID it records)")
	return func(o *npukit.Options) error {
		if path != "" {
			if _, err := npukit.Open(path); err != nil {
				return usageErr("--neff %s: %v", path, ioCause(err))
			}
			if err := refuseOtherKind(path, detect.NEFF.Describe(), detect.NEFF, detect.NEFFDir); err != nil {
				return err
			}
		}
		o.NtffNeff = path
		return nil
	}
}
