package edgetpu

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/tflite"
)

// The latency model: what one inference of a model costs on a host class,
// split the way the time is spent. Every inference pays
//
//   - the invocation overhead: the runtime call on the host (a fixed part
//     and a part that scales with the host CPU's speed);
//   - the transfers over the host link: the input and output activations,
//     the instruction chunks the runtime sends every run, the parameters
//     that are streamed because they are not cached, and scratch that
//     spills to host memory (the USB runtime's plan, package dmaplan);
//   - the Edge TPU's compute: multiply-accumulates at an effective, not the
//     peak, throughput;
//   - every operator left on the host CPU, at a cost per operator type and
//     size on the host class's CPU.
//
// The first inference also loads the cached parameters (the
// PARAMETER_CACHING executable); later ones find them on chip unless a
// model with another caching token ran in between (models compiled
// separately evict each other; co-compiled ones share the cache).
//
// Constants are cited (a public source) or fitted, and say which: the
// fitted ones were fitted on ../shared/hw/edgetpu/measurements.csv, the
// rows named beside each, one constant per physics class (a link type, a
// host CPU, the Edge TPU), never per row.

// HostClass is a host with its link to the Edge TPU.
type HostClass struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// CPU is the host's CPU alone, for a model that leaves the Edge TPU
	// unused.
	CPU  string `json:"cpu"`
	Link string `json:"link"`
	// LinkMBps is the effective host-link throughput in MB/s (10^6 bytes);
	// the text prints it in GB/s, as every bandwidth npukit prints.
	LinkMBps float64 `json:"link_mb_per_s"`
	// CPUGMACs is the host CPU's int8 multiply-accumulate rate in the
	// TFLite CPU kernels of dense convolutions and fully-connected layers,
	// in 10^9 MAC/s (one interpreter thread, as the Coral benchmark
	// scripts run it): the desktop's rate over the host's general
	// slowness (HostSlowness).
	CPUGMACs float64 `json:"cpu_gmac_per_s"`
	// HostSlowness is how much slower than the desktop the host is in
	// general: its dense MACs, the runtime's own code (the invocation,
	// the image resize of Coral's classification benchmarks) and every
	// CPU kernel but the depthwise convolution.
	HostSlowness float64 `json:"host_slowness"`
	// DepthwiseSlowness is how much slower than the desktop the host runs
	// TFLite's depthwise convolution, fitted on its MobileNet v2 CPU-only
	// rows (their centre where two sources measured it): which depthwise
	// kernels a TFLite build has for the host's instruction set (the
	// hand-written 3x3 ones are aarch64's) sets it, not the host's general
	// speed.
	DepthwiseSlowness float64 `json:"depthwise_slowness"`
	// BoardSpread, for a class of two boards, is how far apart their
	// MobileNet v2 CPU-only times are (the larger over the smaller; 0 for
	// one board): the class is their centre, and an estimate with CPU
	// operators says how much either board may differ.
	BoardSpread float64 `json:"board_spread,omitempty"`
	// DepthwiseSpread is how far apart the depthwise factors fitted on
	// each source's MobileNet v2 time are (the larger over the smaller; 0
	// when one source measured the host): an estimate's depthwise
	// convolutions may take about its square root more or less for a
	// TFLite build like either.
	DepthwiseSpread float64 `json:"depthwise_source_spread,omitempty"`
	// LinkLatencyUs is what every Edge TPU inference waits on the host's
	// link path beyond the desktop's (in the invocation overhead): on the
	// Raspberry Pi 4 the USB 3 controller sits behind a PCIe lane.
	LinkLatencyUs float64 `json:"link_latency_us,omitempty"`
	Source        string  `json:"source"`
}

// USB reports whether the host reaches the Edge TPU over USB (the USB
// Accelerator), where libedgetpu's USB driver runs the DMA hints.
func (h HostClass) USB() bool { return strings.HasPrefix(h.Link, "USB") }

// slowness is how much slower than the desktop reference the host is in
// general (HostSlowness).
func (h HostClass) slowness() float64 { return h.HostSlowness }

// Edge TPU and runtime constants.
const (
	// tpuPaddedMACsPerUs is the Edge TPU's rate (MAC/µs) for a mapped
	// layer's MACs with its output channels padded to the array's width
	// (tpuLayerCost). The Edge TPU is a weight-stationary array of tiles
	// whose cores run 64-wide vectors of compute lanes [Yazdanbakhsh et al.,
	// "An Evaluation of Edge TPU Accelerators for Convolutional Neural
	// Networks", arXiv 2102.10423], and the compiler lays out every matrix
	// operator's output channels in groups of 64 (paramChannelAlign, read
	// from the compiled twins): a layer of 24 output channels keeps the
	// array as long per output position as one of 64. 4 TOPS peak is 2e12
	// MAC/s [coral.ai/docs/edgetpu/benchmarks]; a network's padded MACs run
	// at a fifth of it. Fitted: 0.34e12 padded MAC/s on the shared Edge TPU
	// rows, each architecture weighted once (MobileNet v2 through its twin,
	// etpu-01..04, 24..26, 30..32, 36..38, 42..44, 48..50; MobileNet v1
	// 0.25, PoseNet, DeepLab v3 dm05 and BodyPix from the compiled files
	// alone, etpu-08, 09, 13, 16, through the class rates below, refitted at
	// each trial rate); leaving out one architecture at a time moves the
	// fitted rate between 0.32e12 and 0.34e12 and its rows stay within
	// 0.87-1.12. That fit held the invocation at its value then (280 + 80 us
	// x slowness). Solved again at each trial rate (a line through
	// etpu-01..04, below), the invocation's fixed part absorbs whatever the
	// rate changes in MobileNet v2's compute (the same on every host), so
	// its 19 rows say nothing of the rate; it then rests on MobileNet v1
	// 0.25 (etpu-08, at the classifier rate) against PoseNet and BodyPix
	// (etpu-09, 16, at the dense rate), the class rates refitted with it,
	// and the refit gives 0.32e12, where 0.34e12 scores 0.018 against 0.013
	// (TestLatencyHostConstantsRefit, paddedRateRefit). The padding is what
	// makes a wide network faster per MAC: MobileNet v2's layers pad to 1.36
	// of their MACs, MobileNet v1 1.0's to 1.03 (one rate of 0.265e12 MAC/s
	// before, fitted on MobileNet v2, priced a wide network about 1.5x too
	// slow).
	tpuPaddedMACsPerUs = 340e3
	// classifierMACsPerUs, denseMACsPerUs and multiScaleMACsPerUs are the
	// effective rates (MAC/µs) at which the compiled file alone prices its
	// estimated MACs (estimatedMACs, by the same classes), where no layer
	// shapes say how much padding the layers carry. Fitted on the shared
	// twins of each class (those of the class constants below): the rate
	// that keeps the estimate from the compiled file nearest, in the worst
	// (twin, host class) case, the one from the twin's layers at
	// tpuPaddedMACsPerUs. Classifiers: 0.24e12 (worst 8.8%: the narrow
	// face-mask MobileNet v2, whose layers pad to 2.27 of their MACs,
	// against MobileNet v2 at 1.36); single-scale dense: 0.287e12 (6.3%);
	// multi-scale: 0.247e12 (6.4%).
	classifierMACsPerUs = 240e3
	denseMACsPerUs      = 287e3
	multiScaleMACsPerUs = 247e3
	// fileAloneComputeLow and fileAloneComputeHigh are how far the Edge
	// TPU compute from the compiled file alone was found from the
	// layer-by-layer one on the shared compiled twins (the pairs of
	// ../shared/corpus2/edgetpu-pairs and hw/edgetpu/models): the layers
	// took 0.90 (a YOLOv8n) to 1.68 (the narrow face-mask MobileNet v2
	// classifier, its layers padded to 2.27 of their MACs) times the
	// file-alone estimate. The inference total, where invocation and
	// transfers dilute it, took fileAloneTotalLow to fileAloneTotalHigh
	// times it, depending on the link (the face-mask classifier 1.12 on
	// desktop USB 3.0, 1.02 on USB 2.0). The file-alone note says both;
	// TestFileAloneSpread measures them again.
	fileAloneComputeLow  = 0.90
	fileAloneComputeHigh = 1.68
	fileAloneTotalLow    = 0.94
	fileAloneTotalHigh   = 1.12
	// invokeFixedUs + invokeCPUUs*slowness is the per-inference runtime
	// overhead (Python call, driver, interrupt handling): a fixed part of
	// the device and driver, and a host part that scales with the host's
	// general slowness. Fitted by least squares on the model-only
	// MobileNet v2 rows of three hosts (etpu-01 desktop USB 3, etpu-02 Dev
	// Board, etpu-03/04 Raspberry Pi 3 B and B+ on USB 2), each row's
	// residual once the rest of the estimate is priced.
	invokeFixedUs = 406
	invokeCPUUs   = 61
	// desktopCPUGMACs is the reference host CPU's (Xeon E5-1650 v3 class)
	// rate for dense convolutions and fully-connected layers: Inception
	// v1 (about 1.5 G MACs, nearly all dense convolutions) takes 90 ms on
	// Coral's desktop CPU [coral.ai/docs/edgetpu/benchmarks, Table 1].
	desktopCPUGMACs = 16.5
	// cpuOpOverheadUs is the desktop cost of dispatching one CPU operator
	// (scaled by the host's slowness).
	cpuOpOverheadUs = 4
	// classifierMACsPerParamPixel, denseMACsPerParamPixel and
	// multiScaleMACsPerParamPixel estimate a compiled model's MACs from
	// its weight bytes (weightBytes: the parameters without the padding
	// of the compiler's layout) times its input pixels when the layers
	// are gone (compiled into the package): MACs per weight byte are the
	// weight-weighted mean of the output pixels the weights work at, set
	// by where the network keeps its weights.
	//   - A classifier (vector outputs) keeps its heaviest weights at its
	//     deepest, 32x downsampled stage: 1/605 MAC per weight byte and
	//     input pixel (1/576 to 1/623 on the face-mask MobileNet v2,
	//     MobileNet v1 0.25 and v2 twins).
	//   - A single-scale dense predictor (map outputs at one resolution:
	//     segmentation, pose at output stride 16) keeps its deep weights
	//     at that stride (dilated): 1/220 (1/197 BodyPix, 1/224 and 1/246
	//     the two DeepLab v3 widths).
	//   - A multi-scale dense predictor (outputs at several resolutions:
	//     a detector's feature pyramid, YOLOv8's strides 8, 16 and 32)
	//     reaches stride 32 and keeps most weights there, fewer at the
	//     finer heads: 1/300 (1/297 to 1/306 on the three YOLOv8n twins
	//     at 320 and 640).
	// Fitted on the uncompiled/compiled twins of
	// ../shared/corpus2/edgetpu-pairs and ../shared/hw/edgetpu/models
	// (true MACs: the twin's mapped layers); one constant per class, the
	// geometric mean of its twins. Counting the padding as weights (as
	// before weightBytes) spread the dense class from 1/200 to 1/281:
	// DeepLab v3 at width 0.5 pads 12% of its parameters, BodyPix 1.6%.
	classifierMACsPerParamPixel = 1.0 / 605
	denseMACsPerParamPixel      = 1.0 / 220
	multiScaleMACsPerParamPixel = 1.0 / 300
)

// Host classes. Links: USB 3.0 signals at 5 Gb/s and PCIe Gen2 x1 at
// 4 Gb/s after coding [dmaplan.DefaultLinks]; the effective rates are what
// streamed parameters achieve in Coral's benchmark table
// [coral.ai/docs/edgetpu/benchmarks: VGG16, about 138 MB of parameters
// streamed per inference, 296 ms on desktop USB 3 and 343 ms on the Dev
// Board: about 470 and 400 MB/s]. CPU: two speeds per host, both fitted
// on the host's rows of ../shared/hw/edgetpu.
//   - The general slowness (HostSlowness; the dense MACs, the runtime's own
//     code, every kernel but the depthwise convolution) is fitted on what
//     the host spends in its own code: Coral's classification benchmark
//     (resize a source image, run, rank the classes) less the model-only
//     run of the same model, at three image sizes, against the desktop's
//     (etpu-30..32 less etpu-02 on the Dev Board, etpu-36..38 and 42..44
//     less etpu-03/04 on the Raspberry Pi 3 B and B+, against etpu-24..26
//     less etpu-01). The Raspberry Pi 4 has no shared model-only Edge TPU
//     row: its MobileNet v2 CPU-only ratio (etpu-22 over etpu-18) stands
//     for both its speeds. An in-order Cortex-A53 is 4.9-6.1x slower than
//     the desktop there; Coral's reference CSVs time Inception v1 (1.5 G
//     MACs, nearly all dense convolutions) 4.6x and 6-7x slower on the
//     same hosts (public, not shared: a check, not a fit).
//   - The depthwise convolution (DepthwiseSlowness) is fitted on the
//     host's MobileNet v2 CPU-only rows given the general slowness: on the
//     Dev Board it runs 1.6x the desktop's time, far less than its general
//     4.9x (TFLite has hand-written 3x3 depthwise kernels for aarch64).
//
// Where two published sources measured a host CPU (Coral's Python
// reference CSVs, etpu-18..22, and Coral's benchmark table, whose C++
// benchmark ran a later TFLite build, etpu-54/55), the depthwise factor is
// fitted on their centre (geometric mean), each source once: the builds
// differ (on the Dev Board, 161 against 122 ms for MobileNet v2; on the
// desktop 46.6 against 51 ms, the other way), and an estimate for an
// unknown build should sit between them; DepthwiseSpread keeps how far
// apart the two sources' factors are and the estimate says so. (The
// benchmark table's "Embedded CPU" is taken to be the Dev Board's
// Cortex-A53: the footnote that names it was not retrieved.)
var hostClasses = []HostClass{
	{Name: "desktop-usb3", Summary: "x86-64 desktop (Xeon E5-1650 v3 class, 3.5 GHz) with the USB Accelerator on USB 3.0", CPU: desktopCPU,
		Link: "USB 3.0", LinkMBps: 470, CPUGMACs: desktopCPUGMACs, HostSlowness: 1, DepthwiseSlowness: 1, DepthwiseSpread: desktopDWSpread,
		Source: "link: cited (Coral benchmark table, streamed VGG16); CPU: dense rate cited (Coral benchmark table, Inception v1), depthwise cost fitted on the centre of etpu-18 and etpu-54 (two sources)"},
	{Name: "desktop-usb2", Summary: "the same desktop with the USB Accelerator on a USB 2.0 port", CPU: desktopCPU,
		Link: "USB 2.0", LinkMBps: usb2MBps, CPUGMACs: desktopCPUGMACs, HostSlowness: 1, DepthwiseSlowness: 1, DepthwiseSpread: desktopDWSpread,
		Source: "link: fitted on etpu-03/04 (USB 2.0 class); CPU: as desktop-usb3"},
	{Name: "rpi4-usb3", Summary: "Raspberry Pi 4 B (Cortex-A72 1.5 GHz, 32-bit OS) with the USB Accelerator on USB 3.0 (VL805 controller behind one PCIe lane)",
		CPU:  "Raspberry Pi 4 B (Cortex-A72 1.5 GHz, 32-bit OS)",
		Link: "USB 3.0", LinkMBps: pcieGen2x1MBps, LinkLatencyUs: 2385, CPUGMACs: desktopCPUGMACs / 2.47, HostSlowness: 2.47, DepthwiseSlowness: 2.47,
		Source: "link: rate cited (USB 3.0 behind one PCIe Gen2 lane: the PCIe link's effective rate), latency fitted on etpu-48..50 (the host class's only Edge TPU rows; image resize modelled); CPU: one slowness for all, MobileNet v2 on the CPU alone against the desktop's (etpu-22 over etpu-18)"},
	{Name: "rpi3-usb2", Summary: "Raspberry Pi 3 B / B+ (Cortex-A53 1.2-1.4 GHz, 32-bit OS) with the USB Accelerator on USB 2.0",
		CPU:  "Raspberry Pi 3 B / B+ (Cortex-A53 1.2-1.4 GHz, 32-bit OS)",
		Link: "USB 2.0", LinkMBps: usb2MBps, CPUGMACs: desktopCPUGMACs / 6.13, HostSlowness: 6.13, DepthwiseSlowness: 5.28, BoardSpread: 1.18,
		Source: "link: fitted on etpu-03/04; CPU: general slowness fitted on etpu-36..38 less etpu-03 and etpu-42..44 less etpu-04 (3 B and 3 B+, the centre), depthwise on etpu-20/21 (one class)"},
	{Name: "devboard-pcie", Summary: "Coral Dev Board (NXP i.MX 8M, Cortex-A53 1.5 GHz, aarch64), Edge TPU on PCIe Gen2 x1",
		CPU:  "Coral Dev Board (NXP i.MX 8M, Cortex-A53 1.5 GHz, aarch64)",
		Link: "PCIe Gen2 x1", LinkMBps: pcieGen2x1MBps, CPUGMACs: desktopCPUGMACs / 4.88, HostSlowness: 4.88, DepthwiseSlowness: 1.37, DepthwiseSpread: 2.96,
		Source: "link: cited (Coral benchmark table, streamed VGG16 on the Dev Board); CPU: general slowness fitted on etpu-30..32 less etpu-02, depthwise on the centre of etpu-19 and etpu-55 (two sources: MobileNet v2 1.32x apart)"},
	{Name: "m2-pcie", Summary: "x86-64 desktop with the M.2 or Mini PCIe Accelerator (PCIe Gen2 x1)", CPU: desktopCPU,
		Link: "PCIe Gen2 x1", LinkMBps: pcieGen2x1MBps, CPUGMACs: desktopCPUGMACs, HostSlowness: 1, DepthwiseSlowness: 1, DepthwiseSpread: desktopDWSpread,
		Source: "link: as devboard-pcie (cited); CPU: as desktop-usb3"},
}

// desktopCPU is the reference desktop's CPU.
const desktopCPU = "x86-64 desktop (Xeon E5-1650 v3 class, 3.5 GHz)"

// desktopDWSpread is how far apart the depthwise costs fitted on the
// desktop class's two published CPU-only MobileNet v2 times are (etpu-18,
// 46.59 ms, and etpu-54, 51 ms).
const desktopDWSpread = 1.17

// pcieGen2x1MBps is a PCIe Gen2 x1 link's effective rate: Coral's
// benchmark table streams VGG16's parameters on the Dev Board at about
// 400 MB/s (see hostClasses). The Raspberry Pi 4's USB controller (VL805)
// hangs off the BCM2711's one PCIe lane [mloduchowski.com/en/blog/
// raspberry-pi-4-b-pci-express: "the USB 3.0 (and 2.0) chip is attached
// via the PCI Express interface", x1; Gen 2 per the Compute Module 4
// datasheet, which exposes the same lane], so its USB 3.0 carries no more.
// What the Pi 4's Edge TPU rows take beyond that rate and the host's
// general speed is a fixed wait per inference (LinkLatencyUs, 2.39 ms,
// the mean residual of etpu-48..50): with one rate and no wait, the fit
// was 100 MB/s, which priced the Pi 4's streamed or reloaded parameters
// 4x too slow (a public reference pair run in turn, an Inception v4).
const pcieGen2x1MBps = 400

// usb2MBps is USB 2.0's effective rate for the runtime's transfers: the
// Raspberry Pi 3 rows (etpu-03/04) leave 8.7 ms for MobileNet v2's 286 KB
// after overhead and compute (480 Mb/s raw; bulk transfers reach 30-40 MB/s
// in practice).
const usb2MBps = 33

// Hosts lists the host classes.
func Hosts() []HostClass { return hostClasses }

// HostByName finds a host class.
func HostByName(name string) (HostClass, bool) {
	for _, h := range hostClasses {
		if h.Name == name {
			return h, true
		}
	}
	return HostClass{}, false
}

// DefaultHost is the host class used when none is named.
const DefaultHost = "desktop-usb3"

// LatencyOptions select what an inference includes.
type LatencyOptions struct {
	// Evicted: another model with a different caching token runs between
	// two inferences (separately compiled models sharing one Edge TPU),
	// so the cached parameters are loaded again every inference.
	Evicted bool
	// ResizeFrom is the source image (width x height pixels) the host
	// resizes to the model's input on every call, as Coral's
	// classification benchmarks do; 0 leaves it out.
	ResizeFromPixels int64
	// Uncompiled is the model a compiled model was compiled from: its
	// predicted mapping gives the Edge TPU compute layer by layer (the
	// compiled package no longer has the layers) in place of the estimate
	// from parameters and pixels. Used for a model with one Edge TPU op.
	Uncompiled *tflite.Model `json:"-"`
	// Twin is where Uncompiled came from (FindTwin, or a file given):
	// the estimate names it (Latency.Uncompiled). A Twin without
	// Uncompiled gives its Model.
	Twin *Twin `json:"-"`
	// TwinNote says why no uncompiled model is used when one was looked
	// for (FindTwin's answer): a note of the estimate.
	TwinNote string `json:"-"`
	// AlternateWith is another compiled model run on the same Edge TPU
	// between two inferences of this one: when their caching tokens
	// differ (compiled separately) each evicts the other's cached
	// parameters, so they load every inference (as Evicted); co-compiled
	// models share a token and the cache.
	AlternateWith *Model `json:"-"`
}

// cacheToken is the caching token of a model's first package (0: none).
func cacheToken(m *Model) uint64 {
	for _, p := range m.Packages() {
		return MemoryOf(p).Token
	}
	return 0
}

// Part kinds.
const (
	PartInvoke     = "invoke"
	PartTransfer   = "transfer"
	PartParameters = "parameters"
	PartTPU        = "edgetpu"
	PartCPU        = "cpu"
	PartPreprocess = "preprocess"
)

// LatencyPart is one slice of an inference's time.
type LatencyPart struct {
	Name  string  `json:"name"`
	Kind  string  `json:"kind"`
	Us    float64 `json:"us"`
	Bytes int64   `json:"bytes,omitempty"`
	MACs  int64   `json:"macs,omitempty"`
	// PaddedMACs is what an Edge TPU layer costs the array: its MACs
	// with its output channels padded to the array's 64-wide groups,
	// the count priced at the layer rate (TPUPricing).
	PaddedMACs int64 `json:"padded_macs,omitempty"`
	// Op is the TFLite operator index (-1 for a part of no operator).
	Op int `json:"op"`
	// FirstOnly parts are paid by the first inference only.
	FirstOnly bool   `json:"first_only,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// Resource is where the time is spent: "host", "link", "edgetpu".
	Resource string `json:"resource"`
	// OverlappedUs is the part of a streamed-parameters transfer hidden
	// behind the Edge TPU compute it feeds (overlapStreamed): Us is what
	// remains exposed.
	OverlappedUs float64 `json:"overlapped_us,omitempty"`

	// streamed marks the parameters streamed every inference.
	streamed bool
}

// Latency is the estimated time of one inference on a host class.
type Latency struct {
	Host             HostClass     `json:"host"`
	Source           string        `json:"source"` // "compiled" or "plan"
	FirstInferenceUs float64       `json:"first_inference_us"`
	SteadyStateUs    float64       `json:"steady_state_us"`
	Parts            []LatencyPart `json:"parts"`
	// ByKind sums the steady-state parts by kind.
	ByKind map[string]float64 `json:"steady_by_kind_us"`
	Notes  []string           `json:"notes,omitempty"`
	// UsesEdgeTPU: the model has Edge TPU work (a compiled model's Edge
	// TPU operator, or operators a plan maps). Without it the model runs
	// wholly on the host CPU and pays no Edge TPU invocation or transfer.
	UsesEdgeTPU bool `json:"uses_edgetpu"`
	// FloatCPUOps counts the CPU operators that compute in floating
	// point with a cost fitted on int8 kernels: they are priced at the
	// int8 kernels' rates, an assumption (no shared measurement gives a
	// float CPU rate). Views (no data moves), conversions and custom
	// post-processing operators (fitted on a decoder with float outputs)
	// are not counted.
	FloatCPUOps int `json:"float_cpu_ops_at_int8_rate,omitempty"`
	// Uncompiled is the uncompiled model whose layers priced the Edge
	// TPU compute (nil: estimated from the compiled file alone).
	Uncompiled *Twin `json:"uncompiled,omitempty"`
	// RunsByDefault says whether an inference runs on the host class with
	// the runtime's default settings: false when FailsByDefault says why
	// not. Nil for a plan: whether the compiler leaves the DMA hints
	// fully deterministic is not predicted.
	RunsByDefault *bool `json:"runs_with_default_settings,omitempty"`
	// FailsByDefault, when set, says that every inference fails on the
	// host class with the runtime's default settings, and under which
	// setting the estimate applies.
	FailsByDefault *DefaultFailure `json:"fails_with_default_settings,omitempty"`
	// TPUPricing says how the Edge TPU compute was priced: at which
	// rate each way of pricing it ran (layer by layer on padded MACs, or
	// a class's effective rate on a compiled file's estimated MACs), and
	// what each rate is fitted on. The text output prints it with the
	// other rates.
	TPUPricing []string `json:"tpu_pricing,omitempty"`
	// AllParts makes WriteText list every part; otherwise a long table
	// shows its longest operators and says how many it left out.
	AllParts bool `json:"-"`

	tpuOps      int     // Edge TPU operators added so far
	depthwiseUs float64 // the CPU operators' depthwise element work
	legacyOps   int     // operators holding a compiler 1.x executable (not loadable, not timed)
}

// DefaultFailure is why every inference of a model fails on a host class
// with the runtime's default settings, and the setting under which it runs
// and the estimate applies.
type DefaultFailure struct {
	// Rule is the npukit check rule that finds the cause.
	Rule string `json:"rule"`
	// Executables are the executables the driver refuses.
	Executables []string `json:"executables"`
	// Setting is what makes it run: the estimate assumes it.
	Setting string `json:"estimate_assumes"`
	Reason  string `json:"reason"`
}

// usbBulkSetting is the environment setting under which libedgetpu's USB
// driver accepts DMA hints that are not fully deterministic
// (driver/beagle/beagle_usb_driver_provider.cc).
const usbBulkSetting = "USB_ENABLE_BULK_DESCRIPTORS_FROM_DEVICE=1"

func (l *Latency) add(p LatencyPart) { l.Parts = append(l.Parts, p) }

func (l *Latency) finish() {
	if !l.UsesEdgeTPU && l.legacyOps == 0 {
		how := "compile it with edgetpu_compiler to use the accelerator"
		if l.FloatCPUOps > 0 {
			how = "the Edge TPU runs 8-bit quantized operators only: quantize the model, then compile it with edgetpu_compiler (npukit edgetpu plan predicts what maps)"
		}
		l.Notes = append([]string{"the model has no Edge TPU work: every operator runs on the host CPU, so there is no Edge TPU invocation, transfer or compute; " + how}, l.Notes...)
	}
	if l.FloatCPUOps > 0 {
		verb := "compute"
		if l.FloatCPUOps == 1 {
			verb = "computes"
		}
		l.Notes = append(l.Notes, fmt.Sprintf("%s %s in floating point: priced at the int8 kernels' rates (%.2f GMAC/s and their per-element costs), an assumption: npukit has no float CPU rate (every shared measurement is of a quantized model), so their time may be off either way",
			humanize.Plural(l.FloatCPUOps, "CPU operator"), verb, l.Host.CPUGMACs))
	}
	if l.Source == "compiled" && l.UsesEdgeTPU {
		runs := l.FailsByDefault == nil
		l.RunsByDefault = &runs
	}
	if f := l.FailsByDefault; f != nil {
		l.Notes = append([]string{fmt.Sprintf("%s (npukit check): the DMA hints of %s are not fully deterministic, and libedgetpu's USB driver refuses every inference unless %s is in the environment of the process; the estimate assumes that setting and prices the transfers the hints list (no shared measurement covers it); a PCIe Edge TPU runs the model as is (--host m2-pcie, devboard-pcie)",
			f.Rule, strings.Join(f.Executables, ", "), f.Setting)}, l.Notes...)
	}
	l.overlapStreamed()
	l.ByKind = map[string]float64{}
	for _, p := range l.Parts {
		l.FirstInferenceUs += p.Us
		if !p.FirstOnly {
			l.SteadyStateUs += p.Us
			l.ByKind[p.Kind] += p.Us
		}
	}
	if n := l.Host.BoardSpread; n > dwSpreadNoted && l.ByKind[PartCPU] > 0 {
		f := math.Sqrt(n) - 1
		l.Notes = append(l.Notes, fmt.Sprintf("CPU operators: %s is the centre of two boards (%s) whose MobileNet v2 CPU-only times are %.2fx apart; on either board they may take about %.0f%% (%s) more or less",
			l.Host.Name, l.Host.CPU, n, f*100, humanize.Micros(f*l.ByKind[PartCPU])))
	}
	if n := l.Host.DepthwiseSpread; n > dwSpreadNoted && l.depthwiseUs >= dwNotedUs {
		f := math.Sqrt(n) - 1
		l.Notes = append(l.Notes, fmt.Sprintf("CPU depthwise convolutions: %s of the CPU operators' time, at the centre of two published TFLite builds whose MobileNet v2 times put %s's depthwise cost %.2fx apart (Coral's Python reference set and its C++ benchmark table); for a build like either they may take about %.0f%% (%s) more or less",
			humanize.Micros(l.depthwiseUs), l.Host.Name, n, f*100, humanize.Micros(f*l.depthwiseUs)))
	}
}

// overlapStreamed hides each streamed-parameters transfer behind the Edge
// TPU compute of the same operator (a plan's, Op -1, behind all of it):
// the device runs the instructions already sent while the runtime's
// PARAMETER transfer, queued after the input (npukit edgetpu dma), brings
// the weights the later layers use, so an inference pays the longer of the
// two, not their sum. The effective link rates assume it: they are the
// whole inference's time over its streamed bytes in Coral's benchmark
// table (VGG16, whose compute the 138 MB stream hides), and adding the
// compute on top counted it twice (Coral's reference CSVs time Inception
// v4, 35 MB streamed, at the stream alone plus the overheads).
func (l *Latency) overlapStreamed() {
	for i := range l.Parts {
		p := &l.Parts[i]
		if !p.streamed || p.OverlappedUs > 0 {
			continue
		}
		var compute float64
		for _, q := range l.Parts {
			if q.Kind == PartTPU && (p.Op < 0 || q.Op == p.Op) {
				compute += q.Us
			}
		}
		if hidden := min(p.Us, compute); hidden > 0 {
			p.OverlappedUs, p.Us = hidden, p.Us-hidden
			p.Detail += fmt.Sprintf("; %s of its %s transfer overlaps the Edge TPU compute it feeds (the time shown is what is left exposed)",
				humanize.Micros(hidden), humanize.Micros(hidden+p.Us))
			l.Notes = append(l.Notes, fmt.Sprintf("%s: %s of the %s transfer overlaps the Edge TPU compute it feeds and is not counted again (the device computes while the weights stream)",
				p.Name, humanize.Micros(hidden), humanize.Micros(hidden+p.Us)))
		}
	}
}

// dwSpreadNoted is the DepthwiseSpread above which, and dwNotedUs the
// depthwise time from which, an estimate says how far the TFLite builds
// measured on the host differ.
const (
	dwSpreadNoted = 1.05
	dwNotedUs     = 100
)

// addInvocation adds what every inference pays before the operators: the
// Edge TPU invocation overhead when the model uses the Edge TPU (a model
// wholly on the CPU makes no device round trip: the interpreter's
// dispatch is in each operator's cost), and the input image resize when
// asked for.
func (l *Latency) addInvocation(o LatencyOptions) {
	h := l.Host
	if l.UsesEdgeTPU {
		detail := "runtime call, driver and interrupt handling"
		if h.LinkLatencyUs > 0 {
			detail += fmt.Sprintf(", and %s the host's link path waits every inference", humanize.Micros(h.LinkLatencyUs))
		}
		l.add(LatencyPart{Name: "invocation overhead", Kind: PartInvoke, Us: invokeUs(h), Op: -1, Resource: "host", Detail: detail})
	}
	if o.ResizeFromPixels > 0 {
		l.add(LatencyPart{Name: "input image resize", Kind: PartPreprocess, Us: preprocessUs(h, o.ResizeFromPixels), Op: -1, Resource: "host",
			Detail: humanize.Plural(int(o.ResizeFromPixels), "source pixel")})
	}
}

func linkUs(h HostClass, bytes int64) float64 { return float64(bytes) / h.LinkMBps }

// invokeUs is the per-inference runtime overhead on a host.
func invokeUs(h HostClass) float64 {
	return invokeFixedUs + invokeCPUUs*h.slowness() + h.LinkLatencyUs
}

// preprocessUs is the host's cost of resizing a source image to the
// model's input (PIL nearest-neighbour resize plus flattening, as Coral's
// classification benchmarks do every call): a fixed part and a part per
// source pixel (and the ranking of the classes), scaled by the host's
// general slowness. Fitted on the desktop: etpu-24..26 (600x400, 1280x720
// and 1920x1080 sources) less the model-only etpu-01, a least-squares
// line; the other hosts' classification rows fit their HostSlowness.
func preprocessUs(h HostClass, pixels int64) float64 {
	return (236 + 0.186*float64(pixels)/1e3) * h.slowness()
}

// cpuOpUs is the host CPU's cost of one operator: dense MACs at the
// host's rate, element work at a per-class cost (nanoseconds per element on
// the desktop, scaled by the host's general slowness, the depthwise
// convolution's by its DepthwiseSlowness), and a dispatch cost (general).
//
//   - views (RESHAPE) move nothing; copies (concatenation, gathers,
//     slices) cost dwNsPerElem/80;
//   - DEPTHWISE_CONV_2D costs dwNsPerElem per output element: it is
//     memory- and requantization-bound, not MAC-bound (fitted on the
//     desktop's MobileNet v2 CPU rows, the centre of etpu-18 and etpu-54,
//     with the dense rate above: its 20.7 M depthwise MACs take most of
//     its time);
//   - resizes, reductions, arg-max and softmax cost resizeNsPerElem
//     (fitted on etpu-13, DeepLab v3's CPU head);
//   - element-wise arithmetic on quantized tensors rescales every element
//     from both inputs' scales to the output's (TFLite's int8/uint8 ADD,
//     SUB, MUL): 4x a float element-wise operation, which costs like a
//     resize; transcendental functions 2x; (de)quantization and casts 1x
//     (estimated from the kernels' per-element work: no shared row
//     isolates them; MoveNet's CPU tail is their main consumer).
func cpuOpUs(h HostClass, name string, w OpWork) float64 {
	us, _ := cpuOpParts(h, name, w)
	return us
}

// cpuOpParts is cpuOpUs and the part of it that is depthwise element work
// (DepthwiseSlowness's).
func cpuOpParts(h HostClass, name string, w OpWork) (us, dwUs float64) {
	elems := float64(max(w.InElems, w.OutElems))
	out := float64(w.OutElems)
	// dw is the depthwise convolution's element work (DepthwiseSlowness
	// scales it), ns the rest (the host's general slowness).
	var ns, dw float64
	switch name {
	case "RESHAPE", "SQUEEZE", "EXPAND_DIMS":
		// Views: no data moves.
	case "CONCATENATION", "PACK", "UNPACK", "SPLIT", "SPLIT_V", "SLICE", "STRIDED_SLICE", "GATHER", "GATHER_ND", "TRANSPOSE", "PAD", "TILE":
		ns = copyNsPerElem * elems
	case "DEPTHWISE_CONV_2D":
		dw = dwNsPerElem * out
	case "CONV_2D", "FULLY_CONNECTED", "TRANSPOSE_CONV", "BATCH_MATMUL", "UNIDIRECTIONAL_SEQUENCE_LSTM":
		ns = copyNsPerElem * out
	case "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "ARG_MAX", "ARG_MIN", "SOFTMAX", "LOG_SOFTMAX", "AVERAGE_POOL_2D", "MAX_POOL_2D", "MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN":
		ns = resizeNsPerElem * elems
	case "ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM", "FLOOR_DIV", "FLOOR_MOD", "POW", "PRELU", "LEAKY_RELU":
		if w.Quantized {
			ns = 4 * resizeNsPerElem * out
		} else {
			ns = resizeNsPerElem * out
		}
	case "QUANTIZE", "DEQUANTIZE", "CAST", "RELU", "RELU6", "RELU_N1_TO_1", "ABS", "NEG", "FLOOR", "ROUND":
		ns = resizeNsPerElem * elems
	case "SQRT", "RSQRT", "EXP", "LOG", "LOGISTIC", "TANH", "HARD_SWISH", "SIN", "COS", "GELU":
		ns = 2 * resizeNsPerElem * elems
	default:
		if strings.HasPrefix(name, "custom:") || name == "" {
			// Post-processing custom operators (pose decoders,
			// detection post-processing) walk their inputs several
			// times.
			ns = customNsPerElem * elems
		} else {
			ns = resizeNsPerElem * elems
		}
	}
	dwUs = dw / 1e3 * h.DepthwiseSlowness
	return float64(w.MACs)/(h.CPUGMACs*1e3) + dwUs + (ns/1e3+cpuOpOverheadUs)*h.slowness(), dwUs
}

// floatPricedAsInt8 reports whether a float operator of this type is
// priced by a cost fitted on int8 kernels (cpuOpUs): not a view (RESHAPE
// moves nothing whatever the type), a conversion (its per-element cost is
// the conversion's) or a custom post-processing operator (customNsPerElem
// was fitted on the PoseNet decoder, whose outputs are float).
func floatPricedAsInt8(name string) bool {
	switch name {
	case "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "QUANTIZE", "DEQUANTIZE", "CAST":
		return false
	}
	return !strings.HasPrefix(name, "custom:") && name != ""
}

// Per-element CPU costs on the desktop reference, in nanoseconds (see
// cpuOpUs for what each was fitted on).
const (
	dwNsPerElem     = 12.05
	copyNsPerElem   = dwNsPerElem / 80
	resizeNsPerElem = 1.9
)

// customNsPerElem is the desktop cost of a custom post-processing
// operator per element of its inputs; fitted on etpu-09 and etpu-16
// together (the PoseNet decoder of PoseNet and BodyPix on desktop USB 3:
// 0.5 ms and 0.8 ms).
const customNsPerElem = 6.0

// EstimateModel estimates a model's latency on a host: a compiled model
// (the Edge TPU operators' packages give the transfers, their parameters
// and inputs the compute) or a plain TFLite model (every operator on the
// CPU).
func EstimateModel(m *Model, h HostClass, o LatencyOptions) (*Latency, error) {
	l := &Latency{Host: h, Source: "compiled", UsesEdgeTPU: slices.ContainsFunc(m.Ops, func(c *CustomOp) bool { return len(c.Packages) > 0 })}
	l.addInvocation(o)
	if other := o.AlternateWith; other != nil && l.UsesEdgeTPU {
		a, b := cacheToken(m), cacheToken(other)
		if a == 0 || a != b {
			o.Evicted = true
			l.Notes = append(l.Notes, fmt.Sprintf("run in turn with a model of another caching token (%#x against %#x): each evicts the other's cached parameters", a, b))
		} else {
			l.Notes = append(l.Notes, fmt.Sprintf("run in turn with a co-compiled model (the same caching token %#x): the cache holds both", a))
		}
	}
	if o.Uncompiled == nil && o.Twin != nil {
		o.Uncompiled = o.Twin.Model
	}
	if o.Uncompiled != nil && len(m.Ops) != 1 {
		o.Uncompiled = nil
		l.Notes = append(l.Notes, "the uncompiled model is used for a model with one Edge TPU operator only: the compute is estimated from the parameters")
	}
	if o.Uncompiled != nil {
		l.Uncompiled = o.Twin
		if l.Uncompiled == nil {
			l.Uncompiled = &Twin{How: TwinGiven}
		}
	} else if o.TwinNote != "" {
		l.Notes = append(l.Notes, "no uncompiled model used: "+o.TwinNote)
	}
	if m.TFLite == nil {
		for _, op := range m.Ops {
			if err := l.addPackage(op, h, o, -1); err != nil {
				return nil, err
			}
		}
		l.finish()
		return l, nil
	}
	t := m.TFLite
	tpu := map[[2]int]*CustomOp{}
	for _, op := range m.Ops {
		tpu[[2]int{op.Subgraph, op.Operator}] = op
	}
	if len(t.Subgraphs) > 0 {
		sg := &t.Subgraphs[0]
		for oi := range sg.Operators {
			if c := tpu[[2]int{0, oi}]; c != nil {
				if err := l.addPackage(c, h, o, oi); err != nil {
					return nil, err
				}
				continue
			}
			l.addCPU(t, sg, oi, h)
		}
	}
	if len(t.Subgraphs) > 1 {
		l.Notes = append(l.Notes, fmt.Sprintf("%s more %s (control flow bodies) %s not timed: how often they run is data-dependent", humanize.Count(int64(len(t.Subgraphs)-1)), humanize.Agree(len(t.Subgraphs)-1, "subgraph", "subgraphs"), humanize.Agree(len(t.Subgraphs)-1, "is", "are")))
	}
	l.finish()
	return l, nil
}

func (l *Latency) addCPU(t *tflite.Model, sg *tflite.Subgraph, oi int, h HostClass) {
	op := &sg.Operators[oi]
	if int(op.OpcodeIndex) >= len(t.OperatorCodes) {
		return
	}
	code := t.OperatorCodes[op.OpcodeIndex]
	w := Work(t, sg, op)
	name := code.Label()
	detail := fmt.Sprintf("%s, %s in, %s out", humanize.Plural(int(w.MACs), "MAC"), humanize.Plural(int(w.InElems), "element"), humanize.Count(w.OutElems))
	if w.Float && floatPricedAsInt8(name) {
		l.FloatCPUOps++
		detail += "; floating point, priced at the int8 kernels' rates (an assumption)"
	}
	us, dwUs := cpuOpParts(h, name, w)
	l.depthwiseUs += dwUs
	l.add(LatencyPart{Name: fmt.Sprintf("op %d %s", oi, name), Kind: PartCPU, Us: us, MACs: w.MACs, Op: oi, Resource: "host", Detail: detail})
}

// addPackage adds one Edge TPU operator: transfers from the runtime's
// plan, compute from the parameters and input pixels.
func (l *Latency) addPackage(c *CustomOp, h HostClass, o LatencyOptions, oi int) error {
	if len(c.Packages) == 0 {
		if c.Options.LegacyExecutable > 0 {
			l.legacyOps++
			l.Notes = append(l.Notes, fmt.Sprintf("operator %d holds a bare Edge TPU compiler 1.x executable, which current runtimes refuse to load (npukit check: %s): its Edge TPU time is not estimated and not in the total; recompile the model with a current edgetpu_compiler", oi, RuleLegacyExecutable))
		}
		return nil
	}
	p := c.Packages[0]
	plan, err := dmaplan.Build(PlanInput(p), dmaplan.DefaultLinks())
	if err != nil {
		return err
	}
	label := "Edge TPU"
	if oi >= 0 {
		label = fmt.Sprintf("op %d Edge TPU", oi)
	}
	if l.tpuOps++; l.tpuOps > 1 {
		// Each further Edge TPU operator (a model compiled with -a or
		// -d) is another run on the device.
		l.add(LatencyPart{Name: label + " invocation", Kind: PartInvoke, Us: invokeFixedUs, Op: oi, Resource: "host",
			Detail: "another Edge TPU subgraph: another device round trip"})
	}
	if h.USB() {
		for _, e := range p.Executables {
			if e.USBRejects() {
				if l.FailsByDefault == nil {
					l.FailsByDefault = &DefaultFailure{Rule: RuleNotDeterministic, Setting: usbBulkSetting,
						Reason: "DMA hints not fully deterministic: libedgetpu's USB driver refuses every inference unless " + usbBulkSetting + " is in the environment of the process; PCIe Edge TPUs run it as is"}
				}
				l.FailsByDefault.Executables = append(l.FailsByDefault.Executables, fmt.Sprintf("%s (%s)", e.Name, e.Type))
			}
		}
	}
	mem := MemoryOf(p)
	cachedBytes := plan.First.ByTarget["PARAMETER"] - plan.Steady.ByTarget["PARAMETER"]
	cachedInstr := plan.First.ByTarget["INSTRUCTIONS"] - plan.Steady.ByTarget["INSTRUCTIONS"]
	// The PARAMETER_CACHING executable sends its parameters and its own
	// instructions: two rows, so that the parameters row is the cached
	// parameters every other command reports (MemoryOf(p).Cached).
	if cachedBytes > 0 {
		l.add(LatencyPart{Name: label + " parameter caching", Kind: PartParameters, Us: linkUs(h, cachedBytes), Bytes: cachedBytes,
			Op: oi, FirstOnly: !o.Evicted, Resource: "link",
			Detail: fmt.Sprintf("%s of parameters loaded into the 8 MiB on-chip memory (caching token %s)", humanize.Bytes(cachedBytes), mem.TokenHex)})
	}
	if cachedInstr > 0 {
		l.add(LatencyPart{Name: label + " caching instructions", Kind: PartTransfer, Us: linkUs(h, cachedInstr), Bytes: cachedInstr,
			Op: oi, FirstOnly: !o.Evicted, Resource: "link",
			Detail: "the instruction chunks of the parameter-caching executable, sent with the cached parameters"})
	}
	if cachedBytes > 0 || cachedInstr > 0 {
		if o.Evicted {
			l.Notes = append(l.Notes, "the cached parameters are loaded again every inference: another model with a different caching token runs in between (compile the models together to share the cache)")
		}
	}
	st := plan.Steady.ByTarget
	parts := []struct {
		name, target, detail string
	}{
		{"input transfer", "INPUT", "input activations to the device"},
		{"instructions", "INSTRUCTIONS", "instruction chunks sent every run"},
		{"streamed parameters", "PARAMETER", "parameters not cached on chip, streamed every inference"},
		{"scratch spill", "SCRATCH", "activations spilled to host memory"},
	}
	for _, x := range parts {
		if b := st[x.target]; b > 0 {
			kind := PartTransfer
			if x.target == "PARAMETER" {
				kind = PartParameters
			}
			l.add(LatencyPart{Name: label + " " + x.name, Kind: kind, Us: linkUs(h, b), Bytes: b, Op: oi, Resource: "link", Detail: x.detail, streamed: x.target == "PARAMETER"})
		}
	}
	if u := o.Uncompiled; u != nil && len(u.Subgraphs) > 0 {
		// The layers of the uncompiled twin that the compiler maps
		// (the twin's plan is made once for all the estimates that
		// use it).
		var plan *Plan
		if o.Twin != nil && o.Twin.Model == u {
			plan = o.Twin.Plan()
		} else {
			plan = PlanModel(u, PlanOptions{})
		}
		sg := &u.Subgraphs[0]
		for _, op := range plan.Ops {
			if op.Subgraph != 0 || op.Placement != "TPU" || op.Index >= len(sg.Operators) {
				continue
			}
			l.addTPULayer(u, sg, op.Index, fmt.Sprintf("%s layer %d %s", label, op.Index, op.Op), oi, "a layer of the uncompiled model")
		}
	} else {
		s := macsShapeOf(p)
		macs := s.macs()
		l.add(LatencyPart{Name: label + " compute", Kind: PartTPU, Us: s.tpuUs(), MACs: macs, Op: oi, Resource: "edgetpu",
			Detail: "MACs estimated from the parameters and input pixels (the layers are compiled away), at the effective rate of the network's class"})
		l.noteTPURate(fmt.Sprintf("Edge TPU %.0f GMAC/s effective on the estimated MACs (%s; fitted on the class's shared twins)", s.rate/1e3, s.className()))
		l.Notes = append(l.Notes, fmt.Sprintf("%s compute is an estimate: the compiled file keeps no layer shapes (its DarwiNN executable holds the instruction stream, the parameters in the device's layout and only the segment's input and output layers), so the %s of weights (the %s of parameters without the padding of the compiler's layout) were assumed to work at %s, giving %s (0.90 to 1.12 of the layers' MACs on the shared compiled twins), priced at the class's effective %.0f GMAC/s (how much of the array narrow layers leave idle is not in the file); on the shared compiled twins the layer-by-layer Edge TPU compute was %.2f to %.2f times this estimate (the narrow face-mask MobileNet v2 classifier the high end: the file alone prices such a network low), the inference total %.2f to %.2f times depending on the link; keep the uncompiled model beside it (X.tflite for X_edgetpu.tflite) or give it (--uncompiled) for a layer-by-layer estimate",
			label, humanize.Bytes(int64(s.params)), humanize.Bytes(mem.Cached+mem.Streamed), s.assumption(), macsText(macs), s.rate/1e3, fileAloneComputeLow, fileAloneComputeHigh, fileAloneTotalLow, fileAloneTotalHigh))
	}
	if b := st["OUTPUT"]; b > 0 {
		l.add(LatencyPart{Name: label + " output transfer", Kind: PartTransfer, Us: linkUs(h, b), Bytes: b, Op: oi, Resource: "link", Detail: "output activations to the host"})
	}
	return nil
}

// estimatedMACs estimates a package's MACs from its weight bytes
// (weightBytes) and spatial sizes (macsShape says how). A package whose
// input is an image (at most 4 channels) is a whole network: its weight
// bytes times its input pixels times the MACs per weight byte and pixel of
// its class (classifier, single-scale or multi-scale dense predictor). A
// package whose input is a feature map (a pipeline segment after the first, or a
// model cut with -i) applies its weights near the spatial size it works
// at: the weight bytes times the geometric mean of its input and output
// pixels (outputs that are maps; a quarter of the input's pixels when the
// outputs are vectors).
func estimatedMACs(p *Package) int64 { return macsShapeOf(p).macs() }

// macs is estimatedMACs of the package the shape was read from.
func (s macsShape) macs() int64 {
	if s.pixels == 0 {
		return 0
	}
	if s.channels > 4 {
		out := s.outPixels
		if out == 0 {
			// Vector outputs (detection heads): the weights work
			// at about half the input's resolution.
			out = s.pixels / 4
		}
		return int64(s.params * math.Sqrt(s.pixels*out))
	}
	return int64(s.k * s.params * s.pixels)
}

// tpuUs estimates the Edge TPU time of the package the shape was read
// from, from the compiled file alone: its estimated MACs (macs) at its
// class's effective rate (macsShape.rate).
func (s macsShape) tpuUs() float64 {
	if s.rate == 0 {
		return 0
	}
	return float64(s.macs()) / s.rate
}

// macsShape is what estimatedMACs reads of a package: its weight bytes
// (weightBytes), its largest input (pixels and channels), the largest
// output map and the class of network its outputs make it.
type macsShape struct {
	params, pixels, channels, outPixels float64
	// scales is how many distinct position counts the outputs have
	// (positionCount): 0 a classifier, 1 a single-scale dense
	// predictor, 2 or more a multi-scale one.
	scales int
	k      float64 // MACs per parameter byte and input pixel of the class
	// rate is the class's effective MAC rate (MAC/µs) for tpuUs.
	rate  float64
	class string
}

// className is the class's short name ("a classifier").
func (s macsShape) className() string {
	name, _, _ := strings.Cut(s.class, ":")
	return name
}

func macsShapeOf(p *Package) macsShape {
	var s macsShape
	e := p.Main()
	if e == nil {
		return s
	}
	s.params = float64(weightBytes(p))
	for _, in := range e.InputLayers {
		if px := float64(in.Y) * float64(in.X); px > s.pixels {
			s.pixels, s.channels = px, float64(in.Z)
		}
	}
	positions := map[int64]bool{}
	for _, out := range e.OutputLayers {
		if out.Y > 1 && out.X > 1 {
			s.outPixels = max(s.outPixels, float64(out.Y)*float64(out.X))
		}
		if n := positionCount(out, int64(s.pixels)); n > 0 {
			positions[n] = true
		}
	}
	s.scales = len(positions)
	switch {
	case s.scales >= 2:
		s.k, s.rate, s.class = multiScaleMACsPerParamPixel, multiScaleMACsPerUs, "a multi-scale dense predictor: outputs at several resolutions"
	case s.scales == 1:
		s.k, s.rate, s.class = denseMACsPerParamPixel, denseMACsPerUs, "a single-scale dense predictor: map outputs at one resolution"
	default:
		s.k, s.rate, s.class = classifierMACsPerParamPixel, classifierMACsPerUs, "a classifier: vector outputs"
	}

	return s
}

// weightBytes is the parameter bytes of a package (those MemoryOf counts:
// cached and streamed) without the padding of the compiler's layout. The
// compiler pads every matrix operator's output channels to a multiple of 64
// (paramChannelAlign); a padded channel's weight row holds one constant
// value (the weights' zero point), so its bytes come as long runs of one
// byte, which real weight rows almost never are. Runs of at least
// paddingRunBytes identical bytes are counted as padding: on the shared
// compiled twins they are 1-12% of the parameters (DeepLab v3 at width
// 0.5, whose narrow layers pad most, 12%; BodyPix 1.6%), and what remains
// is within 4% of the TFLite weight bytes plus the per-channel words of the
// real channels. Padded channels do no MACs of the network's layers, so the
// MAC estimate scales with the weights that remain.
func weightBytes(p *Package) int64 {
	var n int64
	count := func(b []byte) {
		n += int64(len(b))
		run := 1
		for k := 1; k <= len(b); k++ {
			if k < len(b) && b[k] == b[k-1] {
				run++
				continue
			}
			if run >= paddingRunBytes {
				n -= int64(run)
			}
			run = 1
		}
	}
	if c := p.Caching(); c != nil && len(p.Executables) == 2 {
		count(c.Parameters)
	}
	if e := p.Main(); e != nil {
		count(e.Parameters)
	}
	return n
}

// paddingRunBytes is the shortest run of one byte value weightBytes counts
// as channel padding: 16 (a quarter of a 64-channel group's row of one
// input channel; 8 to 32 give the same class constants within 1%).
const paddingRunBytes = 16

// positionCount is how many spatial positions an output layer holds: y*x
// for a map (y and x above 1); for a vector (y or x is 1), a dimension
// that is the input's pixels divided by a power of 4 (a map flattened
// after k stride-2 downsamplings, as detection heads reshape
// [h, w, c] to [c, h*w]); 0 when neither (class scores, embeddings).
func positionCount(l *Layer, inPixels int64) int64 {
	if l.Y > 1 && l.X > 1 {
		return int64(l.Y) * int64(l.X)
	}
	for _, d := range []int32{l.Y, l.X, l.Z} {
		if d <= 1 || inPixels%int64(d) != 0 {
			continue
		}
		r := inPixels / int64(d)
		for r > 1 && r%4 == 0 {
			r /= 4
		}
		if r == 1 && inPixels > int64(d) {
			return int64(d)
		}
	}
	return 0
}

// assumption says in words what estimatedMACs assumed of the package the
// shape was read from.
func (s macsShape) assumption() string {
	if s.pixels == 0 {
		return "no input"
	}
	if s.channels > 4 {
		return fmt.Sprintf("the geometric mean of the input's %s and the outputs' pixels (the input is a feature map: a later pipeline segment)", humanize.Count(int64(s.pixels)))
	}
	return fmt.Sprintf("the input's %s pixels at 1/%.0f MAC per weight byte and pixel (%s)", humanize.Count(int64(s.pixels)), 1/s.k, s.class)
}

// EstimatePlan estimates the latency of an uncompiled model from its
// predicted mapping: the mapped operators' MACs layer by layer (priced as
// EstimateModel prices the layers of an uncompiled twin), and what the
// plan predicts the package moves (Plan.Package, Plan.Parameters,
// Plan.Spill: the segment's inputs and outputs in the device layout, the
// instructions, the parameters against the on-chip cache, the activation
// spill) priced as EstimateModel prices the same quantities read from a
// compiled file; the CPU operators as EstimateModel prices them.
func EstimatePlan(t *tflite.Model, p *Plan, h HostClass, o LatencyOptions) *Latency {
	l := &Latency{Host: h, Source: "plan"}
	if len(t.Subgraphs) == 0 {
		l.addInvocation(o)
		l.finish()
		return l
	}
	sg := &t.Subgraphs[0]
	onTPU := make([]bool, len(sg.Operators))
	for _, op := range p.Ops {
		if op.Subgraph == 0 && op.Placement == "TPU" && op.Index < len(onTPU) {
			onTPU[op.Index] = true
			l.UsesEdgeTPU = true
		}
	}
	l.addInvocation(o)
	pk := p.Package
	if pk == nil {
		pk = &PackageEstimate{}
	}
	mapped := 0
	for oi := range sg.Operators {
		if !onTPU[oi] {
			l.addCPU(t, sg, oi, h)
			continue
		}
		if mapped++; mapped == 1 {
			if p.Parameters.OnChip > 0 {
				l.add(LatencyPart{Name: "Edge TPU parameter caching", Kind: PartParameters, Us: linkUs(h, p.Parameters.OnChip), Bytes: p.Parameters.OnChip,
					Op: -1, FirstOnly: !o.Evicted, Resource: "link", Detail: "parameters (in the compiler's layout) loaded into the 8 MiB on-chip memory"})
			}
			l.add(LatencyPart{Name: "Edge TPU input transfer", Kind: PartTransfer, Us: linkUs(h, pk.InputBytes), Bytes: pk.InputBytes, Op: -1, Resource: "link",
				Detail: "the segment's inputs in the device layout"})
			l.add(LatencyPart{Name: "Edge TPU instructions", Kind: PartTransfer, Us: linkUs(h, pk.InstructionBytes), Bytes: pk.InstructionBytes, Op: -1, Resource: "link",
				Detail: "estimated from the mapped operators, the segment's input and output layers and the operators' output sizes"})
			if p.Parameters.Streamed > 0 {
				l.add(LatencyPart{Name: "Edge TPU streamed parameters", Kind: PartParameters, Us: linkUs(h, p.Parameters.Streamed), Bytes: p.Parameters.Streamed, Op: -1, Resource: "link",
					Detail: "parameters that do not fit the on-chip cache, streamed every inference", streamed: true})
			}
			if sp := p.Spill; sp != nil {
				l.add(LatencyPart{Name: "Edge TPU scratch spill", Kind: PartTransfer, Us: linkUs(h, sp.TrafficBytes), Bytes: sp.TrafficBytes, Op: -1, Resource: "link",
					Detail: "activations spilled to host memory and read back (uncertain)"})
				l.Notes = append(l.Notes, "scratch spill: "+sp.Uncertain)
			}
		}
		l.addTPULayer(t, sg, oi, fmt.Sprintf("op %d %s", oi, t.OperatorCodes[sg.Operators[oi].OpcodeIndex].Label()), -1, "")
	}
	for k := 2; k <= p.Segments; k++ {
		l.add(LatencyPart{Name: fmt.Sprintf("Edge TPU subgraph %d invocation", k), Kind: PartInvoke, Us: invokeFixedUs, Op: -1, Resource: "host",
			Detail: "each further Edge TPU subgraph is another device round trip"})
	}
	if mapped > 0 {
		l.add(LatencyPart{Name: "Edge TPU output transfer", Kind: PartTransfer, Us: linkUs(h, pk.OutputBytes), Bytes: pk.OutputBytes, Op: -1, Resource: "link",
			Detail: "the segment's outputs in the device layout"})
	}
	l.finish()
	return l
}

// addTPULayer prices one mapped layer on the Edge TPU: its MACs at the
// effective rate. EstimatePlan and EstimateModel (given the uncompiled
// twin) both price layers here, so the two estimates are one model.
func (l *Latency) addTPULayer(t *tflite.Model, sg *tflite.Subgraph, index int, name string, op int, detail string) {
	c := tpuLayerCost(t, sg, index)
	if op < 0 {
		op = index
	}
	l.noteTPURate(fmt.Sprintf("Edge TPU %.0f GMAC/s on each layer's MACs with its output channels padded to %d (fitted on the shared measured rows)", tpuPaddedMACsPerUs/1e3, paramChannelAlign))
	if c.MACs > 0 {
		pad := fmt.Sprintf("%s padded to %d output channels a group: %s", macsText(c.MACs), paramChannelAlign, macsText(c.PaddedMACs))
		if detail == "" {
			detail = pad
		} else {
			detail += "; " + pad
		}
	}
	l.add(LatencyPart{Name: name, Kind: PartTPU, Us: c.us(), MACs: c.MACs, PaddedMACs: c.PaddedMACs, Op: op, Resource: "edgetpu", Detail: detail})
}

// tpuCost is what one mapped layer costs the Edge TPU: its MACs and the
// MACs the array spends on them (PaddedMACs: its output channels padded to
// the array's width).
type tpuCost struct {
	MACs, PaddedMACs int64
}

// us is the layer's time: its padded MACs at tpuPaddedMACsPerUs.
func (c tpuCost) us() float64 { return float64(c.PaddedMACs) / tpuPaddedMACsPerUs }

// tpuLayerCost prices one mapped operator of an uncompiled model. The
// matrix operators (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) take
// their output channels paramChannelAlign at a time, so a layer of 24
// output channels keeps the array as long per output position as one of
// 64: its MACs count as 64/24 as many. Other operators (element-wise,
// pooling, concatenation) do no MACs and are not priced.
func tpuLayerCost(t *tflite.Model, sg *tflite.Subgraph, index int) tpuCost {
	op := &sg.Operators[index]
	w := Work(t, sg, op)
	c := tpuCost{MACs: w.MACs, PaddedMACs: w.MACs}
	if w.MACs == 0 || int(op.OpcodeIndex) >= len(t.OperatorCodes) || len(op.Outputs) == 0 || op.Outputs[0] < 0 || int(op.Outputs[0]) >= len(sg.Tensors) {
		return c
	}
	switch t.OperatorCodes[op.OpcodeIndex].Name() {
	case "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED":
		out := &sg.Tensors[op.Outputs[0]]
		if len(out.Shape) == 0 {
			break
		}
		if ch := int64(out.Shape[len(out.Shape)-1]); ch > 0 && w.MACs%ch == 0 {
			padded := (ch + paramChannelAlign - 1) / paramChannelAlign * paramChannelAlign
			c.PaddedMACs = w.MACs / ch * padded
		}
	}
	return c
}

// Timeline lowers one inference onto a sim graph (microsecond units):
// the parts in order on their resource (host, link, Edge TPU); first says
// whether the first inference's parts are included.
func (l *Latency) Timeline(first bool) *sim.Graph {
	g := &sim.Graph{Unit: "ns"}
	// A resource no part uses (the link and the Edge TPU of a model
	// wholly on the CPU) gets no track.
	res := map[string]sim.ResourceID{}
	for _, r := range []string{"host", "link", "edgetpu"} {
		used := false
		for _, p := range l.Parts {
			used = used || p.Resource == r && (first || !p.FirstOnly)
		}
		if used {
			name := map[string]string{"host": "host CPU", "link": l.Host.Link, "edgetpu": "Edge TPU"}[r]
			res[r] = g.AddResource(sim.Resource{Name: name, Group: l.Host.Name})
		}
	}
	prev := sim.TaskID(sim.None)
	for i, p := range l.Parts {
		if p.FirstOnly && !first {
			continue
		}
		id := g.AddTask(sim.Task{Name: p.Name, Cat: p.Kind, Resource: res[p.Resource], Duration: int64(p.Us*1000 + 0.5), Tag: int32(i)})
		if prev != sim.None {
			g.AddDep(prev, id)
		}
		prev = id
	}
	return g
}

// shownParts is how many rows a latency table shows at most before it
// keeps to the parts that are not operators and the longest operators
// (AllParts, the CLI's --layers, lists them all).
const shownParts = 24

// WriteText renders the latency breakdown: the totals, the parts (a long
// table keeps to its longest operators unless AllParts), the rates the
// estimate used, and the notes.
func (l *Latency) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	if f := l.FailsByDefault; f != nil {
		ew.Printf("Latency on %s (%s): every inference FAILS with the default runtime settings (%s); with %s set: first inference %s, steady state %s per inference\n",
			l.Host.Name, l.Host.Summary, f.Rule, f.Setting, ms(l.FirstInferenceUs), ms(l.SteadyStateUs))
	} else if l.UsesEdgeTPU {
		ew.Printf("Latency on %s (%s): first inference %s, steady state %s per inference\n", l.Host.Name, l.Host.Summary, ms(l.FirstInferenceUs), ms(l.SteadyStateUs))
	} else {
		ew.Printf("Latency on the CPU of %s (%s), no Edge TPU work: first inference %s, steady state %s per inference\n", l.Host.Name, l.Host.CPU, ms(l.FirstInferenceUs), ms(l.SteadyStateUs))
	}
	kinds := make([]string, 0, len(l.ByKind))
	for k := range l.ByKind {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return l.ByKind[kinds[i]] > l.ByKind[kinds[j]] })
	var sums []string
	for _, k := range kinds {
		sums = append(sums, fmt.Sprintf("%s %s (%.0f%%)", kindNames[k], ms(l.ByKind[k]), 100*l.ByKind[k]/max(l.SteadyStateUs, 1e-9)))
	}
	ew.Printf("  steady state: %s\n", strings.Join(sums, ", "))
	if u := l.Uncompiled; u != nil {
		name := "the uncompiled model"
		if u.Path != "" {
			name = filepath.Base(u.Path)
		}
		also := ""
		if len(u.Also) > 0 {
			also = fmt.Sprintf("; the same network as %s", strings.Join(u.Also, ", "))
		}
		ew.Printf("  Edge TPU compute layer by layer from the uncompiled model %s (%s%s)\n", name, u.How, also)
	}
	show, hidden, hiddenUs := l.shown()
	ew.Printf("  %-44s %10s %12s %s\n", "PART", "TIME", "BYTES/MACS", "")
	for i, p := range l.Parts {
		if !show[i] {
			continue
		}
		amount := ""
		switch {
		case p.Bytes > 0:
			amount = humanize.Bytes(p.Bytes)
		case p.MACs > 0:
			amount = macsText(p.MACs)
		}
		flag := ""
		if p.FirstOnly {
			flag = "first inference only"
		}
		ew.Printf("  %-44s %10s %12s %s\n", humanize.Shorten(p.Name, 44), ms(p.Us), amount, flag)
	}
	if hidden > 0 {
		ew.Printf("  … %s not listed, %s together (--layers lists every one; --json has them all)\n", humanize.Plural(hidden, "shorter operator"), ms(hiddenUs))
	}
	if r := l.rates(); r != "" {
		ew.Printf("  %s\n", r)
	}
	for _, n := range l.Notes {
		ew.Printf("  note: %s\n", n)
	}
	return ew.Err()
}

// macsText words a MAC count at its scale: "38,400 MACs" (a small count
// is not "0.0M"), "14.3M MACs", "5.34G MACs".
func macsText(n int64) string {
	switch {
	case n < 1e6:
		return humanize.Plural(int(n), "MAC")
	case n < 1e9:
		return fmt.Sprintf("%.1fM MACs", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.2fG MACs", float64(n)/1e9)
	}
}

// shown picks the rows of the table: every part when AllParts or when
// there are few; otherwise the parts of no operator (invocation,
// transfers) and the longest operators, shownParts rows in all, in their
// order. It returns which parts to show, and how many operators it left
// out and their time.
func (l *Latency) shown() (show []bool, hidden int, hiddenUs float64) {
	show = make([]bool, len(l.Parts))
	var ops []int
	for i, p := range l.Parts {
		if p.Kind == PartCPU || p.Kind == PartTPU {
			ops = append(ops, i)
		} else {
			show[i] = true
		}
	}
	if l.AllParts || len(l.Parts) <= shownParts {
		for i := range show {
			show[i] = true
		}
		return show, 0, 0
	}
	sort.SliceStable(ops, func(a, b int) bool { return l.Parts[ops[a]].Us > l.Parts[ops[b]].Us })
	keep := max(shownParts-(len(l.Parts)-len(ops)), 5)
	for k, i := range ops {
		if k < keep {
			show[i] = true
			continue
		}
		hidden++
		if !l.Parts[i].FirstOnly {
			hiddenUs += l.Parts[i].Us
		}
	}
	return show, hidden, hiddenUs
}

// rates says which rates the estimate used, only those: the host link
// (when something crosses it), the host CPU (when an operator runs there)
// and the Edge TPU's (when it computes).
func (l *Latency) rates() string {
	used := map[string]bool{}
	for _, p := range l.Parts {
		used[p.Resource] = true
		used[p.Kind] = true
	}
	var r []string
	if used["link"] {
		r = append(r, "host link "+LinkRateText(l.Host))
	}
	if used[PartCPU] {
		r = append(r, fmt.Sprintf("host CPU %.2f GMAC/s (int8 kernels; the host %.2fx the desktop's time in general, its depthwise convolutions %.2fx)", l.Host.CPUGMACs, l.Host.HostSlowness, l.Host.DepthwiseSlowness))
	}
	if used[PartTPU] {
		r = append(r, l.TPUPricing...)
	}
	return strings.Join(r, "; ")
}

// noteTPURate records a way the Edge TPU compute was priced (once).
func (l *Latency) noteTPURate(s string) {
	if !slices.Contains(l.TPUPricing, s) {
		l.TPUPricing = append(l.TPUPricing, s)
	}
}

var kindNames = map[string]string{PartInvoke: "invocation", PartTransfer: "transfers", PartParameters: "parameters", PartTPU: "Edge TPU compute", PartCPU: "CPU operators", PartPreprocess: "image resize"}

// HostsText lists the host classes and what each assumes.
func HostsText(w io.Writer) error {
	ew := stickywriter.New(w)
	ew.Printf("Host classes (--host):\n")
	for _, h := range hostClasses {
		def := ""
		if h.Name == DefaultHost {
			def = " (default)"
		}
		ew.Printf("  %-14s %s%s\n", h.Name, h.Summary, def)
		wait := ""
		if h.LinkLatencyUs > 0 {
			wait = fmt.Sprintf(" plus %s per inference", humanize.Micros(h.LinkLatencyUs))
		}
		ew.Printf("  %-14s link %s%s, CPU %.2f GMAC/s int8 (%.2fx the desktop's time in general, depthwise convolutions %.2fx); %s\n", "", LinkRateText(h), wait, h.CPUGMACs, h.HostSlowness, h.DepthwiseSlowness, h.Source)
	}
	return ew.Err()
}
