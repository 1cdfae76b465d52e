// Package progress reports a long run (the allocation solver) on a
// terminal or a log: what it is doing, the search nodes and the time so
// far.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/npukit/npukit/internal/humanize"
)

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Start reports a run named name on w: on a terminal one line is redrawn
// every 200 ms from the second second on and cleared at the end; on a
// pipe or a file a line is written after 2 s and then every 10 s, so a
// log shows that the command is working. Other writers than files get
// nothing. nodes records the search nodes so far, stage what the run is
// doing ("solving" at first); done stops the reporting.
func Start(w io.Writer, name string) (nodes func(int64), stage func(string), done func()) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, nil, func() {}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, nil, func() {}
	}
	term := st.Mode()&os.ModeCharDevice != 0
	var mu sync.Mutex
	var n int64
	what := "solving"
	start := time.Now()
	line := func() string {
		mu.Lock()
		defer mu.Unlock()
		s := fmt.Sprintf("%s: %s, %.0f s", name, what, time.Since(start).Seconds())
		if n > 0 {
			s += fmt.Sprintf(", %s nodes searched", humanize.Count(n))
		}
		return s
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		period, first := 10*time.Second, 2*time.Second
		if term {
			period, first = 200*time.Millisecond, time.Second
		}
		timer := time.NewTimer(first)
		defer timer.Stop()
		drawn := 0
		for {
			select {
			case <-stop:
				if term && drawn > 0 {
					fmt.Fprintf(f, "\r%s\r", strings.Repeat(" ", drawn))
				}
				return
			case <-timer.C:
				s := line()
				if term {
					pad := max(drawn-len(s), 0)
					fmt.Fprintf(f, "\r%s%s", s, strings.Repeat(" ", pad))
					drawn = len(s)
				} else {
					fmt.Fprintln(f, s)
				}
				timer.Reset(period)
			}
		}
	}()
	return func(x int64) {
			mu.Lock()
			n = max(n, x)
			mu.Unlock()
		}, func(s string) {
			mu.Lock()
			what = s
			mu.Unlock()
		}, func() {
			close(stop)
			<-finished
		}
}
