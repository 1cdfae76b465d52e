// Package simhook lets a test see every simulation of a NeuronCore plan
// or of a NEFF's program (neuroncore calls Simulated with the plan each
// time it simulates one, dmaprog with each subgraph's program), so that a
// test can hold a command to one simulation per plan by counting them
// rather than by its time or memory (nki report simulated the placed plan
// twice, the unplaced one twice too; report --measured simulated a NEFF
// three times).
package simhook

import "sync/atomic"

var hook atomic.Pointer[func(plan any)]

// Set calls f with the plan of every simulation from now on, until the
// returned function restores the hook there was.
func Set(f func(plan any)) (restore func()) {
	old := hook.Swap(&f)
	return func() { hook.Store(old) }
}

// Simulated reports one simulation of plan to the hook, if one is set.
func Simulated(plan any) {
	if f := hook.Load(); f != nil {
		(*f)(plan)
	}
}
