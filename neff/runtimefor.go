package neff

import "fmt"

// RuntimeFor is the runtime that loads NEFF majors up to maxMajor with
// the feature bits features: DefaultRuntime when both are its own, else a
// runtime named by that description (not Assumed: a runtime the caller
// names is a gate).
func RuntimeFor(maxMajor, features uint64) Runtime {
	if maxMajor == DefaultRuntime.MaxMajor && features == DefaultRuntime.Features {
		return DefaultRuntime
	}
	return Runtime{Name: fmt.Sprintf("a runtime loading NEFF major <= %d with feature bits %#x", maxMajor, features),
		MaxMajor: maxMajor, Features: features}
}
