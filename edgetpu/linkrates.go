package edgetpu

import (
	"fmt"

	"github.com/npukit/npukit/edgetpu/dmaplan"
)

// Two rates of one host link appear in npukit's outputs, and each output
// that gives one relates it to the other: the raw signalling rate
// (dmaplan.DefaultLinks: the lower bounds of edgetpu dma and of check's
// infos) and the effective rate the latency model (sim) charges, which a
// host class's Edge TPU rows achieve (HostClass.LinkMBps).

// gbps prints a rate in GB/s (10^9 bytes per second), as every rate here.
func gbps(bytesPerSec float64) string { return fmt.Sprintf("%.3g GB/s", bytesPerSec/1e9) }

// rawLink is the raw rate of the link named name (false: not one of
// dmaplan.DefaultLinks).
func rawLink(name string) (dmaplan.Link, bool) {
	for _, l := range dmaplan.DefaultLinks() {
		if l.Name == name {
			return l, true
		}
	}
	return dmaplan.Link{}, false
}

// LinkRateText words a host class's link with both rates: "USB 3.0 at
// 0.47 GB/s effective (raw 0.625 GB/s, the rate of edgetpu dma's lower
// bounds)".
func LinkRateText(h HostClass) string {
	s := fmt.Sprintf("%s at %s effective", h.Link, gbps(h.LinkMBps*1e6))
	if l, ok := rawLink(h.Link); ok {
		s += fmt.Sprintf(" (raw %s, the rate of edgetpu dma's lower bounds)", gbps(l.BitsPerSec/8))
	}
	return s
}

// EffectiveLinks lists the effective rates sim charges on each of
// dmaplan.DefaultLinks, with the host classes that use each rate.
func EffectiveLinks() []dmaplan.EffectiveLink {
	var out []dmaplan.EffectiveLink
	for _, l := range dmaplan.DefaultLinks() {
		at := map[float64]int{}
		for _, h := range hostClasses {
			if h.Link != l.Name {
				continue
			}
			i, ok := at[h.LinkMBps]
			if !ok {
				i = len(out)
				at[h.LinkMBps] = i
				out = append(out, dmaplan.EffectiveLink{Link: l.Name, GBps: h.LinkMBps / 1e3})
			}
			out[i].Hosts = append(out[i].Hosts, h.Name)
		}
	}
	return out
}

// streamedLinkText words a transfer of bytes that crosses the host link
// every inference: its lower bounds at the raw rates, and what sim charges
// on the default host class.
func streamedLinkText(bytes int64) string {
	h, _ := HostByName(DefaultHost)
	return fmt.Sprintf("at least %s, the raw link rates; npukit sim charges %s on %s, at %s effective",
		linkBounds(bytes), ms(linkUs(h, bytes)), h.Name, gbps(h.LinkMBps*1e6))
}
