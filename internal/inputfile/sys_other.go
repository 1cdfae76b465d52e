//go:build !unix

package inputfile

import "os"

const nonBlock, noFollow = 0, 0

func clearNonBlock(*os.File) error { return nil }

func totalMemory() int64 { return 0 }
