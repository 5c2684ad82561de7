//go:build !unix

package gitindex

import "os"

// readIndexFile returns the bytes of the index file at path and a function
// that releases them.
func readIndexFile(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
