package link

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/humanize"
)

// Written is what WriteDir wrote: the linked chunks of one executable,
// their sizes, the patches and whether the output was verified.
type Written struct {
	Dir        string  `json:"dir"`
	Executable int     `json:"executable"`
	Chunks     []int   `json:"chunk_bytes"`
	Patches    []Patch `json:"patches"`
	Verified   bool    `json:"verified"`
}

// WriteDir writes the linked chunks of executable into dir as
// chunk_N.bin with patches.json (the Written record), atomically: dir
// appears complete or not at all, and a non-empty dir is replaced only
// with force. Chunks that share storage (Same) are written once and
// hard-linked. With verify the chunks are read back and Verify proves
// against orig that exactly the relocation bits changed.
func WriteDir(dir string, force bool, executable int, orig, linked [][]byte, patches []Patch, verify bool) (*Written, error) {
	res := &Written{Dir: dir, Executable: executable, Patches: patches}
	err := atomicfile.Dir(dir, force, func(tmp string) error {
		same := Same(linked)
		for i, c := range linked {
			p, err := atomicfile.Join(tmp, fmt.Sprintf("chunk_%d.bin", i))
			if err != nil {
				return err
			}
			if same[i] == i {
				err = os.WriteFile(p, c, 0o644)
			} else {
				err = os.Link(filepath.Join(tmp, fmt.Sprintf("chunk_%d.bin", same[i])), p)
			}
			if err != nil {
				return err
			}
			res.Chunks = append(res.Chunks, len(c))
		}
		if verify {
			reread := make([][]byte, len(linked))
			for i := range linked {
				if same[i] != i {
					reread[i] = reread[same[i]]
					continue
				}
				b, err := os.ReadFile(fmt.Sprintf("%s/chunk_%d.bin", tmp, i))
				if err != nil {
					return err
				}
				reread[i] = b
			}
			if err := Verify(orig, reread, patches); err != nil {
				return fmt.Errorf("verification failed: %w", err)
			}
			res.Verified = true
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(tmp+"/patches.json", append(b, '\n'), 0o644)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// WriteText lists the patches, one line per field written.
func (o *Written) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Linked executable %d: %d chunks, %d fields patched, written to %s\n", o.Executable, len(o.Chunks), len(o.Patches), o.Dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  CHUNK\tBIT\tKIND\tHALF\tLAYER\tBATCH\tVALUE")
	for _, p := range o.Patches {
		half := "LOWER"
		if p.Position == Upper32 {
			half = "UPPER"
		}
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%d\t0x%08x\n", p.Chunk, p.OffsetBit, p.Kind, half, humanize.Shorten(p.Name, humanize.NameColumn), p.Batch, p.Value)
	}
	tw.Flush()
	if o.Verified {
		fmt.Fprintln(w, "Verified: exactly the relocation bits changed, and they hold the requested values.")
	}
	return nil
}
