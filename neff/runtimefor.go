package neff

import (
	"fmt"
	"strconv"
	"strings"
)

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

// RuntimeOfFlags is the runtime check's --neff-runtime-major and
// --neff-runtime-features name. A feature mask given (named) is a gate:
// bits past it are errors, even when it is DefaultRuntime's; without one,
// they are an info or a warning whatever the major version (Assumed), so
// that giving the major's default equals not giving it.
func RuntimeOfFlags(maxMajor uint64, features string, named bool) (Runtime, error) {
	feats := DefaultRuntime.Features
	if named {
		f, err := strconv.ParseUint(strings.TrimSpace(features), 0, 64)
		if err != nil {
			return Runtime{}, err
		}
		feats = f
	}
	rt := RuntimeFor(maxMajor, feats)
	rt.Assumed = !named
	return rt, nil
}
