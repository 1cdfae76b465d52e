package dma

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/accesspattern"
)

// Efficiency thresholds, from the NeuronCore DMA guidance in
// ../shared/notes/neuroncore.md (128 partitions x >= 4 KiB transfers move
// data efficiently; runs under 512 B and per-partition payloads under
// 2 KiB do not; the innermost stride should stay within 16 B).
const (
	MinEfficientRun          = 512
	MinPartitionPayload      = 2048
	MaxInnermostStride       = 16
	DefaultPartitionStride   = 262144 // state-buffer addressing in NEFFs (also on v2)
	DefaultPartitions        = 128
	runHistogramBucketsCount = 6
)

// Rule IDs of the analysis.
const (
	RuleSmallRuns        = "neff/dma-small-runs"
	RuleSmallPartition   = "neff/dma-small-partition-payload"
	RuleFewPartitions    = "neff/dma-few-partitions"
	RuleStridedInnermost = "neff/dma-strided-innermost"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleSmallRuns, Severity: diag.Warning, Description: "a DMA descriptor moves contiguous runs under 512 bytes (DMA efficiency drops sharply)"},
		// An info: every compiler generation in the corpus emits such
		// accesses in every file (a tile of 128 partitions x 512 B is
		// the compiler's ordinary shape), so it is a convention of real
		// files, not something each user should act on.
		diag.Rule{ID: RuleSmallPartition, Severity: diag.Info, Description: "a state-buffer access moves under 2 KiB per partition (DMA time is dominated by per-descriptor overhead)"},
		diag.Rule{ID: RuleFewPartitions, Severity: diag.Warning, Description: "a state-buffer access uses fewer partitions than its size allows (spread over up to 128)"},
		diag.Rule{ID: RuleStridedInnermost, Severity: diag.Warning, Description: "the innermost access-pattern stride exceeds 16 bytes (element-wise gather/scatter)"},
	)
}

// Descriptor is a transfer with where it came from, for reporting.
type Descriptor struct {
	Engine   string // engine JSON member, e.g. "sg00/Pool.json"
	Queue    string
	Index    int // index of the DMA entry in the engine JSON
	Desc     int // index inside the entry's desc array
	Comment  string
	Transfer Transfer
}

// Location renders "sg00/Pool.json: dma[3].desc[0] (I-20-0-block-1)".
func (d Descriptor) Location() string {
	loc := fmt.Sprintf("%s: dma[%d].desc[%d]", d.Engine, d.Index, d.Desc)
	if d.Comment != "" {
		loc += " (" + d.Comment + ")"
	}
	return loc
}

// Layout says which variables are partitioned state buffers.
type Layout struct {
	StateBuffers    map[string]bool
	PartitionStride int64 // 0 = DefaultPartitionStride
	Partitions      int   // 0 = DefaultPartitions
}

func (l Layout) stride() int64 {
	if l.PartitionStride > 0 {
		return l.PartitionStride
	}
	return DefaultPartitionStride
}

func (l Layout) partitions() int {
	if l.Partitions > 0 {
		return l.Partitions
	}
	return DefaultPartitions
}

// RunHistogram counts contiguous runs by size class.
type RunHistogram struct {
	Under64   int64 `json:"under_64"`
	Under512  int64 `json:"under_512"`
	Under2K   int64 `json:"under_2k"`
	Under4K   int64 `json:"under_4k"`
	Under64K  int64 `json:"under_64k"`
	From64KUp int64 `json:"from_64k"`
}

func (h *RunHistogram) add(size, count int64) {
	switch {
	case size < 64:
		h.Under64 += count
	case size < 512:
		h.Under512 += count
	case size < 2048:
		h.Under2K += count
	case size < 4096:
		h.Under4K += count
	case size < 65536:
		h.Under64K += count
	default:
		h.From64KUp += count
	}
}

func (h *RunHistogram) merge(o RunHistogram) {
	h.Under64 += o.Under64
	h.Under512 += o.Under512
	h.Under2K += o.Under2K
	h.Under4K += o.Under4K
	h.Under64K += o.Under64K
	h.From64KUp += o.From64KUp
}

// QueueStats aggregates the descriptors of one engine and queue.
type QueueStats struct {
	Engine      string `json:"engine"`
	Queue       string `json:"queue"`
	Descriptors int    `json:"descriptors"`
	Bytes       int64  `json:"bytes"`
	// Runs and Histogram count each descriptor's more fragmented side
	// (FragmentedSide), the one the small-runs rule and the DMA model's
	// row spreading see; the source side alone hid an SB side's small
	// runs that the rule warned about.
	Runs       int64        `json:"runs"`
	Histogram  RunHistogram `json:"run_histogram"`
	Partitions int          `json:"partitions_touched"` // distinct state-buffer partitions
	partSet    []uint64
}

// Analysis is the traffic of a DMA program.
type Analysis struct {
	Queues      []QueueStats `json:"queues"`
	Descriptors int          `json:"descriptors"`
	Bytes       int64        `json:"bytes"`
	// Ops counts descriptors and moved bytes per operation (copy, cast,
	// transpose, ...), in the order of Op's constants.
	Ops         []OpStats    `json:"ops"`
	Histogram   RunHistogram `json:"run_histogram"`
	Diagnostics diag.Report  `json:"diagnostics"`
}

// OpStats is the traffic of one DMA operation.
type OpStats struct {
	Op          Op    `json:"op"`
	Descriptors int   `json:"descriptors"`
	Bytes       int64 `json:"bytes"`
}

// opOrder is the order Analysis.Ops lists operations in.
var opOrder = []Op{OpCopy, OpCast, OpTranspose, OpAdd, OpFMA, OpMin, OpMax}

// Analyze computes per-queue traffic and efficiency diagnostics.
func Analyze(descs []Descriptor, l Layout) *Analysis {
	a := &Analysis{Diagnostics: diag.Report{}}
	ops := map[Op]*OpStats{}
	defer func() {
		for _, o := range opOrder {
			if s := ops[o]; s != nil {
				a.Ops = append(a.Ops, *s)
				delete(ops, o)
			}
		}
		for _, o := range slices.Sorted(maps.Keys(ops)) { // ops npukit does not know
			a.Ops = append(a.Ops, *ops[o])
		}
	}()
	byKey := map[[2]string]*QueueStats{}
	for _, d := range descs {
		key := [2]string{d.Engine, d.Queue}
		q := byKey[key]
		if q == nil {
			q = &QueueStats{Engine: d.Engine, Queue: d.Queue}
			byKey[key] = q
		}
		q.Descriptors++
		moved := d.Transfer.To.Pattern.Bytes()
		q.Bytes += moved
		op := d.Transfer.Op
		if op == "" {
			op = OpCopy
		}
		if ops[op] == nil {
			ops[op] = &OpStats{Op: op}
		}
		ops[op].Descriptors++
		ops[op].Bytes += moved
		a.Diagnostics = append(a.Diagnostics, descriptorFindings(d, l)...)
		for _, s := range sides(d.Transfer) {
			if l.StateBuffers[s.Var] {
				markPartitions(q, s.Pattern, l)
			}
		}
		if side, sum, ok := fragmentedSide(d.Transfer); ok {
			src := side.Pattern
			q.Runs += sum.Runs
			if sum.MinRun == sum.MaxRun && sum.Runs > 0 {
				q.Histogram.add(sum.MinRun, sum.Runs)
			} else {
				for r := range src.Runs() {
					q.Histogram.add(r.Len, 1)
				}
			}
		}
	}
	for _, q := range byKey {
		for _, w := range q.partSet {
			q.Partitions += bits.OnesCount64(w)
		}
		q.partSet = nil
		a.Queues = append(a.Queues, *q)
		a.Descriptors += q.Descriptors
		a.Bytes += q.Bytes
		a.Histogram.merge(q.Histogram)
	}
	sort.Slice(a.Queues, func(i, j int) bool {
		if a.Queues[i].Engine != a.Queues[j].Engine {
			return a.Queues[i].Engine < a.Queues[j].Engine
		}
		return a.Queues[i].Queue < a.Queues[j].Queue
	})
	a.Diagnostics.Sort()
	return a
}

// RunsSide says which side the run counts of an Analysis are of.
const RunsSide = "each descriptor's more fragmented side (the side with more contiguous runs)"

// FragmentedSide is the side of t with the most contiguous runs (on a
// tie, the one with the shortest run): the side whose runs the DMA
// engines share out (Rows) and the small-runs rule sees first. ok is
// false when t has no side.
func FragmentedSide(t Transfer) (Side, bool) {
	s, _, ok := fragmentedSide(t)
	return s, ok
}

// fragmentedSide is FragmentedSide with the summary it chose by.
func fragmentedSide(t Transfer) (Side, accesspattern.Summary, bool) {
	best, ok := Side{}, false
	var bs accesspattern.Summary
	for _, s := range sides(t) {
		sum := s.Pattern.Summarize()
		if sum.Runs == 0 {
			continue
		}
		if !ok || sum.Runs > bs.Runs || sum.Runs == bs.Runs && sum.MinRun < bs.MinRun {
			best, bs, ok = s, sum, true
		}
	}
	return best, bs, ok
}

// sides lists a transfer's sources, then its destination.
func sides(t Transfer) []Side {
	return append(append([]Side(nil), t.From...), t.To)
}

// descriptorFindings checks every side of a descriptor and gives one
// finding per rule: a descriptor whose two sources (an add) or whose
// source and destination both show a rule is one finding, its message
// naming each side, so that check, neff dma, the report and their JSON
// count descriptors alike (a rule counted per side said 11 beside a fold
// line's 10 descriptors).
func descriptorFindings(d Descriptor, l Layout) diag.Report {
	var perSide diag.Report
	for _, s := range sides(d.Transfer) {
		checkSide(d, s, s.Pattern.Summarize(), l, &perSide)
	}
	if len(perSide) < 2 {
		return perSide
	}
	var out diag.Report
	type merged struct {
		i     int
		msgs  []string
		times []int
	}
	at := map[string]*merged{}
	for _, f := range perSide {
		m := at[f.Rule]
		if m == nil {
			m = &merged{i: len(out)}
			at[f.Rule] = m
			out = append(out, f)
		}
		msg := strings.TrimSuffix(f.Message, smallRunsAdvice)
		if k := slices.Index(m.msgs, msg); k >= 0 {
			m.times[k]++
			continue
		}
		m.msgs, m.times = append(m.msgs, msg), append(m.times, 1)
	}
	for _, m := range at {
		parts := make([]string, len(m.msgs))
		for k, msg := range m.msgs {
			parts[k] = msg
			if m.times[k] > 1 {
				parts[k] += fmt.Sprintf(" (%d sides alike)", m.times[k])
			}
		}
		f := &out[m.i]
		msg := strings.Join(parts, "; ")
		if strings.HasSuffix(f.Message, smallRunsAdvice) {
			msg += smallRunsAdvice
		}
		f.Message = msg
	}
	return out
}

// smallRunsAdvice ends a small-runs finding's message (said once when
// several sides show the rule).
const smallRunsAdvice = "; make the innermost dimension longer or contiguous"

func checkSide(d Descriptor, s Side, sum accesspattern.Summary, l Layout, rep *diag.Report) {
	if sum.Bytes == 0 {
		return
	}
	loc := d.Location()
	if sum.MinRun < MinEfficientRun && sum.Bytes >= MinEfficientRun {
		rep.Add(RuleSmallRuns, loc, "%s side moves %s runs, the smallest %s bytes (under %s B)"+smallRunsAdvice,
			s.Var, humanize.Count(int64(sum.Runs)), humanize.Count(int64(sum.MinRun)), humanize.Count(MinEfficientRun))
	}
	if len(s.Pattern.Steps) > 0 && s.Pattern.Steps[0] > MaxInnermostStride {
		rep.Add(RuleStridedInnermost, loc, "%s side's innermost stride is %s bytes (over %s B)", s.Var, humanize.Count(int64(s.Pattern.Steps[0])), humanize.Count(MaxInnermostStride))
	}
	if !l.StateBuffers[s.Var] {
		return
	}
	parts := partitionsOf(s.Pattern, l)
	if parts == 0 {
		return
	}
	per := sum.Bytes / int64(parts)
	if per < MinPartitionPayload {
		rep.Add(RuleSmallPartition, loc, "%s side moves %s bytes per partition over %s (under %s B)", s.Var, humanize.Count(per), humanize.Plural(parts, "partition"), humanize.Count(MinPartitionPayload))
	}
	allowed := int(min(int64(l.partitions()), sum.Bytes/MinPartitionPayload))
	if parts < allowed {
		rep.Add(RuleFewPartitions, loc, "%s side uses %s for %s bytes; spreading over %d partitions keeps >= %s B each",
			s.Var, humanize.Plural(parts, "partition"), humanize.Count(sum.Bytes), allowed, humanize.Count(MinPartitionPayload))
	}
}

// partitionsOf counts the distinct partitions a state-buffer pattern touches.
func partitionsOf(p accesspattern.Pattern, l Layout) int {
	var q QueueStats
	markPartitions(&q, p, l)
	n := 0
	for _, w := range q.partSet {
		n += bits.OnesCount64(w)
	}
	return n
}

// maxTrackedPartitions bounds the partition bitset of one queue.
const maxTrackedPartitions = 1 << 16

func markPartitions(q *QueueStats, p accesspattern.Pattern, l Layout) {
	stride := l.stride()
	for r := range p.Runs() {
		first, last := r.Off/stride, (r.End()-1)/stride
		if first < 0 || last >= maxTrackedPartitions {
			continue
		}
		for part := first; part <= last; part++ {
			w := int(part / 64)
			for len(q.partSet) <= w {
				q.partSet = append(q.partSet, 0)
			}
			q.partSet[w] |= 1 << (part % 64)
		}
	}
}
