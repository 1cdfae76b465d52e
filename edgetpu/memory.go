package edgetpu

import (
	"fmt"
	"github.com/npukit/npukit/edgetpu/dmaplan"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/stickywriter"
)

// Memory is what a package needs (notes, "Parameter caching"): the caching
// executable's parameters live in on-chip SRAM; the executing executable's
// parameters are streamed from the host every inference.
type Memory struct {
	Cached       int64  `json:"on_chip_cached_parameter_bytes"`
	Streamed     int64  `json:"off_chip_streamed_parameter_bytes"`
	Instructions int64  `json:"instruction_bytes"`
	Scratch      int64  `json:"scratch_bytes"`
	Token        uint64 `json:"-"`
	TokenHex     string `json:"parameter_caching_token"`
}

// MemoryOf sums a package's memory.
func MemoryOf(p *Package) Memory {
	var m Memory
	for _, e := range p.Executables {
		for _, b := range e.Bitstreams {
			m.Instructions += int64(len(b.Data))
		}
	}
	// The runtime caches parameters only for the PARAMETER_CACHING half of
	// a two-executable package (libedgetpu driver/package_registry.cc): a
	// sole executable runs stand-alone whatever its type, and of three the
	// STAND_ALONE one runs with its own parameters.
	if c := p.Caching(); c != nil && len(p.Executables) == 2 {
		m.Cached, m.Token = int64(len(c.Parameters)), c.Token
	}
	if e := p.Main(); e != nil {
		m.Streamed, m.Scratch = int64(len(e.Parameters)), int64(e.ScratchSizeBytes)
		if m.Token == 0 {
			m.Token = e.Token
		}
	}
	m.TokenHex = fmt.Sprintf("0x%016x", m.Token)
	return m
}

// FileMemory is the memory of one file (all its Edge TPU packages).
type FileMemory struct {
	Path string `json:"path"`
	Memory
	Packages int `json:"packages"`
	// CompiledWithOthers: a package of the file was most likely compiled
	// together with other models sharing its cache
	// (Memory.CompiledWithOthers, the rule check uses).
	CompiledWithOthers bool `json:"compiled_with_others_likely,omitempty"`
}

// TokenGroup gathers the files that share a caching token.
type TokenGroup struct {
	Token     string       `json:"parameter_caching_token"`
	Files     []FileMemory `json:"files"`
	Cached    int64        `json:"cached_total_bytes"`
	SRAM      int64        `json:"sram_bytes"`
	Fits      bool         `json:"fits_in_sram"`
	Statement string       `json:"statement"`
}

// MemoryReport is the result of `npukit edgetpu memory`.
type MemoryReport struct {
	Groups    []TokenGroup `json:"groups"`
	Statement string       `json:"statement"`
	// NoEdgeTPU are the files given that hold no Edge TPU package (a
	// plain TFLite model, or one whose Edge TPU operator the runtime
	// cannot load), with why: they take no part in the cache.
	NoEdgeTPU []NoEdgeTPUFile `json:"no_edgetpu,omitempty"`
	// Pipeline is set when the files are the segments of one pipeline
	// (each segment's outputs are the next one's inputs).
	Pipeline *Pipeline `json:"pipeline,omitempty"`
}

// NoEdgeTPUFile is a file of a memory report that caches nothing.
type NoEdgeTPUFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Pipeline is a chain of model segments, each on its own Edge TPU.
type Pipeline struct {
	Segments  []PipelineSegment `json:"segments"` // in pipeline order
	Slowest   int               `json:"slowest"`  // index into Segments
	Link      string            `json:"link"`     // the link the times assume
	Statement string            `json:"statement"`
}

// PipelineSegment is one segment with its steady-state transfer time.
type PipelineSegment struct {
	Path string `json:"path"`
	// Bytes is the larger direction of what one inference moves over the
	// host link; LowerBoundUs its time over Link.
	Bytes        int64   `json:"bytes_per_inference"`
	LowerBoundUs float64 `json:"lower_bound_us"`
}

// tensorKey identifies a model input or output across files.
func tensorKey(t *Tensor) string {
	return fmt.Sprintf("%s|%v|%s", t.Name, t.Shape, t.Type)
}

// DetectPipeline orders files into a pipeline when they are one: every
// segment after the first takes as inputs tensors that earlier segments
// output (same name, shape and type, as Coral's model partitioner writes
// them). Files that are not such a chain (models merely compiled together)
// give nil.
func DetectPipeline(files []NamedModel) *Pipeline {
	if len(files) < 2 {
		return nil
	}
	ins := make([]map[string]bool, len(files))
	outs := make([]map[string]bool, len(files))
	for i, f := range files {
		t := f.Model.TFLite
		if t == nil || len(t.Subgraphs) == 0 {
			return nil
		}
		sg := &t.Subgraphs[0]
		ins[i], outs[i] = map[string]bool{}, map[string]bool{}
		for _, k := range sg.Inputs {
			if k >= 0 && int(k) < len(sg.Tensors) {
				ins[i][tensorKey(&sg.Tensors[k])] = true
			}
		}
		for _, k := range sg.Outputs {
			if k >= 0 && int(k) < len(sg.Tensors) {
				outs[i][tensorKey(&sg.Tensors[k])] = true
			}
		}
	}
	feeds := func(a, b int) bool { // some output of a is an input of b
		for k := range outs[a] {
			if ins[b][k] {
				return true
			}
		}
		return false
	}
	// Segments in dependency order (a segment may also take tensors of
	// an earlier, not only the previous, segment: Coral's partitioner
	// passes skip connections on): exactly one segment is fed by no
	// other, and each segment comes after every segment feeding it.
	fedBy := make([][]int, len(files))
	heads := 0
	for i := range files {
		for j := range files {
			if j != i && feeds(j, i) {
				fedBy[i] = append(fedBy[i], j)
			}
		}
		if len(fedBy[i]) == 0 {
			heads++
		}
	}
	if heads != 1 {
		return nil
	}
	var order []int
	placed := map[int]bool{}
	for len(order) < len(files) {
		next := -1
		for i := range files {
			if placed[i] {
				continue
			}
			ready := true
			for _, j := range fedBy[i] {
				ready = ready && placed[j]
			}
			if ready {
				next = i
				break
			}
		}
		if next < 0 {
			return nil // a cycle
		}
		order, placed[next] = append(order, next), true
	}
	link := dmaplan.DefaultLinks()[1] // USB 3.0, the common Coral accelerator link
	pl := &Pipeline{Link: link.Name}
	for _, i := range order {
		seg := PipelineSegment{Path: files[i].Path}
		for _, p := range files[i].Model.Packages() {
			if plan, err := dmaplan.Build(PlanInput(p), []dmaplan.Link{link}); err == nil {
				seg.Bytes += max(plan.Steady.HostToDevice, plan.Steady.DeviceToHost)
			}
		}
		seg.LowerBoundUs = float64(seg.Bytes) * 8 / link.BitsPerSec * 1e6
		pl.Segments = append(pl.Segments, seg)
	}
	for i, s := range pl.Segments {
		if s.LowerBoundUs > pl.Segments[pl.Slowest].LowerBoundUs {
			pl.Slowest = i
		}
	}
	sl := pl.Segments[pl.Slowest]
	pl.Statement = fmt.Sprintf("The %d files are the segments of one pipeline (each one's inputs are earlier ones' outputs). Each moves per inference, over %s at least: %s. The slowest segment, %s (%s), sets the pipeline's pace: move layers from it into its neighbours (re-partition) to balance them.",
		len(pl.Segments), link.Name, segmentTimes(pl.Segments), sl.Path, ms(sl.LowerBoundUs))
	return pl
}

func segmentTimes(ss []PipelineSegment) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("%s %s", s.Path, ms(s.LowerBoundUs))
	}
	return strings.Join(parts, ", ")
}

// NamedModel is a model with the path it was read from.
type NamedModel struct {
	Path  string
	Model *Model
	// Twin is the compiled model's uncompiled twin (FindTwin; nil:
	// none): its layers price the Edge TPU compute.
	Twin *Twin
	// TwinNote says why no twin is used when one was looked for
	// (FindTwin's answer, or why the one given is not this model's): the
	// latency estimates carry it as a note (LatencyOptions.TwinNote).
	TwinNote string
}

// BuildMemoryReport groups files by caching token and states what
// co-resides in the parameter SRAM and what evicts it.
func BuildMemoryReport(files []NamedModel) *MemoryReport {
	byToken := map[uint64]*TokenGroup{}
	var order []uint64
	r := &MemoryReport{}
	for _, f := range files {
		if len(f.Model.Packages()) == 0 {
			why := "no edgetpu-custom-op: every operator runs on the host CPU, which neither uses nor evicts the Edge TPU's parameter cache"
			if len(f.Model.Ops) > 0 {
				why = "its Edge TPU operator holds no package current runtimes load (npukit check says why): nothing of it is cached"
			}
			r.NoEdgeTPU = append(r.NoEdgeTPU, NoEdgeTPUFile{Path: f.Path, Reason: why})
			continue
		}
		fm := FileMemory{Path: f.Path}
		for _, p := range f.Model.Packages() {
			m := MemoryOf(p)
			fm.Packages++
			fm.Cached += m.Cached
			fm.Streamed += m.Streamed
			fm.Instructions += m.Instructions
			fm.Scratch += m.Scratch
			fm.CompiledWithOthers = fm.CompiledWithOthers || m.CompiledWithOthers()
			if fm.Token == 0 {
				fm.Token = m.Token
			}
		}
		fm.TokenHex = fmt.Sprintf("0x%016x", fm.Token)
		key := fm.Token
		if key == 0 {
			// Token 0 never shares the cache: each such file is its own group.
			key = uint64(len(order)) | 1<<63
			for byToken[key] != nil {
				key++
			}
		}
		g := byToken[key]
		if g == nil {
			g = &TokenGroup{Token: fm.TokenHex, SRAM: ParameterSRAM}
			byToken[key] = g
			order = append(order, key)
		}
		g.Files = append(g.Files, fm)
		g.Cached += fm.Cached
	}
	for _, k := range order {
		g := byToken[k]
		g.Fits = g.Cached <= g.SRAM
		g.Statement = groupStatement(g)
		r.Groups = append(r.Groups, *g)
	}
	switch {
	case len(r.Groups) == 0:
		r.Statement = "No file given holds an Edge TPU package."
	case len(files) == 1:
		r.Statement = "One file."
	case len(files)-len(r.NoEdgeTPU) == 1:
		r.Statement = "One file holds an Edge TPU package."
	case len(r.Groups) == 1 && len(r.NoEdgeTPU) > 0:
		r.Statement = "The files that hold an Edge TPU package share one caching token."
	case len(r.Groups) == 1:
		r.Statement = "All files share one caching token."
	default:
		r.Statement = fmt.Sprintf("%d token groups: running models of different groups one after the other evicts the whole parameter cache each time, and the next inference reloads its cached parameters.", len(r.Groups))
	}
	r.Pipeline = DetectPipeline(files)
	return r
}

func groupStatement(g *TokenGroup) string {
	if g.Token == "0x0000000000000000" {
		return "Token 0: this model does not use parameter caching across models; running it evicts the cache."
	}
	if len(g.Files) == 1 {
		f := g.Files[0]
		if f.CompiledWithOthers {
			// The rule check uses (Memory.CompiledWithOthers): the
			// file is the only one of its token given, not the
			// only one of its token.
			return fmt.Sprintf("The only file of its caching token given here, but not alone in its group: it was most likely compiled together with others sharing its cache (%s streamed every inference although its %s cached + %s streamed would fit the 8 MiB on-chip memory); give the files compiled with it to see what the group caches. Its own %s of cached parameters fit in the %s SRAM.",
				humanize.Bytes(f.Streamed), humanize.Bytes(f.Cached), humanize.Bytes(f.Streamed), humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
		}
		if g.Fits {
			return fmt.Sprintf("The only file of its caching token given here: %s of cached parameters fit in the %s SRAM.", humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
		}
		return fmt.Sprintf("The only file of its caching token given here: %s of cached parameters do not fit in the %s SRAM.", humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
	}
	if g.Fits {
		return fmt.Sprintf("%d files compiled together share the cache: on one Edge TPU their %s of cached parameters co-reside in the %s SRAM, so alternating between them does not evict it.", len(g.Files), humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
	}
	return fmt.Sprintf("%d files share a token but their %s of cached parameters exceed the %s SRAM.", len(g.Files), humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
}

// WriteText renders the report.
func (r *MemoryReport) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	for i, g := range r.Groups {
		if i > 0 {
			ew.Printf("\n")
		}
		ew.Printf("Token %s: %s, cached %s of %s SRAM\n", g.Token, humanize.Plural(len(g.Files), "file"), humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ON-CHIP CACHED\tOFF-CHIP STREAMED\tINSTRUCTIONS\tSCRATCH\tTOTAL\t  FILE")
		for _, f := range g.Files {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t  %s\n", humanize.Bytes(f.Cached), humanize.Bytes(f.Streamed), humanize.Bytes(f.Instructions),
				humanize.Bytes(f.Scratch), humanize.Bytes(f.Cached+f.Streamed+f.Instructions+f.Scratch), f.Path)
		}
		tw.Flush()
		ew.Printf("  %s\n", g.Statement)
	}
	for _, f := range r.NoEdgeTPU {
		ew.Printf("Not on the Edge TPU: %s: %s.\n", f.Path, f.Reason)
	}
	ew.Printf("%s\n", r.Statement)
	if r.Pipeline != nil {
		ew.Printf("%s\n", r.Pipeline.Statement)
	}
	return ew.Err()
}
