//go:build !linux

package index

// direntFile is a name in a folder with its inode number and type.
type direntFile struct {
	name string
	ino  uint64
	dir  bool
	reg  bool
}

// readDirents gives nothing here (ok false): the folder check stats every
// file of a folder instead.
func readDirents(string) ([]direntFile, bool, error) { return nil, false, nil }
