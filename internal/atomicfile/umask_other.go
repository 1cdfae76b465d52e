//go:build !unix

package atomicfile

import "os"

func readUmask() os.FileMode { return 0 }
