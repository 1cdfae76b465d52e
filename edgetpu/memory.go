package edgetpu

import (
	"fmt"
	"io"
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
}

// NamedModel is a model with the path it was read from.
type NamedModel struct {
	Path  string
	Model *Model
}

// BuildMemoryReport groups files by caching token and states what
// co-resides in the parameter SRAM and what evicts it.
func BuildMemoryReport(files []NamedModel) *MemoryReport {
	byToken := map[uint64]*TokenGroup{}
	var order []uint64
	for _, f := range files {
		fm := FileMemory{Path: f.Path}
		for _, p := range f.Model.Packages() {
			m := MemoryOf(p)
			fm.Packages++
			fm.Cached += m.Cached
			fm.Streamed += m.Streamed
			fm.Instructions += m.Instructions
			fm.Scratch += m.Scratch
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
	r := &MemoryReport{}
	for _, k := range order {
		g := byToken[k]
		g.Fits = g.Cached <= g.SRAM
		g.Statement = groupStatement(g)
		r.Groups = append(r.Groups, *g)
	}
	switch {
	case len(r.Groups) == 1:
		r.Statement = "All files share one caching token."
	default:
		r.Statement = fmt.Sprintf("%d token groups: running models of different groups one after the other evicts the whole parameter cache each time, and the next inference reloads its cached parameters.", len(r.Groups))
	}
	return r
}

func groupStatement(g *TokenGroup) string {
	if g.Token == "0x0000000000000000" {
		return "Token 0: this model does not use parameter caching across models; running it evicts the cache."
	}
	if len(g.Files) == 1 {
		if g.Fits {
			return fmt.Sprintf("Alone in its group: %s of cached parameters fit in the %s SRAM.", humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
		}
		return fmt.Sprintf("Alone in its group: %s of cached parameters do not fit in the %s SRAM.", humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
	}
	var sizes []int64
	for _, f := range g.Files {
		sizes = append(sizes, f.Cached+f.Streamed)
	}
	lo, hi := sizes[0], sizes[0]
	for _, s := range sizes {
		lo, hi = min(lo, s), max(hi, s)
	}
	balance := ""
	if lo > 0 {
		balance = fmt.Sprintf(" If they are the segments of one pipeline (one Edge TPU each), per-segment parameter totals range from %s to %s (%.2fx): the largest segment sets the pace.", humanize.Bytes(lo), humanize.Bytes(hi), float64(hi)/float64(lo))
	}
	if g.Fits {
		return fmt.Sprintf("%d files compiled together share the cache: on one Edge TPU their %s of cached parameters co-reside in the %s SRAM, so alternating between them does not evict it.%s", len(g.Files), humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM), balance)
	}
	return fmt.Sprintf("%d files share a token but their %s of cached parameters exceed the %s SRAM.%s", len(g.Files), humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM), balance)
}

// WriteText renders the report.
func (r *MemoryReport) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	for i, g := range r.Groups {
		if i > 0 {
			ew.Printf("\n")
		}
		ew.Printf("Token %s: %d file(s), cached %s of %s SRAM\n", g.Token, len(g.Files), humanize.Bytes(g.Cached), humanize.Bytes(g.SRAM))
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ON-CHIP CACHED\tOFF-CHIP STREAMED\tINSTRUCTIONS\tSCRATCH\tTOTAL\t  FILE")
		for _, f := range g.Files {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t  %s\n", humanize.Bytes(f.Cached), humanize.Bytes(f.Streamed), humanize.Bytes(f.Instructions),
				humanize.Bytes(f.Scratch), humanize.Bytes(f.Cached+f.Streamed+f.Instructions), f.Path)
		}
		tw.Flush()
		ew.Printf("  %s\n", g.Statement)
	}
	ew.Printf("%s\n", r.Statement)
	return ew.Err()
}
