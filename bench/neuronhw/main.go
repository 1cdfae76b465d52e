// Command neuronhw runs every shared NeuronCore calibration row through the
// npukit CLI and prints measured, predicted and their ratio:
//
//   - $NPUKIT_SHARED/hw/neuron/measurements.csv: published kernel
//     measurements, predicted with `npukit nki sim` as the row's
//     npukit_command_at_collection says (the kernel is looked up in
//     hw/neuron/kernels by its module name; `kernels.py(NAME=V)` means a
//     scratch copy with the module-level or kernel-level constant NAME set
//     to V, as the row's notes describe; a kernel parameter the command
//     leaves out, such as the SDK copies' output tensor, is given the shape
//     of the first tensor argument);
//   - $NPUKIT_SHARED/corpus3/ntff/truth.csv: captured NEFF + NTFF pairs,
//     the measured time being neuron-profile's total_time of core sg00,
//     predicted with `npukit sim --json X.neff` (total_ns).
//
// The ratio is predicted / measured. The summary counts rows within ±25%
// and rows off by more than 2x (the goal of issue 35).
//
//	bench/neuron-hw.sh [-npukit PATH] [-shared DIR] [-v]
package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

type row struct {
	id, kind     string
	measuredUs   float64
	predictedUs  float64
	err          string
	detail       string
	family       string
	instance     string
	predictedRaw string
}

func main() {
	bin := flag.String("npukit", "", "npukit binary (default: build ./cmd/npukit into a temporary directory)")
	shared := flag.String("shared", os.Getenv("NPUKIT_SHARED"), "shared data directory (default $NPUKIT_SHARED or ../shared)")
	verbose := flag.Bool("v", false, "print each command")
	flag.Parse()
	if *shared == "" {
		*shared = "../shared"
	}
	tmp, err := os.MkdirTemp("", "neuronhw")
	check(err)
	defer os.RemoveAll(tmp)
	if *bin == "" {
		*bin = filepath.Join(tmp, "npukit")
		out, err := exec.Command("go", "build", "-o", *bin, "./cmd/npukit").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	var rows []row
	rows = append(rows, hwRows(*bin, *shared, tmp, *verbose)...)
	rows = append(rows, ntffRows(*bin, *shared, *verbose)...)

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ROW\tKIND\tMEASURED us\tPREDICTED us\tRATIO\t\t")
	within, over2, n := 0, 0, 0
	var ratios []float64
	for _, r := range rows {
		if r.err != "" {
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t-\t-\tERROR %s\t\n", r.id, r.kind, r.measuredUs, r.err)
			n++
			over2++
			continue
		}
		ratio := r.predictedUs / r.measuredUs
		mark := ""
		n++
		ratios = append(ratios, ratio)
		switch {
		case ratio >= 0.75 && ratio <= 1.25:
			within++
		case ratio > 2 || ratio < 0.5:
			over2++
			mark = "  >2x"
		default:
			mark = "  >25%"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.3f\t%s\t\n", r.id, r.kind, r.measuredUs, r.predictedUs, ratio, mark)
	}
	check(tw.Flush())
	sort.Float64s(ratios)
	med := math.NaN()
	if len(ratios) > 0 {
		med = ratios[len(ratios)/2]
	}
	fmt.Printf("\n%d rows: %d within ±25%% (%.0f%%), %d off by more than 2x (or failed); median ratio %.3f\n",
		n, within, 100*float64(within)/float64(max(n, 1)), over2, med)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func readCSV(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			if i < len(r) {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// ntffRows predicts every captured pair's NEFF with `sim --json`.
func ntffRows(bin, shared string, verbose bool) []row {
	dir := filepath.Join(shared, "corpus3", "ntff")
	recs, err := readCSV(filepath.Join(dir, "truth.csv"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ntff:", err)
		return nil
	}
	var rows []row
	for _, m := range recs {
		ps, _ := strconv.ParseFloat(m["total_time_ps_sg00"], 64)
		r := row{id: strings.TrimSuffix(m["neff_file"], ".neff"), kind: "sim " + m["instance"], measuredUs: ps / 1e6, family: m["kernel_family"]}
		args := []string{"sim", "--json", filepath.Join(dir, m["neff_file"])}
		if verbose {
			fmt.Fprintln(os.Stderr, "npukit", strings.Join(args, " "))
		}
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			r.err = errText(err)
			rows = append(rows, r)
			continue
		}
		var res struct {
			TotalNs float64 `json:"total_ns"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			r.err = err.Error()
		}
		r.predictedUs = res.TotalNs / 1000
		rows = append(rows, r)
	}
	return rows
}

func errText(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return strings.TrimSpace(strings.SplitN(string(ee.Stderr), "\n", 2)[0])
	}
	return err.Error()
}

var scratchRe = regexp.MustCompile(`^([^()]+)\((\w+)=([^)]*)\)$`)

// hwRows predicts every published measurement with `nki sim`.
func hwRows(bin, shared, tmp string, verbose bool) []row {
	dir := filepath.Join(shared, "hw", "neuron")
	recs, err := readCSV(filepath.Join(dir, "measurements.csv"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "hw:", err)
		return nil
	}
	kernels, _ := filepath.Glob(filepath.Join(dir, "kernels", "*.py"))
	var rows []row
	for _, m := range recs {
		r := row{id: m["id"], kind: "nki sim", measuredUs: toUs(m["measured"], m["unit"])}
		args, err := hwArgs(m, kernels, tmp)
		if err != nil {
			r.err = err.Error()
			rows = append(rows, r)
			continue
		}
		r.predictedUs, r.err = runNkiSim(bin, args, verbose)
		rows = append(rows, r)
	}
	return rows
}

func toUs(v, unit string) float64 {
	f, _ := strconv.ParseFloat(v, 64)
	switch unit {
	case "ms":
		return f * 1000
	case "ns":
		return f / 1000
	case "s":
		return f * 1e6
	}
	return f
}

// moduleOf is a kernel file's module name: the base name without its
// trailing "__<commit>.py" and leading path segments.
func moduleOf(path string) string {
	b := strings.TrimSuffix(filepath.Base(path), ".py")
	parts := strings.Split(b, "__")
	if len(parts) >= 2 {
		return parts[len(parts)-2]
	}
	return b
}

// hwArgs turns a row's collection command into `nki sim` arguments over
// the shared kernels.
func hwArgs(m map[string]string, kernels []string, tmp string) ([]string, error) {
	cmd := strings.Fields(m["npukit_command_at_collection"])
	fn := ""
	if i := strings.LastIndex(m["artifact"], "#"); i >= 0 {
		fn = m["artifact"][i+1:]
	}
	var args []string
	var kernelFile string
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == "npukit" || c == "nki" || c == "sim":
		case c == "--manifest":
			i++
		case c == "--entry":
			i++
			// The manifest is not shared: the row's setup gives the shapes.
			a, err := setupArgs(fn, m["setup"])
			if err != nil {
				return nil, err
			}
			args = append(args, a...)
		case strings.HasSuffix(strings.SplitN(c, "(", 2)[0], ".py"):
			base := strings.SplitN(c, "(", 2)[0]
			mod := moduleOf(base)
			for _, k := range kernels {
				if moduleOf(k) == mod {
					kernelFile = k
				}
			}
			if kernelFile == "" {
				return nil, fmt.Errorf("no shared kernel for module %q", mod)
			}
			if sm := scratchRe.FindStringSubmatch(c); sm != nil {
				f, err := scratch(kernelFile, sm[2], sm[3], tmp)
				if err != nil {
					return nil, err
				}
				kernelFile = f
			}
		default:
			args = append(args, c)
		}
	}
	if kernelFile == "" {
		// Manifest rows: the artifact names the file.
		a := m["artifact"]
		mod := strings.TrimSuffix(filepath.Base(strings.SplitN(strings.SplitN(a, ":", 2)[len(strings.SplitN(a, ":", 2))-1], "#", 2)[0]), ".py")
		for _, k := range kernels {
			if moduleOf(k) == mod {
				kernelFile = k
			}
		}
		if kernelFile == "" {
			return nil, fmt.Errorf("no shared kernel for %s", a)
		}
		if !contains(args, "--kernel") {
			args = append(args, "--kernel", fn)
		}
	}
	return append([]string{"nki", "sim", "--json", kernelFile}, args...), nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

var setupNum = regexp.MustCompile(`(\w+)=(\d+)`)

// setupArgs derives the fused Mamba kernel's arguments from a setup such
// as "batch=1 channels=256 seq_len=512 state=16, float32" (the only
// manifest-entry kernel among the shared rows).
func setupArgs(fn, setup string) ([]string, error) {
	v := map[string]string{}
	for _, m := range setupNum.FindAllStringSubmatch(setup, -1) {
		v[m[1]] = m[2]
	}
	if !strings.HasPrefix(fn, "mamba") || v["channels"] == "" {
		return nil, fmt.Errorf("cannot derive arguments of %s from setup %q", fn, setup)
	}
	b, c, s, n := v["batch"], v["channels"], v["seq_len"], v["state"]
	return []string{
		"--kernel", fn,
		"--arg", fmt.Sprintf("delta=float32[%s,%s,%s]", b, c, s),
		"--arg", fmt.Sprintf("u=float32[%s,%s,%s]", b, c, s),
		"--arg", fmt.Sprintf("A=float32[%s,%s]", c, n),
		"--arg", fmt.Sprintf("B=float32[%s,%s,%s]", b, n, s),
		"--arg", fmt.Sprintf("C=float32[%s,%s,%s]", b, n, s),
	}, nil
}

// scratch writes a copy of file with every assignment "NAME = ..." set to
// value.
func scratch(file, name, value, tmp string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	re := regexp.MustCompile(`(?m)^(\s*` + regexp.QuoteMeta(name) + `\s*=\s*)[^\n#]+`)
	if !re.Match(b) {
		return "", fmt.Errorf("%s: no assignment to %s", filepath.Base(file), name)
	}
	b = re.ReplaceAll(b, []byte("${1}"+value))
	d, err := os.MkdirTemp(tmp, "k")
	if err != nil {
		return "", err
	}
	out := filepath.Join(d, filepath.Base(file))
	return out, os.WriteFile(out, b, 0o644)
}

var missingArg = regexp.MustCompile(`no value for arguments? "(\w+)"`)

// runNkiSim runs nki sim, adding a missing output parameter with the shape
// of the first tensor argument.
func runNkiSim(bin string, args []string, verbose bool) (float64, string) {
	for try := 0; try < 3; try++ {
		if verbose {
			fmt.Fprintln(os.Stderr, "npukit", strings.Join(args, " "))
		}
		var stderr bytes.Buffer
		c := exec.Command(bin, args...)
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			msg := stderr.String()
			if mm := missingArg.FindStringSubmatch(msg); mm != nil {
				if t := firstTensorArg(args); t != "" {
					args = append(args, "--arg", mm[1]+"="+t)
					continue
				}
			}
			return 0, strings.TrimSpace(strings.SplitN(msg, "\n", 2)[0])
		}
		var res struct {
			TimeNs float64 `json:"time_ns"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return 0, err.Error()
		}
		return res.TimeNs / 1000, ""
	}
	return 0, "too many missing arguments"
}

func firstTensorArg(args []string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--arg" {
			if _, v, ok := strings.Cut(args[i+1], "="); ok && strings.Contains(v, "[") {
				return v
			}
		}
	}
	return ""
}
