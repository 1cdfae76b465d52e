package dmaprog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neff"
)

// MaxDefaultBudget is the largest default budget: 4 GiB, the runtime's own
// limit on a def.json.
const MaxDefaultBudget int64 = 4 << 30

// DefaultBudget bounds the bytes a Memory allocates (state buffer
// included) when no budget is given: an eighth of the machine's memory,
// at least 256 MiB, at most MaxDefaultBudget (an 11 KB NEFF declaring
// 2 GiB variables made execution use 4.2 GB).
func DefaultBudget() int64 {
	if m := inputfile.TotalMemory(); m > 0 {
		return min(MaxDefaultBudget, max(m/8, 256<<20))
	}
	return MaxDefaultBudget
}

// BudgetError says a variable does not fit the memory budget.
type BudgetError struct {
	Var          string
	Size, Budget int64
	Left         int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("variable %q declares %s bytes; the memory budget of %s bytes has %s left", e.Var, humanize.Count(e.Size), humanize.Count(e.Budget), humanize.Count(e.Left))
}

// Memory holds the variable memories of one program. It implements
// dma.Memory; a variable is allocated (and loaded, for file variables and
// supplied inputs) the first time a descriptor names it.
type Memory struct {
	p      *Program
	bufs   map[string][]byte
	inputs map[string][]byte
	budget int64
	used   int64
}

// NewMemory returns an empty memory for p that allocates at most budget
// bytes (DefaultBudget when <= 0).
func (p *Program) NewMemory(budget int64) *Memory {
	if budget <= 0 {
		budget = DefaultBudget()
	}
	return &Memory{p: p, bufs: map[string][]byte{}, inputs: map[string][]byte{}, budget: budget}
}

// SetInput supplies the initial bytes of a variable (any type but the
// state buffer; normally an input). data must not exceed the variable's
// size; a shorter value is zero-padded.
func (m *Memory) SetInput(name string, data []byte) error {
	v, ok := m.p.Var(name)
	if !ok {
		return fmt.Errorf("%s declares no variable %q (variables: %s)", m.p.DefMember, name, strings.Join(m.p.names(), ", "))
	}
	if v.Type == "state-buffer" {
		return fmt.Errorf("%q is the state buffer; only device variables can be supplied", name)
	}
	if int64(len(data)) > v.Size {
		return fmt.Errorf("%q holds %d bytes; %d supplied", name, v.Size, len(data))
	}
	if _, done := m.bufs[name]; done {
		return fmt.Errorf("%q is already allocated", name)
	}
	m.inputs[name] = data
	return nil
}

func (p *Program) names() []string {
	out := make([]string, 0, len(p.Vars))
	for _, v := range p.Vars {
		out = append(out, v.Name)
	}
	return out
}

// Var implements dma.Memory.
func (m *Memory) Var(name string) ([]byte, error) {
	if b, ok := m.bufs[name]; ok {
		return b, nil
	}
	v, ok := m.p.Var(name)
	if !ok {
		return nil, fmt.Errorf("no variable %q in %s", name, m.p.DefMember)
	}
	if v.Size < 0 {
		return nil, fmt.Errorf("variable %q declares a negative size %d", name, v.Size)
	}
	if v.Size > m.budget-m.used {
		return nil, &BudgetError{Var: name, Size: v.Size, Budget: m.budget, Left: m.budget - m.used}
	}
	b := make([]byte, v.Size)
	m.used += v.Size
	if in, ok := m.inputs[name]; ok {
		copy(b, in)
	} else if v.Type == "file" && v.File != "" {
		data, err := m.p.constantData(v)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > v.Size {
			return nil, fmt.Errorf("constant %s holds %d bytes, more than variable %q's %d", v.File, len(data), name, v.Size)
		}
		copy(b, data)
	}
	m.bufs[name] = b
	return b, nil
}

// Bytes returns an allocated variable's memory (nil, false when no
// descriptor touched it).
func (m *Memory) Bytes(name string) ([]byte, bool) {
	b, ok := m.bufs[name]
	return b, ok
}

// Allocated lists the allocated variables, sorted.
func (m *Memory) Allocated() []string {
	out := make([]string, 0, len(m.bufs))
	for n := range m.bufs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// constantData returns a file variable's initial bytes: the data of a .npy
// constant, the member itself otherwise.
func (p *Program) constantData(v Var) ([]byte, error) {
	if p.file == nil {
		return nil, fmt.Errorf("constant %s: no container", v.File)
	}
	mem, ok := p.file.Member(v.File)
	if !ok {
		return nil, fmt.Errorf("constant %s of variable %q is not in the archive", v.File, v.Name)
	}
	if strings.HasSuffix(v.File, ".npy") {
		info, err := neff.NpyInfo(mem.Data)
		if err != nil {
			return nil, fmt.Errorf("constant %s: %w", v.File, err)
		}
		data := mem.Data[int64(len(mem.Data))-info.DataBytes:]
		if info.ArrayBytes >= 0 {
			data = data[:info.ArrayBytes] // bytes after the array are not loaded
		}
		return data, nil
	}
	return mem.Data, nil
}
