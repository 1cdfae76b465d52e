//go:build browser

package viewer_test

// The browser test of the web viewer (scripts/browser-test.sh runs it):
// it serves a site built by scripts/build-web.sh, feeds one corpus file of
// every kind through the page's file input in headless Chromium, and
// checks that the report appears with the key facts and finding counts
// npukit computes natively for that file, with no console error and no
// request outside the site's own files. It also opens the site from
// file:// once, and feeds it a file of no supported kind.

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/viewer"
)

var (
	siteDir    = flag.String("site", "", "site built by scripts/build-web.sh")
	corpusDirs = flag.String("corpus", "", "comma-separated folders of input files (default: the corpora of $NPUKIT_SHARED or ../shared, and the repository's examples)")
	allFiles   = flag.Bool("all", false, "feed every corpus file, not one per kind and the largest")
	chromePath = flag.String("chromium", "/usr/bin/chromium", "Chromium binary")
)

// pick returns one file of every kind the viewer shows (the first by
// path) and the largest model (NEFF, Edge TPU or TFLite) of the corpus.
func pick(t *testing.T) []string {
	dirs := *corpusDirs
	if dirs == "" {
		dirs = "../../examples"
		if d := conformance.SharedDir(); d != "" {
			dirs = filepath.Join(d, "corpus") + "," + filepath.Join(d, "corpus2") + "," + dirs
		}
	}
	var files []string
	for _, dir := range strings.Split(dirs, ",") {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				switch d.Name() {
				case "golden", "goldens", "logs", "tracer", "nki":
					return filepath.SkipDir
				}
				return nil
			}
			if n := d.Name(); strings.HasSuffix(n, ".md") || strings.HasPrefix(n, "README") || strings.HasPrefix(n, "LICENSE") || n == "truth.json" {
				return nil
			}
			files = append(files, p)
			return nil
		})
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Skip("no corpus (../shared) beside the checkout")
	}
	if *allFiles {
		return files
	}
	byKind := map[npukit.Kind]string{}
	var largest string
	var largestSize int64
	for _, f := range files {
		a, err := npukit.Open(f)
		if err != nil || !npukit.Supports(a.Kind, "report") {
			continue
		}
		if _, ok := byKind[a.Kind]; !ok {
			byKind[a.Kind] = f
		}
		model := a.Kind == detect.NEFF || a.Kind == detect.EdgeTPU || a.Kind == detect.TFLite
		if fi, err := os.Stat(f); err == nil && model && fi.Size() > largestSize {
			largest, largestSize = f, fi.Size()
		}
	}
	var out []string
	for _, f := range byKind {
		out = append(out, f)
	}
	sort.Strings(out)
	if largest != "" && !slices.Contains(out, largest) {
		out = append(out, largest)
	}
	// An allocation problem whose exact search runs into the report's
	// time limit: in WebAssembly no goroutine is preempted, so the solver
	// must watch the clock itself (it once never returned).
	if hard := filepath.Join(filepath.Dir(strings.Split(dirs, ",")[0]), "benchmarks", "minimalloc", "A.1048576.csv"); fileExists(hard) {
		out = append(out, hard)
	}
	return out
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

type shown struct {
	State    string     `json:"state"`
	Status   string     `json:"status"`
	Kind     string     `json:"kind"`
	Counts   string     `json:"counts"`
	Timing   string     `json:"timing"`
	Summary  [][]string `json:"summary"`
	Sections int        `json:"sections"`
	Links    []string   `json:"links"`
	// Sandboxed is the report frame's sandbox attribute; InPage the type
	// of npukitAnalyse in the page (npukit runs in a Web Worker).
	Sandboxed string `json:"sandboxed"`
	InPage    string `json:"inPage"`
}

// The report frame is sandboxed (an opaque origin: its document is not
// this page's to read), so the report is read from the frame's srcdoc.
const readScript = `(() => {
  const f = document.getElementById('report');
  const d = f && f.srcdoc ? new DOMParser().parseFromString(f.srcdoc, 'text/html') : null;
  const sum = d ? [...d.querySelectorAll('#summary dt')].map(dt => [dt.textContent, dt.nextElementSibling ? dt.nextElementSibling.textContent : '']) : [];
  return {
    state: document.body.dataset.state || '',
    status: document.getElementById('status').textContent,
    kind: document.getElementById('kind').textContent,
    counts: document.getElementById('counts').textContent,
    timing: document.getElementById('timing').textContent,
    summary: sum,
    sections: d ? d.querySelectorAll('section').length : 0,
    links: [...document.querySelectorAll('.downloads a')].map(a => a.href.startsWith('blob:') && !a.hidden ? a.download : ''),
    sandboxed: f ? f.getAttribute('sandbox') || '' : '',
    inPage: typeof globalThis.npukitAnalyse,
  };
})()`

func TestViewer(t *testing.T) {
	if *siteDir == "" {
		t.Fatal("-site DIR is required (scripts/build-web.sh builds one)")
	}
	files := pick(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(*siteDir)))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(*chromePath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}

	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { feed(t, bctx, srv.URL+"/", srv.URL, f) })
	}
	// A file of no supported kind is named as such.
	junk := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(junk, []byte("these are not the bytes of an NPU artifact\n"), 0o644)
	t.Run("unsupported", func(t *testing.T) { feed(t, bctx, srv.URL+"/", srv.URL, junk) })
	// An analysis past the page's time limit is stopped without freezing
	// the page, and the next file is analysed by a fresh worker (one NEFF
	// froze the tab for minutes, and every later file failed).
	// (the worker never returns on a file of this name; the limit is far
	// above what the next, small file takes)
	hang := filepath.Join(t.TempDir(), "npukit-test-hang.bin")
	os.WriteFile(hang, []byte("x"), 0o644)
	if len(files) > 0 {
		t.Run("stopped-then-next", func(t *testing.T) { stopThenNext(t, bctx, srv.URL+"/index.html?limit_ms=5000", hang, files[0]) })
	}
	// The same page works from file:// (no server at all).
	if len(files) > 0 {
		abs, _ := filepath.Abs(*siteDir)
		t.Run("file-url", func(t *testing.T) { feed(t, bctx, "file://"+abs+"/index.html", "file://"+abs, files[0]) })
	}
}

func feed(t *testing.T, bctx context.Context, pageURL, origin, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := viewer.Analyse(filepath.Base(path), data)

	var mu sync.Mutex
	var problems []string
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", e.Type, strings.Join(parts, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			if !strings.HasPrefix(u, origin) && !strings.HasPrefix(u, "blob:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				problems = append(problems, "request outside the site: "+u)
			}
		}
	}))
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 120*time.Second)
	defer cancelT()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(pageURL),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="ready"]`)),
	)
	if err != nil {
		t.Fatalf("page did not load npukit: %v", err)
	}
	abs, _ := filepath.Abs(path)
	start := time.Now()
	err = chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{abs}),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="shown"], .status.error`)),
	)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("no result shown: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[shown](readScript))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	mu.Unlock()

	if want.Unsupported {
		if got.State == "shown" || !strings.Contains(got.Status, "unrecognised") && !strings.Contains(got.Status, "cannot show") {
			t.Errorf("unsupported file: status %q (state %q), want it named as not supported", got.Status, got.State)
		}
		return
	}
	if got.State != "shown" {
		t.Fatalf("state %q, status %q", got.State, got.Status)
	}
	if got.Sandboxed == "" || strings.Contains(got.Sandboxed, "allow-same-origin") {
		t.Errorf("report frame sandbox %q: want one without allow-same-origin", got.Sandboxed)
	}
	if got.InPage != "undefined" {
		t.Errorf("npukitAnalyse is a %s in the page: npukit should run in a worker", got.InPage)
	}
	if !strings.Contains(got.Kind, want.Describe) {
		t.Errorf("kind line %q does not name %q", got.Kind, want.Describe)
	}
	wantCounts := fmt.Sprintf("%d error", want.Errors)
	if !strings.HasPrefix(got.Counts, wantCounts) || !strings.Contains(got.Counts, fmt.Sprintf("%d warning", want.Warnings)) || !strings.Contains(got.Counts, fmt.Sprintf("%d info", want.Infos)) {
		t.Errorf("counts %q, want %d errors, %d warnings, %d infos", got.Counts, want.Errors, want.Warnings, want.Infos)
	}
	if len(want.Summary) == 0 || len(got.Summary) != len(want.Summary) {
		t.Fatalf("report summary has %d facts, npukit computes %d", len(got.Summary), len(want.Summary))
	}
	for i, kv := range want.Summary {
		if got.Summary[i][0] != kv.Key || got.Summary[i][1] != kv.Value {
			t.Errorf("summary fact %d: page shows %q = %q, npukit computes %q = %q", i, got.Summary[i][0], got.Summary[i][1], kv.Key, kv.Value)
		}
	}
	if got.Sections == 0 {
		t.Error("report has no sections")
	}
	for i, l := range got.Links {
		if l == "" {
			t.Errorf("download link %d missing", i)
		}
	}
	t.Logf("%s (%d bytes, %s): report shown in %v (%s)", filepath.Base(path), len(data), want.Kind, elapsed.Round(time.Millisecond), got.Timing)
}

// stopThenNext feeds a file whose analysis never ends, then a small one:
// the first is stopped at the page's limit with a message, the second is
// shown (by a fresh worker).
func stopThenNext(t *testing.T, bctx context.Context, pageURL, slow, small string) {
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	slowAbs, _ := filepath.Abs(slow)
	smallAbs, _ := filepath.Abs(small)
	err := chromedp.Do(ctx,
		chromedp.Navigate(pageURL),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="ready"]`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{slowAbs}),
		chromedp.WaitReady(chromedp.CSS(`.status.error`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('status').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(status, "did not finish") {
		t.Fatalf("status %q, want the analysis stopped", status)
	}
	err = chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{smallAbs}),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="shown"]`)),
	)
	if err != nil {
		t.Fatalf("the next file was not shown: %v", err)
	}
}
