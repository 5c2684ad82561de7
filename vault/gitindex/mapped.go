package gitindex

import (
	"runtime/debug"
)

// readMapped runs fn, which reads a mapped index file, and returns a read
// fault as an error. The file is replaced, never changed in place, by git
// and by Apply, which both hold index.lock; a tool that truncated it in
// place would fault the reader, which must then fail, not crash.
func readMapped(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = corruptf("the index file changed while it was read")
		}
	}()
	return fn()
}
