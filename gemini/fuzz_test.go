package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"-1":{"in":[],"out":[]},"0":[],"buffersize":1024,"xlen":1,"ylen":1,"top_batch_cut":1}`))
	f.Add([]byte(`{"1":[{"ifmap":{"transfer_id":[0]},"buffer":[{"block":1}]}],"xlen":2}`))
	// Third-party writers' conventions (writers_test.go, identity_test.go).
	for _, doc := range []string{rawBufferDeps, renumberedSlice, lastConsumerPerCore, prefetchedWeight, weightDefaultZero, strings.ReplaceAll(positionalSchedule, "%s", "200")} {
		f.Add([]byte(doc))
	}
	if base := conformance.SharedDir(); base != "" {
		m, _ := filepath.Glob(filepath.Join(base, "corpus", "gemini", "*.json"))
		for _, p := range m {
			if b, err := os.ReadFile(p); err == nil && len(b) < 1<<21 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadBytes(b)
		if err != nil {
			return
		}
		Check(s)
		Summarize(s, true)
		for _, c := range s.Cores {
			s.Lifetimes(c)
		}
	})
}
