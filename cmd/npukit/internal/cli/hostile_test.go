package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/npukit/npukit/neff"
)

// runInput runs the command with stdin and a deadline: a hostile input
// must not hang it.
func runInput(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v: hangs", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{so.String(), se.String(), code}
}

// A FIFO without a writer hung inspect and check; /dev/zero exhausted
// memory. Both are refused with exit 2 and a message naming the kind.
func TestNonRegularInputsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.neff")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		for _, c := range []string{"inspect", "check"} {
			r := runInput(t, nil, c, p)
			if r.code != 2 || !strings.Contains(r.stderr, "not a regular file") {
				t.Errorf("%s %s: %s", c, p, r)
			}
		}
	}
	for _, args := range [][]string{{"neff", "unpack", "/dev/zero", "-o", filepath.Join(dir, "u")}, {"neff", "dma", fifo}} {
		if r := runInput(t, nil, args...); r.code != 2 {
			t.Errorf("%v: %s", args, r)
		}
	}
}

// "-" reads standard input (a pipe through /dev/stdin read as empty).
func TestDashReadsStdin(t *testing.T) {
	dir := t.TempDir()
	f := writeDMANeff(t, dir)
	raw, _ := os.ReadFile(f)
	want := runInput(t, nil, "inspect", "--json", f)
	got := runInput(t, raw, "inspect", "--json", "-")
	if got.code != 0 || want.code != 0 {
		t.Fatalf("inspect -: %s", got)
	}
	if strings.ReplaceAll(got.stdout, `"-"`, `"`+f+`"`) != want.stdout {
		t.Errorf("inspect - differs from inspect FILE:\n%s\n%s", got.stdout, want.stdout)
	}
	if r := runInput(t, raw, "check", "-"); r.code != 0 {
		t.Errorf("check -: %s", r)
	}
	if r := runInput(t, raw, "neff", "dma", "-"); r.code != 0 {
		t.Errorf("neff dma -: %s", r)
	}
}

// header.json of an unpacked NEFF was read through a symbolic link
// (other members that are links were refused).
func TestUnpackedHeaderSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	f := writeDMANeff(t, dir)
	u := filepath.Join(dir, "u")
	if r := run(t, "", "neff", "unpack", f, "-o", u); r.code != 0 {
		t.Fatal(r)
	}
	hj := filepath.Join(u, "header.json")
	outside := filepath.Join(dir, "outside.json")
	b, _ := os.ReadFile(hj)
	os.WriteFile(outside, b, 0o644)
	os.Remove(hj)
	os.Symlink(outside, hj)
	for _, args := range [][]string{{"neff", "pack", u, "-o", filepath.Join(dir, "p.neff")}, {"inspect", u}} {
		if r := runInput(t, nil, args...); r.code != 2 || !strings.Contains(r.stderr, "header.json") {
			t.Errorf("%v: %s", args, r)
		}
	}
	os.Remove(hj)
	os.Symlink("/dev/zero", hj)
	if r := runInput(t, nil, "inspect", u); r.code != 2 {
		t.Errorf("header.json -> /dev/zero: %s", r)
	}
}

// Names from inputs reached the terminal raw (escape sequences, newlines)
// and a long name padded every table row. Text output now escapes control
// characters and cuts long lines; --json keeps the name exact.
func TestHostileNamesInTextOutput(t *testing.T) {
	dir := t.TempDir()
	evil := "evil\x1b[2J\x1b]0;owned\x07" + strings.Repeat("v", 1<<20)
	b := neff.NewBuilder("names.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar(evil, "input", 16)
	sg.AddVar("y", "output", 16)
	sg.AddQueue("q\x1b[31m", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("q\x1b[31m", "load", neff.Copy(evil, 0, []int64{16}, []int64{1}, "y", 0, []int64{16}, []int64{1}))
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "names.neff")
	os.WriteFile(f, raw, 0o644)
	for _, args := range [][]string{{"inspect", f}, {"check", f}, {"neff", "dma", f}, {"sim", f}} {
		r := runInput(t, nil, args...)
		if r.code == 3 {
			t.Errorf("%v: %s", args, r)
		}
		for _, out := range []string{r.stdout, r.stderr} {
			if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
				t.Errorf("%v: raw escape in output", args)
			}
			for _, line := range strings.Split(out, "\n") {
				if len(line) > termsafe.MaxLine+64 {
					t.Errorf("%v: line of %d bytes", args, len(line))
					break
				}
			}
		}
	}
	r := runInput(t, nil, "neff", "dma", "--json", f)
	if !strings.Contains(r.stdout, `evil\u001b[2J`) {
		t.Errorf("--json lost the exact name: %.300s", r.stdout)
	}
}

// An 11 KB NEFF declaring huge variables made dma --execute allocate
// 4.2 GB and write a 2 GiB .npy, and check said nothing of a 2^62-byte
// variable.
func TestHugeVariables(t *testing.T) {
	dir := t.TempDir()
	build := func(name string, size int64) string {
		b := neff.NewBuilder(name)
		sg := b.Subgraph("sg00")
		sg.AddVar("x", "input", size)
		sg.AddVar("y", "output", 16)
		sg.AddQueue("q", "in", 16, "sp")
		sg.Engine("sp", "SP").AddDMA("q", "load", neff.Copy("x", 0, []int64{16}, []int64{1}, "y", 0, []int64{16}, []int64{1}))
		raw, err := b.Bytes(neff.PackOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, raw, 0o644)
		return p
	}
	huge := build("huge.neff", 1<<62)
	r := runInput(t, nil, "check", huge)
	if r.code != 1 || !strings.Contains(r.stdout, "neff/var-size") || !strings.Contains(r.stdout, "device memory") {
		t.Errorf("check: %s", r)
	}
	r = runInput(t, nil, "neff", "dma", huge, "--execute", "-o", filepath.Join(dir, "o1"))
	if r.code != 2 || !strings.Contains(r.stderr, "--max-memory") {
		t.Errorf("dma --execute 2^62: %s", r)
	}
	big := build("big.neff", 64<<20)
	r = runInput(t, nil, "neff", "dma", big, "--execute", "--max-memory", "1M", "-o", filepath.Join(dir, "o2"))
	if r.code != 2 || !strings.Contains(r.stderr, "budget of 1,048,576 bytes") {
		t.Errorf("dma --execute --max-memory 1M: %s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "o2")); err == nil {
		t.Error("output written despite the failure")
	}
}

// relayout --batch 2^62 overflowed batch x executions x size: exit 3.
func TestRelayoutHugeBatch(t *testing.T) {
	spec := edgetpu.DemoSpec()
	b, err := edgetpu.Write(edgetpu.Synthetic(spec))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	f := filepath.Join(tmp, "m_edgetpu.tflite")
	os.WriteFile(f, b, 0o644)
	in := filepath.Join(tmp, "raw.bin")
	os.WriteFile(in, make([]byte, 4096), 0o644)
	for _, batch := range []string{"4611686018427387904", "9223372036854775807", "3"} {
		r := runInput(t, nil, "edgetpu", "relayout", f, "--layer", spec.Outputs[0].Name, "--in", in, "-o", filepath.Join(tmp, "o.npy"), "--batch", batch)
		if r.code != 2 {
			t.Errorf("--batch %s: %s", batch, r)
		}
	}
}

// alloc --capacity 0 was reported as "no capacity given"; it is a usage
// error naming the flag.
func TestAllocCapacityZero(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.csv")
	os.WriteFile(p, []byte("id,lower,upper,size\n0,0,2,4\n1,1,3,4\n"), 0o644)
	for _, c := range []string{"0", "-5"} {
		r := runInput(t, nil, "alloc", p, "--capacity", c)
		if r.code != 2 || !strings.Contains(r.stderr, "--capacity "+c) {
			t.Errorf("--capacity %s: %s", c, r)
		}
	}
}
