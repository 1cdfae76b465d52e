package dmaprog

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/simhook"

	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/sim"
)

// Setup is how a NEFF's DMA programs are simulated: the NeuronCore
// generation its kelf target names, that generation's DMA model, and the
// logical-core size. With LNC=n (Trainium2 and later: lnc_size 2 joins two
// physical cores into one logical core) the NEFF holds one subgraph per
// physical core; they run at the same time, subgraph i on physical core
// i mod n, each core with its own DMA engines. With LNC=1 the subgraphs
// run one after another on one core.
type Setup struct {
	NeuronCore string        `json:"neuroncore"` // "NeuronCore-v3"
	Version    int           `json:"neuroncore_version"`
	LNC        int           `json:"lnc"`
	Params     dma.SimParams `json:"params"`
	// Arch is the generation's NeuronCore model (engine clocks and
	// instruction costs, launch overhead).
	Arch *neuroncore.Arch `json:"-"`
	// Notes say what the model assumes: figures borrowed from another
	// generation, a target npukit does not know.
	Notes []string `json:"notes,omitempty"`
	// Trace keeps every priced instruction and DMA (EngineRun.Slices) so
	// that Run.Timeline draws them.
	Trace bool `json:"-"`
}

// SetupFor derives the simulation setup of m from its target and header.
// A target npukit does not recognise (or "*") is simulated as
// NeuronCore-v2, and a note says so.
func SetupFor(m *neff.Model) Setup {
	g := m.Generation()
	s := Setup{LNC: max(int(m.File.Header.LNCSize), 1)}
	if g == nil {
		g = neuroncore.GenerationOf(2)
		s.Notes = append(s.Notes, "the kelf target names no known NeuronCore generation: NeuronCore-v2's DMA model is used")
	}
	s.NeuronCore, s.Version = g.Name, g.Version
	s.Arch = g.Arch
	s.Params = dma.ParamsFor(g.Arch)
	if g.Arch.Assumed != "" {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: %s are not published; NeuronCore-v2's are used", g.Name, g.Arch.Assumed))
	}
	if !g.SupportsLNC(s.LNC) {
		s.Notes = append(s.Notes, fmt.Sprintf("lnc_size %d is not a configuration of %s (it supports %v); simulated as given", s.LNC, g.Name, g.LNCSizes))
	}
	return s
}

// SubgraphRun is one subgraph's simulated DMA program.
type SubgraphRun struct {
	Subgraph string `json:"subgraph"`
	// Core is the physical core of the logical core it runs on (0 with
	// LNC=1).
	Core    int            `json:"physical_core"`
	StartNs int64          `json:"start_ns"` // on its core's clock, after earlier subgraphs there
	Result  *dma.SimResult `json:"result"`
	// Engines is the instruction-level simulation (nil when the subgraph
	// has no instruction streams npukit can read); KernelNs is its time,
	// or the DMA-only time without it.
	Engines  *EngineRun       `json:"engines,omitempty"`
	KernelNs int64            `json:"kernel_ns"`
	Timeline *sim.Timeline    `json:"-"`
	Ordered  []dma.Descriptor `json:"-"`
}

// Run is a NEFF's simulated time: per subgraph, and the total, which is
// the launch overhead plus the longest physical core's time (subgraphs on
// one core add up).
type Run struct {
	Setup     Setup         `json:"setup"`
	TotalNs   int64         `json:"total_ns"`
	LaunchNs  int64         `json:"launch_ns"`
	Subgraphs []SubgraphRun `json:"subgraphs"`
}

// Simulate runs every program of a NEFF under s.
func Simulate(progs []*Program, s Setup) (*Run, error) {
	r := &Run{Setup: s}
	busy := make([]int64, max(s.LNC, 1))
	transposes := 0
	for i, p := range progs {
		simhook.Simulated(p)
		descs := p.Ordered()
		for _, d := range descs {
			if d.Transfer.Op == dma.OpTranspose {
				transposes++
			}
		}
		res, tl, err := dma.Simulate(descs, p.Queues, s.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Subgraph, err)
		}
		core := i % len(busy)
		sr := SubgraphRun{Subgraph: p.Subgraph, Core: core, StartNs: busy[core], Result: res, KernelNs: res.TotalNs, Timeline: tl, Ordered: descs}
		// The instruction encoding was read on NeuronCore-v2 and v3
		// NEFFs; v1 (Inferentia) streams are not decoded.
		if s.Arch != nil && s.Version >= 2 {
			if er := p.simulateEngines(s.Arch, s.Params, s.Trace); er != nil {
				// Static entries no instruction triggers, or streams with
				// many opcodes npukit does not know (an encoding it cannot
				// follow): the subgraph takes at least the DMA program's
				// own time.
				sr.Engines, sr.KernelNs = er, er.KernelNs
				if er.Untriggered > 0 || !er.Trusted() {
					sr.KernelNs = max(sr.KernelNs, res.TotalNs)
				}
			}
		}
		r.Subgraphs = append(r.Subgraphs, sr)
		busy[core] += sr.KernelNs
		r.TotalNs = max(r.TotalNs, busy[core])
	}
	if s.Arch != nil {
		r.LaunchNs = int64(s.Arch.LaunchNs)
		r.TotalNs += r.LaunchNs
	}
	if transposes > 0 && s.Params.TransposeBlock > 0 {
		r.Setup.Notes = append(r.Setup.Notes, fmt.Sprintf("%s charged as destination runs of %d elements (an assumption: no public figure gives the DMA engines' transpose throughput)", humanize.Plural(transposes, "DMA transpose"), s.Params.TransposeBlock))
	}
	return r, nil
}
