// Command harness runs every npukit reader and command on crafted and
// mutated inputs under a memory limit and a time limit, and fails when a
// run exits 3, is killed, hangs, dies of out-of-memory, or uses more
// memory than its reader's stated bound (README, "Hostile input"). The
// inputs are generated here (package hostile) or mutated from the
// examples and, when ../shared exists, from the shared corpus; nothing
// large is stored in the repository.
//
//	go run ./internal/hostile/harness [-scale small|full] [-v]
//
// scripts/hostile.sh runs it; .ci/run runs the small scale.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/npukit/npukit/internal/examples"
	"github.com/npukit/npukit/internal/hostile"
	"github.com/npukit/npukit/internal/hostile/craft"
)

// bound is a reader's stated peak memory: Mult x the effective input size
// plus Const bytes.
type bound struct {
	Mult  float64
	Const int64
}

// The stated bounds per reader (README "Hostile input" lists the same).
var bounds = map[string]bound{
	"neff":    {4, 160 << 20}, // effective size: file + decompressed members
	"edgetpu": {8, 96 << 20},
	"gemini":  {8, 96 << 20},
	"alloc":   {60, 128 << 20},
	"sbuf":    {40, 96 << 20},
	"zebu":    {40, 96 << 20},
	"ntff":    {16, 96 << 20},
	"other":   {40, 128 << 20},
	// an NKI kernel: parsing costs about 60 bytes per source byte; the
	// values a kernel builds are bounded by the step bound (a step per
	// list item or per 8 bytes of string built) and 64 MiB each
	// (the garbage collector lets the heap grow to twice what is live)
	"nki": {60, 768 << 20},
}

type input struct {
	name      string
	path      string
	reader    string // key of bounds
	effective int64  // bytes the bound multiplies (0: the file size)
}

type run struct {
	in      input
	args    []string // "{}" is replaced by the input path, "{out}" by a fresh output path
	timeout time.Duration
	// wantExit, when set, is the exit codes allowed (default: 0, 1, 2).
	wantExit []int
	// maxOut bounds stdout+stderr bytes (0: 64 KiB per input MiB + 1 MiB).
	maxOut int64
	// as, when set, is the address-space limit (prlimit --as) instead of
	// one derived from the bound: the readers must size their budgets by
	// it, not die of "out of memory".
	as int64
	// cgroup, when set, is a nested memory cgroup folder the run is put in.
	cgroup string
}

func main() {
	scale := flag.String("scale", "small", "small (CI, about a minute) or full (the issue's sizes)")
	verbose := flag.Bool("v", false, "print every run")
	shared := flag.String("shared", "../shared", "shared corpus folder (skipped when absent)")
	flag.Parse()
	full := *scale == "full"
	if *scale != "small" && !full {
		fmt.Fprintln(os.Stderr, "harness: -scale is small or full")
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "npukit-hostile-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "npukit")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/npukit").CombinedOutput(); err != nil {
		fatal(fmt.Errorf("building npukit: %v\n%s", err, out))
	}
	runs := plan(work, full, *shared)
	if full {
		// Gigabyte inputs on a shared machine: the time limits catch hangs,
		// not slowness.
		for i := range runs {
			if runs[i].timeout == 0 {
				runs[i].timeout = 60 * time.Second
			}
			runs[i].timeout *= 5
		}
	}
	failed := 0
	fmt.Printf("%-34s %-28s %10s %10s %10s %7s %4s\n", "INPUT", "COMMAND", "IN", "PEAK", "BOUND", "SECONDS", "EXIT")
	for _, r := range runs {
		res := execute(bin, work, r)
		b := bounds[r.in.reader]
		eff := r.in.effective
		if st, err := os.Stat(r.in.path); err == nil && st.Mode().IsRegular() {
			eff += st.Size()
		}
		limit := int64(b.Mult*float64(eff)) + b.Const
		var problems []string
		if res.err != nil {
			problems = append(problems, res.err.Error())
		}
		if res.peak > limit {
			problems = append(problems, fmt.Sprintf("peak %d bytes over the bound %d", res.peak, limit))
		}
		allowed := r.wantExit
		if allowed == nil {
			allowed = []int{0, 1, 2}
		}
		if !contains(allowed, res.code) {
			problems = append(problems, fmt.Sprintf("exit %d, want one of %v", res.code, allowed))
		}
		if bytes.Contains(res.stderr, []byte("fatal error")) || bytes.Contains(res.stderr, []byte("goroutine ")) || bytes.Contains(res.stderr, []byte("internal error")) {
			problems = append(problems, "crash: "+firstLine(res.stderr))
		}
		maxOut := r.maxOut
		if maxOut == 0 {
			maxOut = eff/16 + 1<<20
		}
		if res.outBytes > maxOut {
			problems = append(problems, fmt.Sprintf("printed %d bytes (bound %d)", res.outBytes, maxOut))
		}
		cmd := strings.Join(r.args, " ")
		if len(problems) > 0 || *verbose {
			fmt.Printf("%-34.34s %-28.28s %10s %10s %10s %7.2f %4d\n", r.in.name, cmd, mib(eff), mib(res.peak), mib(limit), res.seconds, res.code)
		}
		if len(problems) > 0 {
			failed++
			fmt.Printf("  FAIL: %s\n", strings.Join(problems, "; "))
		}
	}
	for _, d := range cgroupDirs {
		os.Remove(d)
	}
	// Signals during a --force directory replacement: the old or the new
	// directory is always there, and no temporary is left.
	trials := 40
	if full {
		trials = 300
	}
	if problems := signalTrials(bin, work, trials); len(problems) > 0 {
		failed++
		fmt.Printf("%-34s %d trials\n  FAIL: %s\n", "signals during unpack --force", trials, strings.Join(problems, "; "))
	} else if *verbose {
		fmt.Printf("%-34s %d trials, old or new directory always present\n", "signals during unpack --force", trials)
	}
	fmt.Printf("%d runs, %d failed\n", len(runs), failed)
	if failed > 0 {
		os.Exit(1)
	}
}

type result struct {
	code     int
	peak     int64 // bytes
	seconds  float64
	stderr   []byte
	outBytes int64
	err      error
}

// limitWriter counts everything and keeps the first bytes.
type limitWriter struct {
	buf bytes.Buffer
	n   int64
}

func (w *limitWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.buf.Len() < 4096 {
		w.buf.Write(p[:min(len(p), 4096)])
	}
	return len(p), nil
}

// execute runs one command under prlimit --as (address space) and a
// deadline, measuring the peak resident memory from the kernel's rusage.
func execute(bin, work string, r run) result {
	out := filepath.Join(work, fmt.Sprintf("out-%d", rand.Int63()))
	defer os.RemoveAll(out)
	args := make([]string, len(r.args))
	for i, a := range r.args {
		a = strings.ReplaceAll(a, "{}", r.in.path)
		args[i] = strings.ReplaceAll(a, "{out}", out)
	}
	b := bounds[r.in.reader]
	eff := r.in.effective
	if st, err := os.Stat(r.in.path); err == nil && st.Mode().IsRegular() {
		eff += st.Size()
	}
	// Address space: Go reserves more than it touches; the resident
	// bound is checked separately.
	as := max(4<<30, 3*(int64(b.Mult*float64(eff))+b.Const))
	if r.as > 0 {
		as = r.as
	}
	timeout := r.timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// /usr/bin/time forks the command from its own small process: the
	// rusage of a child forked from this (large) process would count this
	// process's resident pages as the child's peak.
	rss := out + ".rss"
	cmdArgs := append([]string{fmt.Sprintf("--as=%d", as), "--", "/usr/bin/time", "-f", "%M", "-o", rss, bin}, args...)
	cmd := exec.CommandContext(ctx, "prlimit", cmdArgs...)
	if r.cgroup != "" {
		// the shell moves itself into the group, then becomes the run
		sh := append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec prlimit "$@"`, r.cgroup}, cmdArgs...)
		cmd = exec.CommandContext(ctx, "sh", sh...)
	}
	// At the deadline the whole process group is killed: /usr/bin/time
	// forks npukit, and killing only the direct child left a blocked
	// npukit holding the output pipes, so Run waited for it forever (a
	// FIFO open hung a CI run so). WaitDelay bounds the wait for the pipes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var so, se limitWriter
	cmd.Stdout, cmd.Stderr = &so, &se
	if r.in.path == "-" || strings.HasSuffix(r.in.name, "(stdin)") {
		if f, err := os.Open(strings.TrimSuffix(r.in.path, ".stdin")); err == nil {
			defer f.Close()
			cmd.Stdin = f
		}
	}
	start := time.Now()
	err := cmd.Run()
	res := result{seconds: time.Since(start).Seconds(), stderr: se.buf.Bytes(), outBytes: so.n + se.n}
	if b, err := os.ReadFile(rss); err == nil {
		// The last line is the KB figure (a signal note may precede it).
		lines := strings.Fields(string(b))
		if len(lines) > 0 {
			fmt.Sscan(lines[len(lines)-1], &res.peak)
			res.peak *= 1024
		}
		os.Remove(rss)
	}
	if ps := cmd.ProcessState; ps != nil {
		res.code = ps.ExitCode()
		if bytes.Contains(se.buf.Bytes(), []byte("Command terminated by signal")) {
			res.err = fmt.Errorf("killed: %s", firstLine(se.buf.Bytes()))
		}
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.err = fmt.Errorf("killed by %v", ws.Signal())
		}
	}
	if ctx.Err() != nil {
		res.err = fmt.Errorf("still running after %v", timeout)
	} else if err != nil && !errors.As(err, new(*exec.ExitError)) {
		res.err = err
	}
	return res
}

// plan generates the inputs and lists the runs.
func plan(work string, full bool, shared string) []run {
	write := func(name string, b []byte) string {
		p := filepath.Join(work, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			fatal(err)
		}
		return p
	}
	must := func(b []byte, err error) []byte {
		if err != nil {
			fatal(err)
		}
		return b
	}
	scale := func(small, big int64) int64 {
		if full {
			return big
		}
		return small
	}
	var runs []run
	add := func(in input, timeout time.Duration, argsets ...[]string) {
		for _, a := range argsets {
			runs = append(runs, run{in: in, args: a, timeout: timeout})
		}
	}
	inspectCheck := [][]string{{"inspect", "{}"}, {"check", "{}"}}

	// Examples and their mutants: every reader, every command.
	ex := examples.FS()
	rng := rand.New(rand.NewSource(23))
	mutants := int(scale(6, 40))
	var bases []input
	for _, n := range examples.Names() {
		b, err := fs.ReadFile(ex, n)
		if err != nil {
			fatal(err)
		}
		bases = append(bases, input{name: n, path: write(n, b), reader: readerOf(n)})
	}
	if st, err := os.Stat(shared); err == nil && st.IsDir() {
		var corpus []string
		filepath.WalkDir(filepath.Join(shared, "corpus"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".md") {
				corpus = append(corpus, p)
			}
			return nil
		})
		sort.Strings(corpus)
		rng.Shuffle(len(corpus), func(i, j int) { corpus[i], corpus[j] = corpus[j], corpus[i] })
		for _, p := range corpus[:min(len(corpus), int(scale(6, 60)))] {
			bases = append(bases, input{name: "corpus:" + filepath.Base(p), path: p, reader: readerOf(p)})
		}
		// Neuron profile captures: the two smallest.
		caps, _ := filepath.Glob(filepath.Join(shared, "corpus3", "ntff", "*.ntff"))
		sort.Slice(caps, func(i, j int) bool { return fileSize(caps[i]) < fileSize(caps[j]) })
		for _, p := range caps[:min(len(caps), 2)] {
			bases = append(bases, input{name: "corpus:" + filepath.Base(p), path: p, reader: "ntff"})
		}
	}
	for _, in := range bases {
		add(in, 0, []string{"inspect", "{}"}, []string{"check", "{}"}, []string{"report", "{}", "-o", "{out}.html"})
		if in.reader == "neff" || in.reader == "gemini" || in.reader == "ntff" {
			add(in, 0, []string{"sim", "{}", "--trace", "{out}.json"})
		}
		orig, err := os.ReadFile(in.path)
		if err != nil {
			fatal(err)
		}
		for k := range mutants {
			m := mutate(rng, orig)
			name := fmt.Sprintf("%s~%d", strings.TrimPrefix(filepath.Base(in.name), "corpus:"), k)
			mi := input{name: name, path: write(name+filepath.Ext(in.path), m), reader: in.reader}
			add(mi, 0, inspectCheck...)
		}
	}

	// NEFF: a huge zero member, a huge JSON member, huge variables,
	// hostile names.
	zero := scale(64<<20, 1<<30)
	in := input{name: "neff: zero member", path: write("zero.neff", craft.NEFFBigMember(zero, craft.ZeroMember)), reader: "neff", effective: zero}
	add(in, 0, append(inspectCheck, []string{"neff", "unpack", "{}", "-o", "{out}"})...)
	js := scale(16<<20, 256<<20)
	// A JSON member of one-digit numbers costs up to 40 bytes per byte
	// (README): 10 x its size at the NEFF multiple of 4.
	in = input{name: "neff: JSON member", path: write("json.neff", craft.NEFFBigMember(js, craft.JSONMember)), reader: "neff", effective: 10 * js}
	add(in, 0, inspectCheck...)
	in = input{name: "neff: 2^62-byte variable", path: write("var.neff", must(craft.NEFFVarSize(1<<62))), reader: "neff"}
	add(in, 0, []string{"check", "{}"}, []string{"neff", "dma", "{}", "--execute", "-o", "{out}"})
	in = input{name: "neff: 1 GiB variable, 256M budget", path: write("var1g.neff", must(craft.NEFFVarSize(1<<30))), reader: "neff"}
	add(in, 0, []string{"neff", "dma", "{}", "--execute", "--max-memory", "256M", "-o", "{out}"})
	names := int(scale(1<<20, 50<<20))
	in = input{name: "neff: escapes + long names", path: write("names.neff", must(craft.NEFFNames(names))), reader: "neff", effective: 4 * int64(names)}
	add(in, 0, append(inspectCheck, []string{"neff", "dma", "{}"}, []string{"sim", "{}"})...)

	// Edge TPU: custom options whose entries share one long key.
	n, key := 4000, int(scale(32<<10, 200<<10))
	in = input{name: "edgetpu: shared flex keys", path: write("keys_edgetpu.tflite", must(craft.EdgeTPUCustomOptions(hostile.FlexSharedKeys(n, key)))), reader: "edgetpu"}
	add(in, 0, inspectCheck...)
	// Edge TPU: instruction chunks that all reference one stored bitstream;
	// extract and link must not copy or write it once per reference.
	refs := int(scale(200, 2000))
	in = input{name: "edgetpu: shared bitstreams", path: write("shared_edgetpu.tflite", must(craft.EdgeTPUSharedBitstreams(refs, 1<<20))), reader: "edgetpu"}
	add(in, 0, inspectCheck...)
	// These must succeed (a refusal would hide a per-reference copy).
	runs = append(runs, run{in: in, args: []string{"edgetpu", "extract", "{}", "-o", "{out}"}, wantExit: []int{0}},
		run{in: in, args: []string{"edgetpu", "link", "{}", "--parameters", "0x1000", "--scratch", "0x2000", "--layer", "input=0x3000", "--layer", "features=0x4000", "--layer", "logits=0x5000", "-o", "{out}"}, wantExit: []int{0}})

	// Gemini: names with escapes and megabytes.
	if b, err := fs.ReadFile(ex, "demo_gemini_schedule.json"); err == nil {
		long := must(hostile.JSONLongNames(b, int(scale(1<<20, 5<<20))))
		in = input{name: "gemini: long names", path: write("names_gemini.json", long), reader: "gemini"}
		add(in, 0, append(inspectCheck, []string{"sim", "{}"})...)
	}

	// ZeBu: cycles near the int64 limit.
	var zb strings.Builder
	for i := range 64 {
		fmt.Fprintf(&zb, "[pe_conv, {'slyr': 0, 'wkl': %d, 'tile': 0}, {'inst_idx': %d, 'time': [0, 4611686018427387904]}, {}]\n", i, i)
	}
	in = input{name: "zebu: 2^62-cycle instructions", path: write("cycles.zebu", []byte(zb.String())), reader: "zebu"}
	add(in, 0, inspectCheck...)

	// alloc: many buffers under --timeout, which bounds the whole command
	// (reading included); the margin allows for a loaded machine.
	var ab strings.Builder
	ab.WriteString("id,lower,upper,size\n")
	nb := int(scale(100_000, 1_000_000))
	for i := range nb {
		lo := rng.Intn(nb)
		fmt.Fprintf(&ab, "b%d,%d,%d,%d\n", i, lo, lo+1+rng.Intn(64), 1+rng.Intn(4096))
	}
	in = input{name: fmt.Sprintf("alloc: %d buffers", nb), path: write("many.csv", []byte(ab.String())), reader: "alloc"}
	runs = append(runs, run{in: in, args: []string{"alloc", "{}", "--capacity", "1000000000", "--timeout", "2s"}, timeout: 2*time.Second*5/4 + 3*time.Second + time.Duration(nb/100_000)*time.Second})

	// SBUF plan: steps past the limit, near the 16 MiB plan cap.
	var pb strings.Builder
	pb.WriteString("name: big\narch: v2\nhbm:\n  - {name: out, kind: shared_hbm, output: true}\ntensors:\n  - {name: x, block: [1], partitions: 128, free: [64], dtype: bfloat16, buffer: sbuf}\nbody:\n")
	for pb.Len() < int(scale(4<<20, 16<<20)-(64<<10)) {
		pb.WriteString("  - {op: activation, func: exp, read: x, write: x}\n")
	}
	in = input{name: "sbuf: plan of 10^5 steps", path: write("steps.yaml", []byte(pb.String())), reader: "sbuf"}
	add(in, 0, []string{"sbuf", "check", "{}"}, []string{"inspect", "{}"})

	// Non-regular inputs must not hang: a FIFO without a writer, /dev/zero.
	fifo := filepath.Join(work, "fifo.neff")
	if syscall.Mkfifo(fifo, 0o600) == nil {
		in = input{name: "FIFO without a writer", path: fifo, reader: "other"}
		runs = append(runs, run{in: in, args: []string{"inspect", "{}"}, timeout: 10 * time.Second, wantExit: []int{2}},
			run{in: in, args: []string{"check", "{}"}, timeout: 10 * time.Second, wantExit: []int{2}})
	}
	in = input{name: "/dev/zero", path: "/dev/zero", reader: "other"}
	runs = append(runs, run{in: in, args: []string{"inspect", "{}"}, timeout: 10 * time.Second, wantExit: []int{2}})

	// Limits from the environment: under a 2 GiB address space a NEFF
	// declaring a 486 MB member, or 2 GiB variables, is refused or read
	// within the budget the limit leaves, never "fatal error: out of
	// memory" (the budgets came from the machine's memory).
	in = input{name: "neff: 486 MB member, 2 GiB AS", path: write("member486.neff", craft.NEFFBigMember(486<<20, craft.ZeroMember)), reader: "neff", effective: 486 << 20}
	runs = append(runs, run{in: in, args: []string{"inspect", "{}"}, as: 2 << 30}, run{in: in, args: []string{"check", "{}"}, as: 2 << 30})
	in = input{name: "neff: 2 GiB variable, 2 GiB AS", path: write("var2g.neff", must(craft.NEFFVarSize(2<<30))), reader: "neff"}
	runs = append(runs, run{in: in, args: []string{"neff", "dma", "{}", "--execute", "-o", "{out}"}, as: 2 << 30})
	// ... and in a nested memory cgroup of 1 GiB, where the machine lets
	// this process make one: a 1 MB NEFF holding a 1 GiB member is
	// refused, not killed by the group's limit.
	if cg, err := nestedMemoryCgroup(1 << 30); err != nil {
		fmt.Printf("nested memory cgroup: skipped (%v)\n", err)
	} else {
		in = input{name: "neff: 1 GiB member, 1 GiB cgroup", path: write("member1g.neff", craft.NEFFBigMember(1<<30, craft.ZeroMember)), reader: "neff"}
		runs = append(runs, run{in: in, args: []string{"inspect", "{}"}, cgroup: cg}, run{in: in, args: []string{"check", "{}"}, cgroup: cg})
	}

	// NKI kernels: the Python interpreter is a sandbox, bounded in time
	// and memory (issue 39's classes 1-6).
	for _, k := range craft.NKIKernels(full) {
		in = input{name: "nki: " + k.Name, path: write("nki_"+strings.ReplaceAll(k.Name, " ", "_")+".py", []byte(k.Source)), reader: "nki"}
		runs = append(runs, run{in: in, args: []string{"nki", "check", "{}", "--kernel", "kernel"}, wantExit: k.Exits, timeout: 60 * time.Second})
	}
	return runs
}

// signalTrials replaces a directory with neff unpack --force and
// interrupts it (SIGINT, SIGTERM, SIGHUP) at random moments; after each,
// the target must hold the old directory or the complete new one, and no
// hidden temporary may remain beside it.
func signalTrials(bin, work string, n int) []string {
	dir := filepath.Join(work, "signals")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return []string{err.Error()}
	}
	in := filepath.Join(dir, "in.neff")
	if err := os.WriteFile(in, craft.NEFFBigMember(1<<20, craft.ZeroMember), 0o644); err != nil {
		return []string{err.Error()}
	}
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "old"), []byte("x"), 0o644)
	rng := rand.New(rand.NewSource(39))
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	var problems []string
	for i := range n {
		cmd := exec.Command(bin, "neff", "unpack", in, "-o", out, "--force")
		if err := cmd.Start(); err != nil {
			return append(problems, err.Error())
		}
		// the whole run takes some 10 ms: signals land in every phase
		time.Sleep(time.Duration(rng.Intn(20_000)) * time.Microsecond)
		cmd.Process.Signal(sigs[i%len(sigs)])
		cmd.Wait()
		_, errOld := os.Stat(filepath.Join(out, "old"))
		_, errNew := os.Stat(filepath.Join(out, "header.json"))
		if errOld != nil && errNew != nil {
			problems = append(problems, fmt.Sprintf("trial %d (%v): neither the old nor the new directory is at the target", i, sigs[i%len(sigs)]))
			os.MkdirAll(out, 0o755)
			os.WriteFile(filepath.Join(out, "old"), []byte("x"), 0o644)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				problems = append(problems, fmt.Sprintf("trial %d (%v): temporary %s left", i, sigs[i%len(sigs)], e.Name()))
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	return problems
}

// nestedMemoryCgroup makes a memory cgroup of limit bytes under this
// process's own group (cgroup v2) or memory group (v1), and returns its
// folder; an error where the machine does not let this process make one.
func nestedMemoryCgroup(limit int64) (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var base, file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			base, file = "/sys/fs/cgroup", "memory.max"
			if _, err := os.Stat(filepath.Join(base, "cgroup.controllers")); err != nil {
				continue // not a v2 hierarchy mounted there
			}
		case strings.Contains(","+parts[1]+",", ",memory,"):
			base, file = "/sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		dir := filepath.Join(base, parts[2], fmt.Sprintf("npukit-hostile-%d", os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(fmt.Sprint(limit)), 0o644); err != nil {
			os.Remove(dir)
			return "", err
		}
		cgroupDirs = append(cgroupDirs, dir)
		return dir, nil
	}
	return "", errors.New("no memory cgroup in /proc/self/cgroup")
}

// cgroupDirs are the groups made by nestedMemoryCgroup, removed at the end.
var cgroupDirs []string

// mutate returns a copy of b with one of: bytes flipped, a cut, a
// repeated slice, a run of 0xff inserted.
func mutate(rng *rand.Rand, b []byte) []byte {
	m := append([]byte(nil), b...)
	if len(m) == 0 {
		return m
	}
	switch rng.Intn(4) {
	case 0:
		for range 1 + rng.Intn(16) {
			m[rng.Intn(len(m))] ^= byte(1 << rng.Intn(8))
		}
	case 1:
		m = m[:rng.Intn(len(m))]
	case 2:
		i := rng.Intn(len(m))
		j := i + rng.Intn(min(len(m)-i, 4096)+1)
		rep := bytes.Repeat(m[i:j], 1+rng.Intn(8))
		m = append(m[:j:j], append(rep, b[j:]...)...)
	case 3:
		i := rng.Intn(len(m))
		m = append(m[:i:i], append(bytes.Repeat([]byte{0xff}, 1+rng.Intn(64)), b[i:]...)...)
	}
	return m
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func readerOf(name string) string {
	switch {
	case strings.HasSuffix(name, ".ntff"):
		return "ntff"
	case strings.HasSuffix(name, ".neff"):
		return "neff"
	case strings.HasSuffix(name, ".tflite") || strings.Contains(name, "edgetpu"):
		return "edgetpu"
	case strings.HasSuffix(name, ".csv"):
		return "alloc"
	case strings.HasSuffix(name, ".yaml"):
		return "sbuf"
	case strings.Contains(name, "gemini") || strings.HasSuffix(name, ".json"):
		return "gemini"
	}
	return "other"
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

func mib(n int64) string { return fmt.Sprintf("%.1fM", float64(n)/(1<<20)) }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "harness:", err)
	os.Exit(3)
}
