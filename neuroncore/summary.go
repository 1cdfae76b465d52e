package neuroncore

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// PlanSummary is what `npukit inspect` and `npukit sbuf show` print about a
// plan: its tensors with their allocation, and the body's size.
type PlanSummary struct {
	Name     string          `json:"plan"`
	Arch     string          `json:"arch"`
	Steps    int             `json:"steps"`    // steps written in the body
	Unrolled int             `json:"unrolled"` // step instances executed
	Tensors  []TensorSummary `json:"tensors"`
}

// TensorSummary describes one tensor of a plan.
type TensorSummary struct {
	Name         string `json:"name"`
	Buffer       string `json:"buffer"`
	Shape        string `json:"shape"` // NKI shape: (block..., par_dim(P), free...)
	DType        string `json:"dtype"`
	TileBytes    int64  `json:"tile_bytes_per_partition"`
	Alloc        string `json:"alloc"` // auto, alloc, mod_alloc
	Code         string `json:"code,omitempty"`
	LogicalTiles int64  `json:"logical_tiles"`
	Physical     int64  `json:"physical_tiles,omitempty"`
	MaxAlive     int    `json:"max_alive"`
	// Locations lists where each logical tile lies (direct allocation,
	// at most MaxListedTiles tiles).
	Locations []TileLocation `json:"locations,omitempty"`
}

// TileLocation is a logical tile's physical location.
type TileLocation struct {
	Tile           string `json:"tile"`
	StartPartition int64  `json:"start_partition"`
	Bank           int64  `json:"bank,omitempty"`
	ByteAddr       int64  `json:"byte_addr"`
}

// MaxListedTiles bounds the tile locations a summary lists per tensor.
const MaxListedTiles = 64

// Summarize describes a plan (unrolling the body for the tiles alive at
// once).
func Summarize(p *Plan) (*PlanSummary, error) {
	x, err := p.Execute()
	if err != nil {
		return nil, err
	}
	return SummarizeExecution(x), nil
}

// SummarizeExecution is Summarize on an unrolled body.
func SummarizeExecution(x *Execution) *PlanSummary {
	p := x.Plan
	s := &PlanSummary{Name: p.Name, Arch: p.Arch.Name, Unrolled: len(x.Events)}
	walkSteps(p.Body, func(*Step) { s.Steps++ })
	alive, _ := x.MaxAlive()
	for ti, t := range p.Tensors {
		ts := TensorSummary{Name: t.Name, Buffer: t.Buffer.String(), Shape: t.Shape(), DType: t.DType.String(),
			TileBytes: t.TileBytes(), Alloc: t.Kind.String(), LogicalTiles: t.Tiles(), MaxAlive: alive[ti]}
		switch t.Kind {
		case Mod:
			ts.Code = t.Mod.Code(t.Buffer)
		case Table:
			ts.Code = fmt.Sprintf("ncc.%s.alloc(table of %d)", t.Buffer, len(t.Table))
		}
		if t.Direct() {
			ts.Physical = PhysicalTiles(t)
			for lin := int64(0); lin < min(t.Tiles(), MaxListedTiles); lin++ {
				l, _ := t.Location(lin)
				ts.Locations = append(ts.Locations, TileLocation{Tile: t.TileName(lin), StartPartition: l.Partition, Bank: l.Bank, ByteAddr: l.Addr})
			}
		}
		s.Tensors = append(s.Tensors, ts)
	}
	return s
}

// Shape renders the tensor's NKI shape, e.g. (4, par_dim(128), 512).
func (t *Tensor) Shape() string {
	var parts []string
	for _, b := range t.Block {
		parts = append(parts, fmt.Sprint(b))
	}
	parts = append(parts, fmt.Sprintf("par_dim(%d)", t.Partitions))
	for _, f := range t.Free {
		parts = append(parts, fmt.Sprint(f))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// WriteText renders the summary: a tensor table, then the locations of
// the logical tiles of each directly allocated tensor.
func (s *PlanSummary) WriteText(w io.Writer) error {
	name := s.Name
	if name == "" {
		name = "plan"
	}
	fmt.Fprintf(w, "%s on NeuronCore-%s: %s, %s in the body, %s executed\n", name, s.Arch, humanize.Plural(len(s.Tensors), "tensor"), humanize.Plural(s.Steps, "step"), humanize.Count(int64(s.Unrolled)))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TENSOR\tBUFFER\tSHAPE\tDTYPE\tTILE BYTES\tLOGICAL\tPHYSICAL\tMAX ALIVE\tALLOCATION")
	for _, t := range s.Tensors {
		phys, code := "-", t.Alloc
		if t.Alloc != "auto" {
			phys, code = humanize.Count(t.Physical), t.Code
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Buffer, t.Shape, t.DType, humanize.Count(t.TileBytes), humanize.Count(t.LogicalTiles), phys, humanize.Count(int64(t.MaxAlive)), code)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range s.Tensors {
		if len(t.Locations) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: logical tile -> (start_partition, byte_addr)\n", t.Name)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, l := range t.Locations {
			if t.Buffer == "psum" {
				fmt.Fprintf(tw, "  %s\t-> bank %d, (%d, %d)\n", l.Tile, l.Bank, l.StartPartition, l.ByteAddr)
			} else {
				fmt.Fprintf(tw, "  %s\t-> (%d, %d)\n", l.Tile, l.StartPartition, l.ByteAddr)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if int64(len(t.Locations)) < t.LogicalTiles {
			fmt.Fprintf(w, "  ... %s more\n", humanize.Count(t.LogicalTiles-int64(len(t.Locations))))
		}
	}
	return nil
}

// OneTile returns a copy of the plan in which every directly allocated
// tensor keeps a single physical tile (mod_alloc without tile-count tuples;
// an alloc table mapping every logical tile to the first one's location):
// the same kernel without multi-buffering, to compare against.
func OneTile(p *Plan) *Plan {
	pp := *p
	pp.Tensors = make([]*Tensor, len(p.Tensors))
	for i, t := range p.Tensors {
		c := *t
		switch t.Kind {
		case Mod:
			m := *t.Mod
			m.NumBankTiles, m.NumParTiles, m.NumFreeTiles = nil, nil, nil
			c.Mod = &m
		case Table:
			c.Table = make([]TableEntry, len(t.Table))
			for j := range c.Table {
				c.Table[j] = TableEntry{Index: t.Table[j].Index, Loc: t.Table[0].Loc}
			}
		}
		pp.Tensors[i] = &c
	}
	return &pp
}

// TileRect is one physical tile of a directly allocated tensor: the
// partitions and the bytes of a partition it covers (PSUM: Offset counts
// from the start of bank 0), with the logical tiles mapped to it.
type TileRect struct {
	Tensor     string
	Buffer     Buffer
	Partition  int64
	Partitions int64
	Offset     int64
	Bytes      int64
	Logical    []string // logical tile names (at most MaxListedTiles)
	More       int64    // logical tiles not listed
}

// PhysicalRects lists the physical tiles of every directly allocated
// tensor, in tensor order and then by location.
func PhysicalRects(p *Plan) []TileRect {
	var out []TileRect
	bank := p.Arch.PSUMBankBytes()
	for _, t := range p.Tensors {
		if !t.Direct() {
			continue
		}
		idx := map[Location]int{}
		start := len(out)
		for lin := int64(0); lin < t.Tiles(); lin++ {
			l, _ := t.Location(lin)
			i, ok := idx[l]
			if !ok {
				i = len(out)
				idx[l] = i
				out = append(out, TileRect{Tensor: t.Name, Buffer: t.Buffer, Partition: l.Partition, Partitions: t.Partitions, Offset: l.Offset(bank), Bytes: t.TileBytes()})
			}
			if len(out[i].Logical) < MaxListedTiles {
				out[i].Logical = append(out[i].Logical, t.TileName(lin))
			} else {
				out[i].More++
			}
		}
		rs := out[start:]
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].Offset != rs[j].Offset {
				return rs[i].Offset < rs[j].Offset
			}
			return rs[i].Partition < rs[j].Partition
		})
	}
	return out
}

// LifetimeRect is a logical tile instance's lifetime (body steps [Start,
// End)) with the bytes its physical tile occupies in a partition.
type LifetimeRect struct {
	Tile              string
	Tensor            int
	Buffer            Buffer
	Start, End        int
	Offset, Bytes     int64
	Partition, Partns int64
}

// LifetimeRects lists the lifetimes of the logical tiles of directly
// allocated tensors with their physical bytes, at most limit of them.
func (x *Execution) LifetimeRects(limit int) []LifetimeRect {
	p := x.Plan
	var out []LifetimeRect
	for _, l := range x.Lifetimes {
		if len(out) >= limit {
			break
		}
		t := p.Tensors[l.Key.Tensor]
		loc, ok := t.Location(l.Key.Tile)
		if !ok {
			continue
		}
		out = append(out, LifetimeRect{Tile: x.TileName(l.Key), Tensor: l.Key.Tensor, Buffer: t.Buffer, Start: l.Start, End: l.End,
			Offset: loc.Offset(p.Arch.PSUMBankBytes()), Bytes: t.TileBytes(), Partition: loc.Partition, Partns: t.Partitions})
	}
	return out
}
