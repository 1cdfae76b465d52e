package nki

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki/python"
)

// Placed is an automatically allocated kernel rewritten with direct
// allocations in its own API: mod_alloc / alloc(func) buffers for Beta 1,
// address=(partition, byte) for the current API.
type Placed struct {
	Placement *neuroncore.Placement
	// Source is the rewritten kernel file.
	Source []byte
	// Sites is, per rewritten declaration, "file:line:col: what was
	// written" (with "(result of OP)" when the tensor is an expression's
	// result: several may start at one column).
	Sites []string
	// Rewrites is the same, one entry per rewritten declaration.
	Rewrites []Rewrite
}

// Rewrite is one declaration place rewrote.
type Rewrite struct {
	Site Site `json:"site"`
	// Tensor is the name the declaration assigns to; What, for a tensor
	// that is an expression's result, says which ("result of nl.mean").
	Tensor string `json:"tensor,omitempty"`
	What   string `json:"what,omitempty"`
	Code   string `json:"code"`
}

// WriteRewrites prints the rewrites as comment lines (prefix "# "): the
// file named once, then one line per declaration, line:column first
// (audit item 27: every line repeated an 80-character file name, and two
// results starting at one column printed identical lines).
func (p *Placed) WriteRewrites(w io.Writer, prefix string) error {
	file := ""
	for _, r := range p.Rewrites {
		if f := filepath.Base(r.Site.File); f != file {
			file = f
			fmt.Fprintf(w, "%srewritten in %s:\n", prefix, file)
		}
		what := ""
		switch {
		case r.What != "" && r.Tensor != "":
			what = " " + r.Tensor + ", " + r.What
		case r.What != "":
			what = " " + r.What
		case r.Tensor != "":
			what = " " + r.Tensor
		}
		if _, err := fmt.Fprintf(w, "%s  %d:%d%s: %s\n", prefix, r.Site.Line, r.Site.Col+1, what, r.Code); err != nil {
			return err
		}
	}
	return nil
}

// PlaceError is a kernel place cannot write back honestly (a tensor
// declared in a helper module, a declaration site whose executions need
// different allocations, a statement form it does not rewrite).
type PlaceError struct {
	Site Site
	Msg  string
	// conflict: executions of one declaration line were placed apart
	conflict bool
}

func (e *PlaceError) Error() string { return fmt.Sprintf("%s: %s", e.Site, e.Msg) }

var (
	langAlias = regexp.MustCompile(`(?m)^\s*(?:import\s+(?:neuronxcc\.)?nki\.language\s+as\s+(\w+)|from\s+(?:neuronxcc\.)?nki\s+import\s+language\s+as\s+(\w+))`)
	nccAlias  = regexp.MustCompile(`(?m)^\s*(?:import\s+neuronxcc\.nki\.compiler\s+as\s+(\w+)|from\s+neuronxcc\.nki\s+import\s+compiler\s+as\s+(\w+))`)
	assignRe  = regexp.MustCompile(`^([ \t]*)([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:\\\n[ \t]*)?`)
)

// UnallocatableError is a kernel that no placement can turn into a directly
// allocated one (a finding about the kernel, as neuroncore.ErrUnplaceable).
type UnallocatableError struct{ Msg string }

func (e *UnallocatableError) Error() string { return e.Msg }

// Is makes an UnallocatableError match neuroncore.ErrUnplaceable.
func (e *UnallocatableError) Is(target error) bool { return target == neuroncore.ErrUnplaceable }

// nonIOHBM lists, as "name (file:line)", the HBM tensors a Beta-1 kernel
// declares that are not returned (shared_hbm not returned, hbm,
// private_hbm). The current API gives HBM tensors an address too, so it
// has no such list.
func nonIOHBM(res *Result) []string {
	if res.API != "beta1" {
		return nil
	}
	var out []string
	for _, r := range declaredHBM(res) {
		// as the check rule sbuf/non-io-hbm: a returned tensor is IO only
		// in shared_hbm (nl.hbm is private_hbm, "only visible to each
		// individual kernel instance", NKI API docs)
		if r.Returned && r.Buffer == "shared_hbm" {
			continue
		}
		name := recName(r)
		if r.Returned {
			name += " (returned, but declared in " + r.Buffer + ")"
		}
		if r.Site != nil && r.Site.File == res.File {
			name += fmt.Sprintf(" at line %d", r.Site.Line)
		} else if r.Site != nil {
			name += " at " + r.Site.String()
		}
		out = append(out, name)
	}
	return out
}

func alias(re *regexp.Regexp, src string) (string, int) {
	m := re.FindStringSubmatchIndex(src)
	if m == nil {
		return "", -1
	}
	for g := 1; g*2 < len(m); g++ {
		if m[2*g] >= 0 {
			return src[m[2*g]:m[2*g+1]], m[1]
		}
	}
	return "", -1
}

// PlaceKernel places the automatic tensors of a checked kernel (package
// neuroncore's placement over the lowered plan) and writes the kernel file
// back with them allocated. src is the kernel file's source (res.File).
func PlaceKernel(res *Result, ck *Checked, src []byte, opt neuroncore.PlaceOptions) (*Placed, error) {
	p, err := placeKernel(res, ck, src, opt, false)
	var pe *PlaceError
	if errors.As(err, &pe) && pe.conflict {
		// a line that executed as several tensors placed apart: place
		// them as one tensor (siteMerge), which holds when their
		// executions fit one allocation expression
		p2, err2 := placeKernel(res, ck, src, opt, true)
		if err2 == nil {
			return p2, nil
		}
		pe.Msg += fmt.Sprintf("; placed as one tensor they do not fit one expression either (%v)", err2)
	}
	return p, err
}

func placeKernel(res *Result, ck *Checked, src []byte, opt neuroncore.PlaceOptions, merge bool) (*Placed, error) {
	lw, x := ck.Lowered, ck.Exec
	blocks := loopBlocks(res)
	// the kernel file's statements, parsed once for the loop blocks and
	// the editor (nil when the file does not parse)
	var ix *stmtIndex
	mod, parseErr := python.Parse(res.File, string(src))
	if parseErr == nil {
		ix = newStmtIndex(string(src), mod)
		dropReassigned(blocks, mod)
		blocks = compBlocks(res, ix, blocks)
	} else {
		blocks = nil
	}
	var canon map[*TensorRec]*TensorRec
	if merge {
		canon = siteMerge(res, blocks)
	}
	if len(blocks) > 0 || len(canon) > 0 {
		// current-API declarations in loops get a block dimension per
		// loop, so that the tensors a list keeps alive get locations of
		// their own (loopblock.go)
		lw2, err := lower(res, ck.Plan.Arch, blocks, canon)
		if err != nil {
			return nil, err
		}
		if res.hasDecorator("force_auto_alloc") {
			for _, t := range lw2.Plan.Tensors {
				t.Kind, t.Mod, t.Table = neuroncore.Auto, nil, nil
			}
		}
		if x, err = lw2.Plan.Execute(); err != nil {
			return nil, err
		}
		lw = lw2
	}
	pl, err := neuroncore.PlaceExecution(x, opt)
	if hbm := nonIOHBM(res); len(hbm) > 0 {
		// the Beta-1 compiler rejects an allocated kernel that declares
		// HBM tensors other than its outputs (direct allocation guide,
		// spec 002, "Known Limitations" 1), so no placement can make this
		// kernel one; say so before (and beside) any on-chip shortfall
		msg := fmt.Sprintf("the kernel cannot be allocated directly in the Beta-1 API: it declares HBM tensors that are not kernel outputs (%s), and the compiler rejects them in an allocated kernel (\"Non IO HBM tensor is not supported in allocated NKI kernel\"); keep the kernel automatic, or return those tensors or keep their data on chip", strings.Join(hbm, ", "))
		if err != nil {
			msg += "; besides, " + err.Error()
		}
		return nil, &UnallocatableError{Msg: msg}
	}
	for i, t := range lw.Plan.Tensors {
		// before a placement failure: tensors of helper modules are not
		// lowered per loop iteration (loopBlocks), so a list of them
		// alive at once looks unplaceable when it is not (nki-library's
		// output_projection_cte loads its weights into such a list)
		if rec := lw.Recs[i]; !t.Direct() && (rec.Site == nil || rec.Site.File != res.File) {
			return nil, helperTensorError(rec, res, t.Name)
		}
	}
	var alive *neuroncore.InstancesAliveError
	if errors.As(err, &alive) && alive.Tensor < len(lw.Recs) {
		// each execution of a kernel's declaration is a tensor of its
		// own, so this is place's limit, not the kernel's: the one
		// location a line gets cannot hold executions alive together
		// unless the line is in range loops whose variables name the
		// execution (loopblock.go)
		rec := lw.Recs[alive.Tensor]
		return nil, &PlaceError{Site: siteOr(rec.Site, res.File), Msg: fmt.Sprintf("tensor %s: executions of this declaration are alive at the same time (kept in a list?), and place writes one location per execution only for declarations in range loops of their own function whose loop variables name the execution (not in comprehensions over _ or in helpers called per element); allocate them directly", lw.Plan.Tensors[alive.Tensor].Name)}
	}
	if errors.Is(err, neuroncore.ErrUnplaceable) {
		// the kernel is fine as it is: the compiler may spill or
		// serialise automatic tensors, which addresses cannot express
		return nil, &UnallocatableError{Msg: err.Error() + "; automatically allocated, the compiler may spill or serialise these tensors, which a direct allocation cannot express: keep the kernel automatic, or shorten the lifetimes that overlap"}
	}
	if err != nil {
		return nil, err
	}
	text := string(src)
	ed := &editor{src: text, file: res.File, ix: ix, parseErr: parseErr}
	lang, _ := alias(langAlias, text)
	if lang == "" {
		return nil, &PlaceError{Site: Site{File: res.File, Line: 1}, Msg: "the kernel does not import the NKI language module under an alias (import ...nki.language as nl)"}
	}
	ncc := ""
	if res.API == "beta1" {
		var end int
		if ncc, end = alias(nccAlias, text); ncc == "" {
			_, end = alias(langAlias, text)
			ncc = "ncc"
			if regexp.MustCompile(`\bncc\b`).MatchString(text) {
				ncc = "npukit_ncc"
			}
			ed.insert(end, "\nimport neuronxcc.nki.compiler as "+ncc)
		}
	}
	// one allocation per declaration site
	type siteAlloc struct {
		rec  *TensorRec
		code string
		fn   string
		lb   *loopBlock
	}
	bySite := map[string]*siteAlloc{}
	var order []string
	placed := map[string]neuroncore.PlacedTensor{}
	for _, p := range pl.Tensors {
		placed[p.Tensor] = p
	}
	for i, t := range lw.Plan.Tensors {
		if t.Direct() {
			continue
		}
		rec := lw.Recs[i]
		pt := pl.Plan.Tensors[i]
		if rec.Site == nil || rec.Site.File != res.File {
			return nil, helperTensorError(rec, res, t.Name)
		}
		var code, fn string
		lb := blocks[rec]
		if res.API == "beta1" && lb != nil {
			if code, err = lb.modAlloc(ncc, pt, placed[t.Name]); err != nil {
				return nil, &PlaceError{Site: *rec.Site, Msg: fmt.Sprintf("tensor %s: %v", t.Name, err)}
			}
		} else if res.API == "beta1" {
			p := placed[t.Name]
			code = strings.Replace(p.Code, "ncc.", ncc+".", 1)
			fn = p.Func
		} else if lb != nil {
			if code, err = lb.address(pt, placed[t.Name], pl.Plan.Arch.PSUMBankBytes()); err != nil {
				return nil, &PlaceError{Site: *rec.Site, Msg: fmt.Sprintf("tensor %s: %v", t.Name, err)}
			}
		} else {
			loc, ok := pt.Location(0)
			if !ok || pt.Tiles() != 1 {
				return nil, &PlaceError{Site: *rec.Site, Msg: fmt.Sprintf("tensor %s: the current API's address= holds one location", t.Name)}
			}
			off := loc.Offset(pl.Plan.Arch.PSUMBankBytes())
			code = fmt.Sprintf("address=(%d, %d)", loc.Partition, off)
		}
		key := rec.Site.String()
		if strings.HasPrefix(rec.API, "result of ") {
			// results of nested expressions may start at one column
			key += " " + rec.API
		}
		if sa, ok := bySite[key]; ok {
			if sa.code != code {
				return nil, &PlaceError{Site: *rec.Site, conflict: true, Msg: fmt.Sprintf("the declaration executes as tensors placed differently (%s and %s); one source line holds one allocation", sa.code, code)}
			}
			continue
		}
		bySite[key] = &siteAlloc{rec: rec, code: code, fn: fn, lb: lb}
		order = append(order, key)
	}
	var funcs []string
	out := &Placed{Placement: pl}
	for _, key := range order {
		sa := bySite[key]
		var err error
		if strings.HasPrefix(sa.rec.API, "result of ") {
			err = ed.implicit(res, sa.rec, sa.code)
		} else {
			err = ed.rewriteDecl(res.API, lang, sa.rec, sa.code)
		}
		if err == nil && sa.lb != nil {
			err = ed.renameTargets(sa.lb)
		}
		if err != nil {
			return nil, err
		}
		if sa.fn != "" {
			funcs = append(funcs, sa.fn)
		}
		rw := Rewrite{Site: *sa.rec.Site, Tensor: sa.rec.Name, Code: sa.code}
		site := sa.rec.Site.String()
		if strings.HasPrefix(sa.rec.API, "result of ") {
			rw.What = sa.rec.API
			site += " (" + sa.rec.API + ")"
		}
		out.Rewrites = append(out.Rewrites, rw)
		out.Sites = append(out.Sites, fmt.Sprintf("%s: %s", site, sa.code))
	}
	if err := ed.flushStatements(res.API, lang); err != nil {
		return nil, err
	}
	if len(funcs) > 0 {
		// allocation functions go before the kernel's top-level definition
		at := topLevelDefStart(text, res.Function)
		ed.insert(at, strings.Join(funcs, "\n")+"\n\n")
	}
	out.Source = []byte(ed.apply())
	return out, nil
}

// helperTensorError refuses an automatic tensor declared in a module the
// kernel imports: addresses written there would apply to every kernel
// that shares the helper.
func helperTensorError(rec *TensorRec, res *Result, name string) error {
	return &PlaceError{Site: siteOr(rec.Site, res.File), Msg: fmt.Sprintf("tensor %s is declared in a helper module, which other kernels share, and place writes addresses into the kernel file only; allocate it where the helper declares it (or through the helper's own direct-allocation mode, if it has one), or keep the kernel automatic", name)}
}

func siteOr(s *Site, file string) Site {
	if s != nil {
		return *s
	}
	return Site{File: file, Line: 1}
}

// topLevelDefStart is the offset of the line starting the kernel's
// top-level def (or its first decorator); 0 when not found.
func topLevelDefStart(src, fn string) int {
	lines := strings.SplitAfter(src, "\n")
	off := 0
	start := -1
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "@"):
			if start < 0 {
				start = off
			}
		case strings.HasPrefix(l, "def "+fn+"("):
			if start < 0 {
				start = off
			}
			return start
		case strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#"):
			start = -1
		}
		off += len(l)
	}
	return 0
}

type edit struct {
	at, del int
	text    string
}

type editor struct {
	src   string
	file  string
	edits []edit
	n     int // hoisted temporaries
	// comprehension targets renamed (place_comp.go), by offset
	renamed map[int]bool
	// compiler-allocated tiles written as declared tensors (place_stmt.go)
	ix       *stmtIndex
	parseErr error // why ix is nil
	stmts    map[python.Stmt]*stmtRewrite
}

func (e *editor) insert(at int, text string) { e.edits = append(e.edits, edit{at, 0, text}) }

func (e *editor) apply() string {
	// from the end; at one offset a replacement before an insertion, so
	// that the insertion lands in front of the replaced text
	sort.SliceStable(e.edits, func(i, j int) bool {
		if e.edits[i].at != e.edits[j].at {
			return e.edits[i].at > e.edits[j].at
		}
		return e.edits[i].del > e.edits[j].del
	})
	s := e.src
	for _, ed := range e.edits {
		s = s[:ed.at] + ed.text + s[ed.at+ed.del:]
	}
	return s
}

// offset converts a site (1-based line, 0-based column) to a byte offset.
func (e *editor) offset(line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(e.src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off + col
}

// scan walks Python source from off, skipping strings and comments, and
// returns the offset of the first byte at bracket depth 0 for which stop
// is true (the depth counts brackets opened after off).
func scan(src string, off int, stop func(c byte, depth int) bool) int {
	depth := 0
	for i := off; i < len(src); i++ {
		c := src[i]
		switch c {
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
			continue
		case '\'', '"':
			q := string(c)
			if strings.HasPrefix(src[i:], q+q+q) {
				q = q + q + q
			}
			j := i + len(q)
			for j < len(src) && !strings.HasPrefix(src[j:], q) {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j + len(q) - 1
			continue
		case '\\':
			i++ // a line continuation or an escaped byte
			continue
		}
		if depth == 0 && stop(c, depth) {
			return i
		}
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return i
			}
		}
	}
	return len(src)
}

// rewriteDecl writes the allocation into one declaration site.
func (e *editor) rewriteDecl(api, lang string, rec *TensorRec, code string) error {
	s := *rec.Site
	at := e.offset(s.Line, s.Col)
	if at < 0 || at >= len(e.src) {
		return &PlaceError{Site: s, Msg: "declaration site outside the file"}
	}
	open := strings.IndexByte(e.src[at:], '(')
	if open < 0 {
		return &PlaceError{Site: s, Msg: "no call at the declaration site"}
	}
	open += at
	end := scan(e.src, open+1, func(c byte, _ int) bool { return c == ')' })
	// the arguments at depth 1, split at top-level commas
	argStart := open + 1
	var args [][2]int
	for argStart < end {
		j := scan(e.src, argStart, func(c byte, _ int) bool { return c == ',' || c == ')' })
		if j > end {
			j = end
		}
		args = append(args, [2]int{argStart, j})
		argStart = j + 1
	}
	kw := regexp.MustCompile(`^\s*buffer\s*=\s*`)
	for _, a := range args {
		text := e.src[a[0]:a[1]]
		m := kw.FindStringIndex(text)
		if m == nil {
			continue
		}
		v0 := a[0] + m[1]
		v1 := a[1]
		for v1 > v0 && strings.ContainsRune(" \t\n", rune(e.src[v1-1])) {
			v1--
		}
		if api == "beta1" {
			e.edits = append(e.edits, edit{v0, v1 - v0, code})
		} else {
			e.insert(v1, ", "+code)
		}
		return nil
	}
	if len(args) > 2 && api == "beta1" && !strings.Contains(e.src[args[2][0]:args[2][1]], "=") {
		return &PlaceError{Site: s, Msg: "the buffer is passed by position; place rewrites buffer= keywords"}
	}
	// no buffer argument: SBUF by default
	last := end
	for last > open+1 && strings.ContainsRune(" \t\n,", rune(e.src[last-1])) {
		last--
	}
	if api == "beta1" {
		e.insert(last, ", buffer="+code)
	} else {
		e.insert(last, ", buffer="+lang+".sbuf, "+code)
	}
	return nil
}

// CheckPlaced traces the rewritten kernel in place of the original (its
// helper modules beside it) and checks it: what place promises is a
// kernel that reads back with every tensor allocated and no error.
func CheckPlaced(o Options, p *Placed, arch *neuroncore.Arch) (*Checked, error) {
	o.Overlay = map[string][]byte{o.File: p.Source}
	res, err := Trace(o)
	if err != nil {
		return nil, fmt.Errorf("the placed kernel does not trace: %w", err)
	}
	return CheckKernel(res, arch)
}
