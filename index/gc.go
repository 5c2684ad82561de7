package index

import (
	"runtime/debug"
	"sync"
)

// walkGCPercent is the garbage collector's target while a full check walks
// the vault. The walk holds a name and a stamp for every file: at 100,000
// files the heap grows from a few MB to about 16 MB, and with the default
// target (100) the collector ran seven times during it, each stopping the
// world and competing with the stats for the cores; that was a quarter of
// a whole-process `ctx0 search` without a watcher. The walk's own garbage
// is bounded by the vault's size, so a higher target costs tens of MB for
// the few hundred ms of the walk.
const walkGCPercent = 800

// gcRelief counts the walks under way, so that concurrent ones (a server's
// readers) raise the target once and the last one restores it.
var gcRelief struct {
	sync.Mutex
	n   int
	old int
}

// relaxGC raises the collector's target to walkGCPercent until the
// returned function is called, unless it is already higher or off.
func relaxGC() (restore func()) {
	gcRelief.Lock()
	defer gcRelief.Unlock()
	if gcRelief.n == 0 {
		gcRelief.old = debug.SetGCPercent(walkGCPercent)
		if gcRelief.old < 0 || gcRelief.old > walkGCPercent {
			debug.SetGCPercent(gcRelief.old)
		}
	}
	gcRelief.n++
	return func() {
		gcRelief.Lock()
		defer gcRelief.Unlock()
		if gcRelief.n--; gcRelief.n == 0 {
			debug.SetGCPercent(gcRelief.old)
		}
	}
}
