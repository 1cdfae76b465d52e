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
		h, _ := HostByName(r.Host)
		l := rowEstimate(t, r, h, LatencyOptions{ResizeFromPixels: r.ResizePixels}, true)
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
	// Issue 36's bar: every shared row within ±25%.
	if within < total {
		t.Errorf("%d of %d within ±25%% (want every row), worst factor %.2f", within, total, worst)
	}
}

// sim (the compiled model) and plan (its uncompiled twin, from the
// predicted mapping) on every shared twin pair (truth.json's, and the
// compiled models of ../shared/hw/edgetpu/models whose twin FindTwin finds
// beside them), on every host class. Three comparisons, all printed
// (bench/edgetpu-hw.sh):
//
//   - sim as the CLI runs it: with the twin it finds beside the compiled
//     file (FindTwin), else from the file alone;
//   - sim given the twin (npukit sim --uncompiled): both estimates price
//     the same layers with the same constants, so what differs is what the
//     plan predicts of the package (instructions, padded transfers,
//     parameters, scratch spill) against what the compiled file holds;
//   - sim of the compiled file alone (--no-uncompiled): its Edge TPU
//     compute is estimated from the parameters and input pixels by the
//     class of network its outputs show (the file keeps no layer shapes).
//
// Each within 10% (agreeTol), activation spill included (the compiled file
// has scratch, or the plan predicts it, flagged uncertain: the row says
// so), and from the compiled file alone.
func TestLatencySimPlanAgree(t *testing.T) {
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	pairs, combos, agreeBeside, agreeTwin, agreeAlone := 0, 0, 0, 0, 0
	var worstTwin, worstAlone, worstSpill float64
	var rows []string
	for _, pr := range append(twinFiles(t, dir), hwTwinFiles(t)...) {
		path := pr[1]
		um, err := tflite.ReadFile(pr[0])
		if err != nil {
			t.Fatal(err)
		}
		cm, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(cm.Ops) == 0 {
			continue // the compiler mapped nothing: no twin to compare
		}
		pairs++
		beside, _ := FindTwin(path, cm)
		p := PlanModel(um, PlanOptions{})
		scratch := false
		for _, pk := range cm.Packages() {
			scratch = scratch || MemoryOf(pk).Scratch > 0
		}
		spill := scratch || p.Spill != nil
		row := fmt.Sprintf("%-44.44s", shortName(filepath.Base(path)))
		for _, h := range Hosts() {
			found, err := EstimateModel(cm, h, LatencyOptions{Twin: beside})
			if err != nil {
				t.Fatal(err)
			}
			alone, err := EstimateModel(cm, h, LatencyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			twin, err := EstimateModel(cm, h, LatencyOptions{Uncompiled: um})
			if err != nil {
				t.Fatal(err)
			}
			lp := EstimatePlan(um, p, h, LatencyOptions{})
			rb, rt, ra := lp.SteadyStateUs/found.SteadyStateUs, lp.SteadyStateUs/twin.SteadyStateUs, lp.SteadyStateUs/alone.SteadyStateUs
			row += fmt.Sprintf(" %5.2f %5.2f %5.2f", rb, rt, ra)
			combos++
			worstTwin = max(worstTwin, math.Abs(rt-1))
			worstAlone = max(worstAlone, math.Abs(ra-1))
			if spill {
				worstSpill = max(worstSpill, math.Abs(rb-1), math.Abs(rt-1), math.Abs(ra-1))
			}
			for _, c := range []struct {
				what  string
				r     float64
				count *int
				us    float64
			}{
				{"sim as the CLI runs it", rb, &agreeBeside, found.SteadyStateUs},
				{"sim given the twin", rt, &agreeTwin, twin.SteadyStateUs},
				{"sim of the compiled file alone", ra, &agreeAlone, alone.SteadyStateUs},
			} {
				if math.Abs(c.r-1) <= agreeTol {
					*c.count++
				} else {
					t.Errorf("%s on %s: plan %.0f us, %s %.0f us (ratio %.2f, want within %.0f%%)", filepath.Base(path), h.Name, lp.SteadyStateUs, c.what, c.us, c.r, 100*agreeTol)
				}
			}
		}
		if beside == nil {
			row += " (no twin beside)"
		}
		if spill {
			row += " (activation spill)"
		}
		rows = append(rows, row)
	}
	if pairs == 0 {
		t.Skip("no twin pairs")
	}
	t.Logf("plan / sim on each host: sim with the twin found beside (as the CLI), given the twin (--uncompiled), of the file alone (--no-uncompiled)")
	hdr := fmt.Sprintf("%-44s", "MODEL")
	for _, h := range Hosts() {
		hdr += fmt.Sprintf(" %-17.17s", h.Name)
	}
	t.Log(hdr)
	for _, r := range rows {
		t.Log(r)
	}
	t.Logf("within 10%%: of %d (pair, host) combinations, %d with the twin found beside, %d given the twin, %d from the compiled file alone; worst %.1f%% given the twin, %.1f%% from the file alone, %.1f%% where an activation spill is involved", combos, agreeBeside, agreeTwin, agreeAlone, 100*worstTwin, 100*worstAlone, 100*worstSpill)
}

// agreeTol is the agreement TestLatencySimPlanAgree requires of plan and
// sim on every (pair, host) combination, in each of its three comparisons
// (issue 36: "sim and plan latency agree for a compiled model and its
// uncompiled twin within 10%").
const agreeTol = 0.10

// hwTwinFiles lists the (uncompiled, compiled) pairs of
// ../shared/hw/edgetpu/models: each compiled model whose twin FindTwin
// finds beside it.
func hwTwinFiles(t *testing.T) [][2]string {
	t.Helper()
	dir := conformance.Shared(t, "hw/edgetpu/models")
	files, _ := filepath.Glob(filepath.Join(dir, "*_edgetpu*.tflite"))
	var out [][2]string
	for _, f := range files {
		m, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if tw, _ := FindTwin(f, m); tw != nil {
			out = append(out, [2]string{tw.Path, f})
		}
	}
	return out
}

// twinFiles lists the (uncompiled, compiled) file pairs of the twin
// corpus dir (its truth.json), compiled files found in place.
func twinFiles(t *testing.T, dir string) [][2]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Entries []struct {
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
	var out [][2]string
	for _, e := range tr.Entries {
		for _, c := range e.Compiled {
			switch {
			case c.File != "":
				out = append(out, [2]string{filepath.Join(dir, e.Uncompiled.File), filepath.Join(dir, c.File)})
			case strings.HasPrefix(c.AlreadyIn, "shared/"):
				out = append(out, [2]string{filepath.Join(dir, e.Uncompiled.File), filepath.Join(shared, strings.TrimPrefix(c.AlreadyIn, "shared/"))})
			}
		}
	}
	return out
}

// The host constants fitted on shared rows are what those rows give: the
// desktop's resize line and each host's general slowness from the host
// code the classification benchmarks time (classification row less the
// model-only row of the same model), the depthwise factors from the
// MobileNet v2 CPU-only rows (the centre of two sources where two
// measured the host, and how far apart the two sources' fits are), and
// the Raspberry Pi 4's per-inference link wait from its Edge TPU rows.
// Refitting here catches a constant changed without its rows.
func TestLatencyHostConstantsRefit(t *testing.T) {
	rows := map[string]hwRow{}
	for _, r := range hwRows(t) {
		rows[r.ID] = r
	}
	get := func(id string) hwRow {
		r, ok := rows[id]
		if !ok {
			t.Skipf("no row %s in the shared measurements", id)
		}
		return r
	}
	extras := func(model string, ids ...string) (px, ms []float64) {
		base := get(model).Measured
		for _, id := range ids {
			r := get(id)
			px, ms = append(px, float64(r.ResizePixels)), append(ms, r.Measured-base)
		}
		return px, ms
	}
	close := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Abs(want) {
			t.Errorf("%s: refit %.4g, the constant %.4g", what, got, want)
		}
	}
	// The desktop's resize line (least squares).
	px, d := extras("etpu-01", "etpu-24", "etpu-25", "etpu-26")
	var mx, my float64
	for i := range px {
		mx, my = mx+px[i]/3, my+d[i]/3
	}
	var sxy, sxx float64
	for i := range px {
		sxy += (px[i] - mx) * (d[i] - my)
		sxx += (px[i] - mx) * (px[i] - mx)
	}
	slope := sxy / sxx
	close("desktop resize per source pixel (us)", slope*1e3, 0.186e-3, 0.01)
	close("desktop resize fixed part (us)", (my-slope*mx)*1e3, 236, 0.01)
	desk, _ := HostByName(DefaultHost)
	slowness := func(model string, ids ...string) float64 {
		px, d := extras(model, ids...)
		var num, den float64
		for i := range px {
			m := preprocessUs(desk, int64(px[i])) / 1e3
			num, den = num+d[i]*m, den+m*m
		}
		return num / den
	}
	dev, _ := HostByName("devboard-pcie")
	close("devboard-pcie general slowness", slowness("etpu-02", "etpu-30", "etpu-31", "etpu-32"), dev.HostSlowness, 0.005)
	pi3, _ := HostByName("rpi3-usb2")
	close("rpi3-usb2 general slowness", math.Sqrt(slowness("etpu-03", "etpu-36", "etpu-37", "etpu-38")*slowness("etpu-04", "etpu-42", "etpu-43", "etpu-44")), pi3.HostSlowness, 0.005)

	// Depthwise factors: the MobileNet v2 CPU-only estimate is linear in
	// the factor.
	cpuMs := func(id string, h HostClass) float64 {
		return rowEstimate(t, get(id), h, LatencyOptions{}, false).SteadyStateUs / 1e3
	}
	factor := func(id string, h HostClass, target float64) float64 {
		h0, h1 := h, h
		h0.DepthwiseSlowness, h1.DepthwiseSlowness = 0, 1
		a := cpuMs(id, h0)
		return (target - a) / (cpuMs(id, h1) - a)
	}
	m19, m55 := get("etpu-19").Measured, get("etpu-55").Measured
	k19, k55 := factor("etpu-19", dev, m19), factor("etpu-19", dev, m55)
	close("devboard-pcie depthwise factor", factor("etpu-19", dev, math.Sqrt(m19*m55)), dev.DepthwiseSlowness, 0.01)
	close("devboard-pcie depthwise spread", max(k19, k55)/min(k19, k55), dev.DepthwiseSpread, 0.01)
	close("rpi3-usb2 depthwise factor", factor("etpu-20", pi3, math.Sqrt(get("etpu-20").Measured*get("etpu-21").Measured)), pi3.DepthwiseSlowness, 0.01)
	m18, m54 := get("etpu-18").Measured, get("etpu-54").Measured
	close("desktop MobileNet v2 at the centre of its sources (ms)", cpuMs("etpu-18", desk), math.Sqrt(m18*m54), 0.005)
	k18, k54 := factor("etpu-18", desk, m18), factor("etpu-18", desk, m54)
	close("desktop depthwise spread", max(k18, k54)/min(k18, k54), desk.DepthwiseSpread, 0.01)

	// The invocation overhead: a least-squares line in the host's general
	// slowness through the model-only MobileNet v2 rows' residuals.
	var xs, ys []float64
	for _, id := range []string{"etpu-01", "etpu-02", "etpu-03", "etpu-04"} {
		r := get(id)
		h, _ := HostByName(r.Host)
		l := rowEstimate(t, r, h, LatencyOptions{}, true)
		xs, ys = append(xs, h.HostSlowness), append(ys, r.Measured*1e3-(l.SteadyStateUs-l.ByKind[PartInvoke]))
	}
	var ax, ay float64
	for i := range xs {
		ax, ay = ax+xs[i]/float64(len(xs)), ay+ys[i]/float64(len(xs))
	}
	var cxy, cxx float64
	for i := range xs {
		cxy += (xs[i] - ax) * (ys[i] - ay)
		cxx += (xs[i] - ax) * (xs[i] - ax)
	}
	close("invocation, host part (us)", cxy/cxx, invokeCPUUs, 0.02)
	close("invocation, fixed part (us)", ay-cxy/cxx*ax, invokeFixedUs, 0.02)

	// The Raspberry Pi 4's wait: the mean residual of its Edge TPU rows.
	pi4, _ := HostByName("rpi4-usb3")
	no := pi4
	no.LinkLatencyUs = 0
	var res float64
	for _, id := range []string{"etpu-48", "etpu-49", "etpu-50"} {
		r := get(id)
		l := rowEstimate(t, r, no, LatencyOptions{ResizeFromPixels: r.ResizePixels}, true)
		res += (r.Measured*1e3 - l.SteadyStateUs) / 3
	}
	close("rpi4-usb3 link wait (us)", res, pi4.LinkLatencyUs, 0.01)

	// The Edge TPU layer rate, the invocation and the class rates solved
	// again at each trial rate. Since the invocation became a line
	// through etpu-01..04 (f0cc4e0) the refit gives 0.32e12 (objective
	// 0.013, 0.018 at the constant's 0.34e12). The invocation and class
	// rate checks catch a rate moved alone; this one a rate moved with
	// them. 7% holds today's constant; 3% once the rate is refitted.
	rate, class, ratios, classNow := paddedRateRefit(t, get)
	t.Logf("Edge TPU layer rate refit %.0f GMAC/s padded (class rates there %v, rows %v); class rates at %.0f GMAC/s: %v", rate/1e3, class, ratios, tpuPaddedMACsPerUs/1e3, classNow)
	close("Edge TPU layer rate (padded MAC/us)", rate, tpuPaddedMACsPerUs, 0.07)
	close("classifier rate (MAC/us) at the layer rate", classNow["a classifier"], classifierMACsPerUs, 0.03)
	close("single-scale dense rate (MAC/us) at the layer rate", classNow["a single-scale dense predictor"], denseMACsPerUs, 0.03)
	close("multi-scale dense rate (MAC/us) at the layer rate", classNow["a multi-scale dense predictor"], multiScaleMACsPerUs, 0.03)
}

// The file-alone note's spread is the shared twins' (the constants
// fileAloneCompute* and fileAloneTotal*): the layer-by-layer Edge TPU
// compute over the compiled file alone's, and the inference total with
// the twin over the total from the file alone on every host class, both
// ends within 0.01 of the constants, so that the note and the data cannot
// drift apart.
func TestFileAloneSpread(t *testing.T) {
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	lo, hi, tlo, thi := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, pr := range append(twinFiles(t, dir), hwTwinFiles(t)...) {
		um, err := tflite.ReadFile(pr[0])
		if err != nil {
			t.Fatal(err)
		}
		cm, err := ReadFile(pr[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range Hosts() {
			alone, err := EstimateModel(cm, h, LatencyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			twin, err := EstimateModel(cm, h, LatencyOptions{Uncompiled: um})
			if err != nil {
				t.Fatal(err)
			}
			if alone.ByKind[PartTPU] == 0 || twin.ByKind[PartTPU] == 0 {
				continue // nothing mapped, or nothing to compute
			}
			r := twin.ByKind[PartTPU] / alone.ByKind[PartTPU]
			lo, hi = min(lo, r), max(hi, r)
			r = twin.SteadyStateUs / alone.SteadyStateUs
			tlo, thi = min(tlo, r), max(thi, r)
		}
	}
	if hi == 0 {
		t.Skip("no twin pairs")
	}
	t.Logf("layer-by-layer Edge TPU compute %.3f to %.3f times the compiled file alone's; inference total %.3f to %.3f", lo, hi, tlo, thi)
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"compute, low end", lo, fileAloneComputeLow},
		{"compute, high end", hi, fileAloneComputeHigh},
		{"total, low end", tlo, fileAloneTotalLow},
		{"total, high end", thi, fileAloneTotalHigh},
	} {
		if math.Abs(c.got-c.want) > 0.01 {
			t.Errorf("file alone against the twin, %s: %.3f on the shared twins, the note says %.2f", c.what, c.got, c.want)
		}
	}
}

// paddedRateRefit refits the Edge TPU layer rate (tpuPaddedMACsPerUs) as
// its comment describes it, the invocation solved again at each trial
// rate and the class rates with it. Every estimate here is linear in
// 1/rate and 1/class rate (no part overlaps the compute, checked), so the
// constants need not change: a prediction at trial rates is the one now
// plus what the trial changes.
//
//   - The invocation: a least-squares line through the residuals of
//     etpu-01..04 (MobileNet v2). Its Edge TPU compute is the same on
//     every host, so the fixed part absorbs whatever the rate changes in
//     it: those rows (all 19 MobileNet v2 rows, and the Pi 4's wait
//     fitted on three of them) are the same at every rate and say
//     nothing of it.
//   - The class rates: each the rate that keeps the compiled file
//     alone's estimate nearest the plan's in the worst (twin, host) case
//     over the class's shared twins.
//   - The rows that remain, one an architecture (each weighted once: its
//     squared log ratio): MobileNet v1 0.25 (etpu-08) at the classifier
//     rate, PoseNet, DeepLab v3 dm05 and BodyPix (etpu-09, 13, 16) at the
//     single-scale dense rate, all from the compiled files as sim runs
//     them (no twin beside).
//
// It returns the refitted rate, the class rates and the rows there, and
// the class rates refitted at the constant rate.
func paddedRateRefit(t *testing.T, get func(string) hwRow) (rate float64, class, ratios, classNow map[string]float64) {
	t.Helper()
	r0 := float64(tpuPaddedMACsPerUs)
	padded := func(l *Latency) (p float64) {
		for _, x := range l.Parts {
			if x.Kind == PartTPU {
				p += float64(x.PaddedMACs)
			}
		}
		return p
	}
	estimated := func(l *Latency) (e float64) {
		for _, x := range l.Parts {
			if x.Kind == PartTPU {
				e += float64(x.MACs)
			}
		}
		return e
	}
	invocations := func(l *Latency) (n float64) {
		for _, x := range l.Parts {
			if x.OverlappedUs > 0 {
				t.Fatalf("%s overlaps the compute: the estimate is not linear in the rate", x.Name)
			}
			if x.Kind == PartInvoke && !x.FirstOnly {
				n++
			}
		}
		return n
	}
	r01 := get("etpu-01")
	m01, err := ReadFile(r01.File)
	if err != nil {
		t.Fatal(err)
	}
	tw01, _ := FindTwin(r01.File, m01)
	if tw01 == nil {
		t.Skip("no MobileNet v2 twin beside etpu-01")
	}
	desk, _ := HostByName(DefaultHost)
	l01, err := EstimateModel(m01, desk, LatencyOptions{Twin: tw01})
	if err != nil {
		t.Fatal(err)
	}
	mnv2 := padded(l01) // what the fixed invocation absorbs

	classRates := map[string]float64{"a classifier": classifierMACsPerUs, "a single-scale dense predictor": denseMACsPerUs, "a multi-scale dense predictor": multiScaleMACsPerUs}
	type pair struct {
		class                       string
		alone, plan                 float64 // us now
		macs, padded, nAlone, nPlan float64
	}
	var pairs []pair
	for _, pr := range append(twinFiles(t, conformance.Shared(t, "corpus2/edgetpu-pairs")), hwTwinFiles(t)...) {
		um, err := tflite.ReadFile(pr[0])
		if err != nil {
			t.Fatal(err)
		}
		cm, err := ReadFile(pr[1])
		if err != nil {
			t.Fatal(err)
		}
		if len(cm.Ops) == 0 || len(cm.Packages()) == 0 {
			continue
		}
		p := PlanModel(um, PlanOptions{})
		for _, h := range Hosts() {
			a, err := EstimateModel(cm, h, LatencyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lp := EstimatePlan(um, p, h, LatencyOptions{})
			pairs = append(pairs, pair{macsShapeOf(cm.Packages()[0]).className(), a.SteadyStateUs, lp.SteadyStateUs, estimated(a), padded(lp), invocations(a), invocations(lp)})
		}
	}
	// classRate refits a class's rate at trial rate r (the fixed
	// invocation moved by -mnv2 x d in both estimates).
	classRate := func(name string, r float64) float64 {
		d := 1/r - 1/r0
		c0 := classRates[name]
		best, bestWorst := 0.0, math.Inf(1)
		for c := 100e3; c <= 600e3; c += 1e3 {
			worst := 0.0
			for _, x := range pairs {
				if x.class == name {
					a := x.alone + x.macs*(1/c-1/c0) - x.nAlone*mnv2*d
					b := x.plan + x.padded*d - x.nPlan*mnv2*d
					worst = max(worst, math.Abs(b/a-1))
				}
			}
			if worst < bestWorst {
				best, bestWorst = c, worst
			}
		}
		return best
	}
	type row struct {
		id, class            string
		measured, pred, macs float64 // ms, ms, estimated MACs
		invokes              float64
	}
	var rows []row
	for _, id := range []string{"etpu-08", "etpu-09", "etpu-13", "etpu-16"} {
		r := get(id)
		m, err := ReadFile(r.File)
		if err != nil {
			t.Fatal(err)
		}
		if tw, _ := FindTwin(r.File, m); tw != nil {
			t.Fatalf("%s has its twin beside: the refit assumes the compiled file alone", id)
		}
		h, _ := HostByName(r.Host)
		l, err := EstimateModel(m, h, LatencyOptions{ResizeFromPixels: r.ResizePixels})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row{id, macsShapeOf(m.Packages()[0]).className(), r.Measured, l.SteadyStateUs / 1e3, estimated(l), invocations(l)})
	}
	at := func(r float64) (obj float64, class, ratios map[string]float64) {
		d := 1/r - 1/r0
		class, ratios = map[string]float64{}, map[string]float64{}
		for _, f := range rows {
			c, ok := class[f.class]
			if !ok {
				c = classRate(f.class, r)
				class[f.class] = c
			}
			p := f.pred + (f.macs*(1/c-1/classRates[f.class])-f.invokes*mnv2*d)/1e3
			ratios[f.id] = p / f.measured
			obj += math.Log(p/f.measured) * math.Log(p/f.measured)
		}
		return obj, class, ratios
	}
	bestObj := math.Inf(1)
	for r := 200e3; r <= 500e3; r += 5e3 {
		if o, c, q := at(r); o < bestObj {
			rate, class, ratios, bestObj = r, c, q, o
		}
	}
	classNow = map[string]float64{}
	for name := range classRates {
		classNow[name] = classRate(name, r0)
	}
	return rate, class, ratios, classNow
}

// rowEstimate prices a shared row's artifact on a host; with twin, as
// `npukit sim` runs it: with the uncompiled twin when one is beside the
// file.
func rowEstimate(t *testing.T, r hwRow, h HostClass, o LatencyOptions, twin bool) *Latency {
	t.Helper()
	m, err := ReadFile(r.File)
	if err != nil {
		t.Fatalf("%s: %v", r.ID, err)
	}
	if twin {
		o.Twin, _ = FindTwin(r.File, m)
	}
	l, err := EstimateModel(m, h, o)
	if err != nil {
		t.Fatalf("%s: %v", r.ID, err)
	}
	return l
}
