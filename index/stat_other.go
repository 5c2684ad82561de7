//go:build !unix

package index

import (
	"os"
	"path/filepath"
)

// statIn stats the files names (base names) in the folder dir and sets
// their stamps in out, and ok for those that are regular files.
func statIn(dir string, names []string, out []stamp, ok []bool) {
	for i, n := range names {
		if fi, err := os.Lstat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			out[i], ok[i] = stampOf(fi), true
		}
	}
}
