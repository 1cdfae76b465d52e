//go:build browser

package browsertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var (
	reportsDir = flag.String("reports", "", "directory of .html reports to open")
	shotsDir   = flag.String("shots", "", "directory to save screenshots into")
	chromePath = flag.String("chromium", "/usr/bin/chromium", "Chromium binary")
	maxRender  = flag.Duration("max-render", 2*time.Second, "largest allowed time from navigation to a rendered page")
	maxBytes   = flag.Int64("max-bytes", 5_000_000, "largest allowed report size in bytes")
)

func TestReports(t *testing.T) {
	if *reportsDir == "" {
		t.Fatal("-reports DIR is required")
	}
	files, _ := filepath.Glob(filepath.Join(*reportsDir, "*.html"))
	if len(files) == 0 {
		t.Fatalf("no reports in %s", *reportsDir)
	}
	if *shotsDir != "" {
		os.MkdirAll(*shotsDir, 0o755)
	}
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
		t.Run(filepath.Base(f), func(t *testing.T) { checkReport(t, bctx, f) })
	}
}

func checkReport(t *testing.T, bctx context.Context, path string) {
	abs, _ := filepath.Abs(path)
	url := "file://" + abs
	if fi, err := os.Stat(abs); err != nil {
		t.Fatal(err)
	} else if fi.Size() > *maxBytes {
		t.Errorf("report is %d bytes (limit %d)", fi.Size(), *maxBytes)
	}
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
			problems = append(problems, fmt.Sprintf("exception: %s", e.ExceptionDetails.Text))
		case *network.EventRequestWillBeSent:
			if e.Request.URL != url {
				problems = append(problems, "network request: "+e.Request.URL)
			}
		}
	}))
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	check, err := chromedp.Run(ctx, chromedp.Evaluate[checkResult](checkScript))
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if *shotsDir != "" {
		if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(80)); err != nil {
			t.Errorf("screenshot: %v", err)
		} else {
			name := strings.TrimSuffix(filepath.Base(path), ".html") + ".jpg"
			os.WriteFile(filepath.Join(*shotsDir, name), shot, 0o644)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	for _, m := range check.Missing {
		t.Errorf("announced section %q missing or not rendered", m)
	}
	for _, b := range check.Bad {
		t.Errorf("chart problem: %s", b)
	}
	if len(check.Sections) == 0 {
		t.Error("page has no sections")
	}
	if elapsed > *maxRender {
		t.Errorf("rendering took %v (limit %v)", elapsed, *maxRender)
	}
	t.Logf("%s: %d sections, %d charts, rendered in %v", filepath.Base(path), len(check.Sections), check.Charts, elapsed.Round(time.Millisecond))
}

type checkResult struct {
	Sections []string `json:"sections"`
	Missing  []string `json:"missing"`
	Charts   int      `json:"charts"`
	Bad      []string `json:"bad"`
	Height   float64  `json:"height"`
}

// checkScript runs in the page: every section the page announces (meta
// npukit-sections) exists with a visible box; every chart has marks, axis
// titles with text, and a non-empty bounding box.
const checkScript = `(() => {
  const out = {sections: [], missing: [], charts: 0, bad: [], height: document.body.scrollHeight};
  const meta = document.querySelector('meta[name="npukit-sections"]');
  const want = meta && meta.content ? meta.content.split(',') : [];
  document.querySelectorAll('section').forEach(s => out.sections.push(s.id));
  for (const id of want) {
    const el = document.getElementById(id);
    if (!el || el.getBoundingClientRect().height < 10) out.missing.push(id);
  }
  document.querySelectorAll('svg.chart').forEach((svg, i) => {
    out.charts++;
    const where = (svg.closest('section') || {}).id + ' chart ' + i;
    const box = svg.getBoundingClientRect();
    if (box.width < 100 || box.height < 40) out.bad.push(where + ': too small ' + box.width + 'x' + box.height);
    if (svg.querySelectorAll('rect.mark').length === 0) out.bad.push(where + ': no marks');
    const titles = [...svg.querySelectorAll('.axis-title')].filter(t => t.textContent.trim() !== '');
    if (titles.length === 0) out.bad.push(where + ': no labelled axis');
    const fig = svg.closest('figure');
    if (svg.querySelectorAll('rect.mark').length > 0 && fig && !fig.querySelector('.legend') && !svg.classList.contains('no-legend')) out.bad.push(where + ': no legend');
  });
  return out;
})()`
