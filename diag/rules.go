package diag

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// Rule describes one check. IDs are "<format>/<kebab-name>".
type Rule struct {
	ID          string   `json:"id"`
	Severity    Severity `json:"severity"`
	Description string   `json:"description"`
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Rule{}
	ruleIDForm = regexp.MustCompile(`^[a-z0-9]+/[a-z0-9]+(-[a-z0-9]+)*$`)
)

// Register adds rules to the global registry. It panics on a malformed or
// duplicate ID: both are programming errors caught by any test that imports
// the registering package.
func Register(rules ...Rule) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, r := range rules {
		if !ruleIDForm.MatchString(r.ID) {
			panic(fmt.Sprintf("diag: malformed rule ID %q", r.ID))
		}
		if r.Severity < Info || r.Severity > Error {
			panic(fmt.Sprintf("diag: rule %q has no severity", r.ID))
		}
		if _, dup := registry[r.ID]; dup {
			panic(fmt.Sprintf("diag: rule %q registered twice", r.ID))
		}
		registry[r.ID] = r
	}
}

// Lookup returns a registered rule.
func Lookup(id string) (Rule, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	r, ok := registry[id]
	return r, ok
}

// Rules returns every registered rule sorted by ID.
func Rules() []Rule {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
