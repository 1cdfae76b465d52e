package cli

import (
	"sort"

	"github.com/npukit/npukit/detect"
	"github.com/spf13/pflag"
)

// KindFlag is one flag of a kind on one command, for the tests of package
// cli_test.
type KindFlag struct {
	Command, Name, Type string
	Kinds               []detect.Kind
}

// KindFlags lists every kind flag of every command, sorted.
func KindFlags() []KindFlag {
	var out []KindFlag
	for command := range kindFlagBinders {
		fs := pflag.NewFlagSet(command, pflag.ContinueOnError)
		bindKindFlags(command, fs)
		for name, kinds := range flagKinds[fs] {
			out = append(out, KindFlag{command, name, fs.Lookup(name).Value.Type(), kinds})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Command != out[j].Command {
			return out[i].Command < out[j].Command
		}
		return out[i].Name < out[j].Name
	})
	return out
}
