package cli

import (
	"fmt"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/tflite"
	"github.com/spf13/pflag"
)

func init() {
	registerKindFlags("sim", edgetpuSimFlags, detect.EdgeTPU, detect.DarwiNN, detect.TFLite)
	for _, cmd := range []string{"sim", "report"} {
		registerKindFlags(cmd, edgetpuTwinFlags, detect.EdgeTPU, detect.DarwiNN, detect.TFLite)
	}
}

// edgetpuTwinFlags binds the uncompiled twin of a compiled model for
// `npukit sim` and `npukit report`: given, or (by default) found beside
// the compiled file.
func edgetpuTwinFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	var uncompiled string
	var noTwin bool
	fs.StringVar(&uncompiled, "uncompiled", "", "Edge TPU: the uncompiled model the compiled one was made from: its predicted mapping gives the Edge TPU compute layer by layer (default: X.tflite beside X_edgetpu.tflite, when it checks out as the twin)")
	fs.BoolVar(&noTwin, "no-uncompiled", false, "Edge TPU: do not look for the uncompiled model beside the compiled one: estimate the Edge TPU compute from the compiled file alone")
	return func(o *npukit.Options) error {
		if uncompiled != "" {
			m, err := tflite.ReadFile(uncompiled)
			if err != nil {
				return usageErr("--uncompiled %s: %v", uncompiled, err)
			}
			o.EdgeTPULatency.Twin = &edgetpu.Twin{Path: uncompiled, Model: m, How: edgetpu.TwinGiven}
		}
		o.EdgeTPUNoTwin = noTwin
		return nil
	}
}

// edgetpuSimFlags binds the host class and inference options of
// `npukit sim MODEL.tflite`.
func edgetpuSimFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	var host string
	var evicted bool
	var resize, alternate string
	fs.StringVar(&host, "host", edgetpu.DefaultHost, "Edge TPU/TFLite: host class the model runs on (--host help lists them with what each assumes)")
	fs.BoolVar(&evicted, "evicted", false, "Edge TPU: another model with a different caching token runs between inferences, so cached parameters reload every inference")
	fs.StringVar(&resize, "resize-from", "", "Edge TPU/TFLite: add the host's per-call resize of a WxH source image to the model input (Coral's classification benchmarks)")
	fs.StringVar(&alternate, "alternate-with", "", "Edge TPU: another compiled model run in turn on the same Edge TPU: cached parameters reload every inference unless the two were co-compiled (same caching token)")
	return func(o *npukit.Options) error {
		o.EdgeTPUHost = host
		if alternate != "" {
			m, err := edgetpu.ReadFile(alternate)
			if err != nil {
				return usageErr("--alternate-with %s: %v", alternate, err)
			}
			o.EdgeTPULatency.AlternateWith = m
		}
		o.EdgeTPULatency.Evicted = evicted
		if resize != "" {
			var w, h int64
			if n, err := sscanDims(resize, &w, &h); err != nil || n != 2 || w <= 0 || h <= 0 || w > 1<<16 || h > 1<<16 {
				return usageErr("--resize-from %q: want WIDTHxHEIGHT, e.g. 1280x720", resize)
			}
			o.EdgeTPULatency.ResizeFromPixels = w * h
		}
		return nil
	}
}

func sscanDims(s string, w, h *int64) (int, error) { return fmt.Sscanf(s, "%dx%d", w, h) }
