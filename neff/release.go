package neff

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/npukit/npukit/neuroncore"
)

// Compiler is the neuronx-cc release that wrote a NEFF, as far as the file
// says (info.json tool_version, else the header's neff_build_version).
type Compiler struct {
	Version string `json:"version"` // as written, e.g. "2.21.18209.0+043b1bf7"
	Major   int    `json:"major"`   // 2
	Minor   int    `json:"minor"`   // 21
}

var compilerVersionRE = regexp.MustCompile(`^(\d+)\.(\d+)\.\d+`)

// CompilerOf returns the compiler release of m, or nil when the file does
// not say (or says it in a form npukit does not read).
func CompilerOf(m *Model) *Compiler {
	for _, v := range []string{infoToolVersion(m), m.File.Header.BuildVersion} {
		v = strings.TrimSpace(v)
		g := compilerVersionRE.FindStringSubmatch(v)
		if g == nil {
			continue
		}
		major, err1 := strconv.Atoi(g[1])
		minor, err2 := strconv.Atoi(g[2])
		if err1 != nil || err2 != nil || major > 1000 || minor > 1000 {
			continue
		}
		return &Compiler{Version: v, Major: major, Minor: minor}
	}
	return nil
}

func infoToolVersion(m *Model) string {
	if m.Info == nil {
		return ""
	}
	return m.Info.ToolVersion
}

// Release is the Neuron SDK release a neuronx-cc version shipped in, with
// the runtime library of that release.
//
// The Neuron release notes list, per SDK release, the compiler and the
// runtime library it ships: 2.18.1 has neuronx-cc 2.13 and runtime library
// 2.20; 2.29 has 2.24 and 2.31; 2.30 has 2.25 and 2.32; 2.31 has 2.26 and
// 2.33; 2.32 has 2.27 and 2.34 ("Neuron Component Release Notes",
// "Previous Releases Artifacts"). Between and after these points the SDK
// minor is the compiler minor + 5 and the runtime minor the SDK minor + 2;
// before 2.13 the pairing is not regular, and Release says only that the
// compiler's own release is meant.
type Release struct {
	SDK     string `json:"sdk,omitempty"`     // "2.26"
	Runtime string `json:"runtime,omitempty"` // runtime library "2.28"
	// Text names the release in words.
	Text string `json:"text"`
}

// ReleaseOf returns the SDK release that shipped compiler c.
func ReleaseOf(c *Compiler) Release {
	if c.Major == 2 && c.Minor >= 13 {
		sdk, rt := c.Minor+5, c.Minor+7
		return Release{
			SDK:     fmt.Sprintf("2.%d", sdk),
			Runtime: fmt.Sprintf("2.%d", rt),
			Text:    fmt.Sprintf("Neuron SDK 2.%d (runtime library 2.%d, neuronx-cc %d.%d)", sdk, rt, c.Major, c.Minor),
		}
	}
	return Release{Text: fmt.Sprintf("the Neuron SDK release that ships neuronx-cc %d.%d", c.Major, c.Minor)}
}

// Hardware is what a NEFF needs to run, from its kelf targets and header.
type Hardware struct {
	// NeuronCore names the generation ("NeuronCore-v3"); empty when the
	// targets do not name one (the "*" target, or an unknown name).
	NeuronCore string `json:"neuroncore,omitempty"`
	// Version is the NeuronCore version 1..4, 0 when unknown.
	Version int `json:"neuroncore_version"`
	// Families are the EC2 instance families that can load the NEFF.
	Families []string `json:"instance_families"`
	// LNC is the physical NeuronCores per logical core (lnc_size; 0 in
	// the header means 1).
	LNC int `json:"lnc"`
	// LogicalCores is the logical NeuronCores the NEFF asks for
	// (requested_tpb_count, else num_tpb); PhysicalCores that times LNC.
	LogicalCores  int `json:"logical_cores"`
	PhysicalCores int `json:"physical_cores"`
	// Runtime says which Neuron runtime accepts the NEFF's version and
	// feature bits.
	Runtime string `json:"runtime"`
}

// Generation returns the NeuronCore generation of an architecture class,
// nil for "any" and unknown targets.
func (a Arch) Generation() *neuroncore.Generation {
	switch a {
	case ArchInf1:
		return neuroncore.GenerationOf(1)
	case ArchTrn1:
		return neuroncore.GenerationOf(2)
	case ArchTrn2:
		return neuroncore.GenerationOf(3)
	case ArchTrn3:
		return neuroncore.GenerationOf(4)
	}
	return nil
}

// Generation returns the NeuronCore generation the NEFF targets: the
// newest named by its kelfs (a NEFF has one target in practice), nil when
// none names a known one.
func (m *Model) Generation() *neuroncore.Generation {
	var g *neuroncore.Generation
	for _, k := range m.Kelfs {
		t := TargetArch(deref(k.Kelf.Target)).Generation()
		if t != nil && (g == nil || t.Version > g.Version) {
			g = t
		}
	}
	return g
}

// HardwareOf describes what m needs to run.
func HardwareOf(m *Model) Hardware {
	h := m.File.Header
	hw := Hardware{LNC: max(int(h.LNCSize), 1), Families: []string{}}
	hw.LogicalCores = int(h.RequestedTPBCount)
	if hw.LogicalCores == 0 {
		hw.LogicalCores = max(int(h.NumTPB), 1)
	}
	hw.PhysicalCores = hw.LogicalCores * hw.LNC
	if g := m.Generation(); g != nil {
		hw.NeuronCore, hw.Version, hw.Families = g.Name, g.Version, g.Families
	}
	hw.Runtime = RuntimeNeed(h, CompilerOf(m)).Text
	return hw
}

// Need is what a runtime must accept to load a NEFF.
type Need struct {
	// Beyond are the feature bits the oldest described runtime
	// (DefaultRuntime) refuses.
	Beyond uint64
	// Release is the compiler's own release when the file names it.
	Release *Release
	Text    string
}

// RuntimeNeed words which runtime accepts a header's NEFF version and
// feature bits. c is the compiler that wrote it (nil when unknown).
func RuntimeNeed(h Header, c *Compiler) Need {
	n := Need{}
	if c != nil {
		r := ReleaseOf(c)
		n.Release = &r
	}
	switch {
	case h.NeffVersionMajor > DefaultRuntime.MaxMajor:
		n.Text = fmt.Sprintf("NEFF version %d.%d: no published runtime loads major versions above %d", h.NeffVersionMajor, h.NeffVersionMinor, DefaultRuntime.MaxMajor)
		return n
	case h.NeffVersionMajor < 2:
		n.Text = fmt.Sprintf("NEFF version %d.%d: every Neuron runtime 2.x loads it (feature bits are not gated below version 2)", h.NeffVersionMajor, h.NeffVersionMinor)
		return n
	}
	n.Beyond = h.FeatureBits &^ DefaultRuntime.Features
	switch {
	case n.Beyond == 0:
		n.Text = fmt.Sprintf("NEFF version 2.%d, feature bits %#x: every Neuron runtime 2.x that loads NEFF 2.x accepts them", h.NeffVersionMinor, h.FeatureBits)
	case n.Release != nil:
		n.Text = fmt.Sprintf("NEFF version 2.%d, feature bits %s: the runtime of %s and later runtimes load it; older ones may refuse %#x (NRT_UNSUPPORTED_NEFF_VERSION)",
			h.NeffVersionMinor, DescribeFeatures(h.FeatureBits), n.Release.Text, n.Beyond)
	default:
		n.Text = fmt.Sprintf("NEFF version 2.%d, feature bits %s: a runtime that supports %#x (the compiler is not named in the file, so the release is unknown)",
			h.NeffVersionMinor, DescribeFeatures(h.FeatureBits), n.Beyond)
	}
	return n
}
