//go:build !unix

package index

import "io/fs"

// inodeOf is 0: the system gives no inode numbers, and the folder check
// stats every file of a folder instead (see listNames).
func inodeOf(fs.FileInfo) uint64 { return 0 }
