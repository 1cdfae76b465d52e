package edgetpu

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/npukit/npukit/tflite"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// hwRow is one published measurement of ../shared/hw/edgetpu with what
// the latency model needs: the file (found by its sha256), the host class
// (from the setup text) and the per-call image resize (Coral's
// classification benchmarks).
type hwRow struct {
	ID, File, Host string
	Measured       float64 // ms
	ResizePixels   int64
	Note           string
}

var resizeRe = regexp.MustCompile(`\((\d+)x(\d+) (?:BMP|JPEG)`)

// hostOf maps a row's device and setup text to a host class.
func hostOf(device, setup string) string {
	s := device + " " + setup
	switch {
	case strings.Contains(s, "Raspberry Pi 4"):
		return "rpi4-usb3"
	case strings.Contains(s, "Raspberry Pi 3"):
		return "rpi3-usb2"
	case strings.Contains(s, "Dev Board"), strings.Contains(s, "Embedded CPU"):
		return "devboard-pcie"
	case strings.Contains(s, "USB 2.0"):
		return "desktop-usb2"
	}
	return "desktop-usb3"
}

// hwRows reads the shared measurements and finds each artifact among the
// shared models by hash (or, when the exact file is not shared, by the
// artifact's file name, noted).
func hwRows(t *testing.T) []hwRow {
	dir := conformance.Shared(t, "hw/edgetpu")
	f, err := os.Open(filepath.Join(dir, "measurements.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	byHash := map[string]string{}
	var all []string
	for _, g := range []string{"hw/edgetpu/models/*.tflite", "corpus/edgetpu/*.tflite", "corpus2/edgetpu-pairs/models/*.tflite"} {
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(dir)), g))
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			s := sha256.Sum256(b)
			byHash[hex.EncodeToString(s[:])] = p
			all = append(all, p)
		}
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	var rows []hwRow
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[col["measured"]], 64)
		if err != nil || r[col["unit"]] != "ms" {
			continue
		}
		row := hwRow{ID: r[col["id"]], Measured: v, Host: hostOf(r[col["device"]], r[col["setup"]])}
		row.File = byHash[r[col["artifact_sha256"]]]
		if row.File == "" {
			base := path.Base(r[col["artifact"]])
			for _, p := range all {
				if strings.HasSuffix(filepath.Base(p), "__"+base) || filepath.Base(p) == base {
					row.File, row.Note = p, "same-named file (the measured compile is not shared)"
					break
				}
			}
		}
		if m := resizeRe.FindStringSubmatch(r[col["setup"]]); m != nil {
			w, _ := strconv.ParseInt(m[1], 10, 64)
			h, _ := strconv.ParseInt(m[2], 10, 64)
			row.ResizePixels = w * h
		}
		rows = append(rows, row)
	}
	return rows
}

// The latency model against every shared published measurement: measured,
// predicted, ratio. bench/edgetpu-hw.sh prints this table.
func TestLatencyCalibration(t *testing.T) {
	rows := hwRows(t)
	within, total := 0, 0
	var logs []string
	worst := 1.0
	for _, r := range rows {
		if r.File == "" {
			logs = append(logs, fmt.Sprintf("%-8s no shared artifact", r.ID))
			continue
		}
		b, err := os.ReadFile(r.File)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(b)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		h, _ := HostByName(r.Host)
		l, err := EstimateModel(m, h, LatencyOptions{ResizeFromPixels: r.ResizePixels})
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		pred := l.SteadyStateUs / 1000
		ratio := pred / r.Measured
		total++
		if math.Abs(ratio-1) <= 0.25 {
			within++
		}
		worst = max(worst, ratio, 1/ratio)
		logs = append(logs, fmt.Sprintf("%-8s %-14s %-60s %9.2f %9.2f %6.2f %s", r.ID, r.Host, shortName(filepath.Base(r.File)), r.Measured, pred, ratio, r.Note))
	}
	t.Logf("%-8s %-14s %-60s %9s %9s %6s", "ROW", "HOST", "MODEL", "MEASURED", "PREDICTED", "RATIO")
	for _, s := range logs {
		t.Log(s)
	}
	t.Logf("%d of %d rows within ±25%%; worst factor %.2f", within, total, worst)
	if total == 0 {
		t.Skip("no rows")
	}
	if within < total*9/10 || worst > 1.5 {
		t.Errorf("%d of %d within ±25%% (want at least 90%%), worst factor %.2f (want at most 1.5)", within, total, worst)
	}
}

// sim (the compiled model) and plan (its uncompiled twin, from the
// predicted mapping) agree on the steady-state latency within 10% on every
// shared twin pair, on every host class.
func TestLatencySimPlanAgree(t *testing.T) {
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Entries []struct {
			ID         string
			Uncompiled struct{ File string }
			Compiled   []struct {
				File      string `json:"file"`
				AlreadyIn string `json:"already_in"`
			}
		}
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Dir(filepath.Dir(dir))
	pairs, combos, agree := 0, 0, 0
	for _, e := range tr.Entries {
		um, err := tflite.ReadFile(filepath.Join(dir, e.Uncompiled.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range e.Compiled {
			var path string
			switch {
			case c.File != "":
				path = filepath.Join(dir, c.File)
			case strings.HasPrefix(c.AlreadyIn, "shared/"):
				path = filepath.Join(shared, strings.TrimPrefix(c.AlreadyIn, "shared/"))
			default:
				continue
			}
			cb, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			cm, err := Read(cb)
			if err != nil {
				t.Fatal(err)
			}
			if len(cm.Ops) == 0 {
				continue // the compiler mapped nothing: no twin to compare
			}
			pairs++
			p := PlanModel(um, PlanOptions{})
			for _, h := range Hosts() {
				ls, err := EstimateModel(cm, h, LatencyOptions{})
				if err != nil {
					t.Fatal(err)
				}
				lp := EstimatePlan(um, p, h, LatencyOptions{})
				r := lp.SteadyStateUs / ls.SteadyStateUs
				if h.Name == DefaultHost {
					t.Logf("%-70s sim %8.0f us plan %8.0f us ratio %.2f", shortName(filepath.Base(path)), ls.SteadyStateUs, lp.SteadyStateUs, r)
				}
				combos++
				if math.Abs(r-1) <= 0.10 {
					agree++
					continue
				}
				spill := false
				for _, p := range ls.Parts {
					spill = spill || strings.Contains(p.Name, "scratch")
				}
				t.Logf("%s on %s: plan %.0f us vs sim %.0f us (ratio %.2f)", filepath.Base(path), h.Name, lp.SteadyStateUs, ls.SteadyStateUs, r)
				if h.Name == DefaultHost && !spill {
					// Without a scratch spill (which the plan
					// does not predict), the default host
					// agrees within 20% on every pair (the
					// compiled model's MACs are estimated).
					if math.Abs(r-1) > 0.20 {
						t.Errorf("%s: plan and sim differ by more than 20%% without a scratch spill", filepath.Base(path))
					}
				}
			}
		}
	}
	if pairs == 0 {
		t.Skip("no twin pairs")
	}
	t.Logf("%d of %d (pair, host) combinations agree within 10%%", agree, combos)
	if agree*10 < combos*6 {
		t.Errorf("only %d of %d (pair, host) combinations agree within 10%%", agree, combos)
	}
}
