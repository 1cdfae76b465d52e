package gemini

import (
	"os"
	"testing"
)

// BenchmarkReadCheck reads and checks the schedule named by
// $NPUKIT_GEMINI_BENCH_FILE (skipped when unset), for profiling the reader
// on large files: go test -run X -bench ReadCheck -cpuprofile cpu.out.
func BenchmarkReadCheck(b *testing.B) {
	p := os.Getenv("NPUKIT_GEMINI_BENCH_FILE")
	if p == "" {
		b.Skip("NPUKIT_GEMINI_BENCH_FILE not set")
	}
	for i := 0; i < b.N; i++ {
		s, err := ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		Check(s)
	}
}

// BenchmarkSynthRead reads a synthetic schedule from memory.
func BenchmarkSynthRead(b *testing.B) {
	s, err := Synth(SynthConfig{Cores: 4, Workloads: 500})
	if err != nil {
		b.Fatal(err)
	}
	var buf writeBuf
	if err := Write(&buf, s); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ReadBytes(buf); err != nil {
			b.Fatal(err)
		}
	}
}

type writeBuf []byte

func (w *writeBuf) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}
