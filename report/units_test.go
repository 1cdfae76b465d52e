package report

import "testing"

// A quantity never wraps: its unit stays on its line (a no-break space),
// a decimal point or a unit's slash is no break opportunity, while other
// words after a number and the separators of long names still wrap.
func TestKeepUnits(t *testing.T) {
	for in, want := range map[string]string{
		"Alone in its group: 3.4 MiB of 8.0 MiB SRAM.": "Alone in its group: 3.4\u00a0MiB of 8.0\u00a0MiB SRAM.",
		"0 errors, 1 warning":                          "0 errors, 1 warning",
		"at 0.47 GB/s, 12 us (50 %)":                   "at 0.47\u00a0GB/s, 12\u00a0us (50\u00a0%)",
		"3 B":                                          "3\u00a0B",
		"op 5 Bar":                                     "op 5 Bar",
	} {
		if got := keepUnits(in); got != want {
			t.Errorf("keepUnits(%q) = %q, want %q", in, got, want)
		}
	}
	long := "Alone in its group: 3.4 MiB at 0.47 GB/s, layer a/b_c.d;e"
	want := "Alone in its group: 3.4\u00a0MiB at 0.47\u00a0GB/s,<wbr> layer a/<wbr>b_<wbr>c.<wbr>d;<wbr>e"
	if got := breakable(long); got != want {
		t.Errorf("breakable:\n got %q\nwant %q", got, want)
	}
}
