package gitindex

import (
	"context"
	"os"
	"sync"
	"time"
)

// Cache keeps, for a process that writes the index again and again (a
// watcher taking other processes' writes, the MCP server, the daemon), the
// bytes of the index file it last wrote and that file's stamp. The next
// write that finds the file as it left it (same size, times, inode and
// trailing checksum) splices those bytes instead of reading the file and
// verifying its checksum again; any other program's write (a person's
// `git add`) changes the stamp, and the file is read as without a cache.
//
// The first write through a Cache keeps nothing: a process that writes
// once (the CLI) would pay to copy the index for no later write. The zero
// Cache is ready to use; a nil *Cache keeps nothing.
type Cache struct {
	mu     sync.Mutex
	path   string
	data   []byte // the index file at path, as this process last wrote or kept it
	stamp  fileStamp
	free   []byte // a buffer for the next index written
	writes int
	hits   int // writes that spliced data without reading the file
}

// Prepare is PrepareWithLock reading and keeping the index through c.
func (c *Cache) Prepare(ctx context.Context, gitDir string, updates []Update, lock Locker) (*Prepared, error) {
	return prepare(ctx, gitDir, updates, lock, c)
}

// Hits tells how many writes spliced the kept index without reading the
// file.
func (c *Cache) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// fileStamp tells whether a file was replaced or written since it was
// stamped. Its trailer is the index's checksum of its content: a file of
// the same size and trailer holds the same bytes.
type fileStamp struct {
	size    int64
	mtime   time.Time
	dev     uint64
	ino     uint64
	ctime   int64 // nanoseconds, where the system gives it
	trailer [trailerLen]byte
}

func stampOf(fi os.FileInfo, data []byte) fileStamp {
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	s.dev, s.ino, s.ctime = sysStamp(fi)
	if len(data) >= trailerLen {
		copy(s.trailer[:], data[len(data)-trailerLen:])
	}
	return s
}

// kept is the index a write took from its Cache.
type kept struct {
	data  []byte
	stamp fileStamp
}

// take returns the kept index if the file at path is still the one it
// was, and otherwise nil; either way the cache holds no index until the
// write that took it puts one back.
func (c *Cache) take(path string) ([]byte, *kept) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	c.writes++
	data, st := c.data, c.stamp
	c.data = nil
	samePath := c.path == path
	c.mu.Unlock()
	if data == nil || !samePath {
		return nil, nil
	}
	if !sameFile(path, st) {
		c.mu.Lock()
		c.free = data
		c.mu.Unlock()
		return nil, nil
	}
	c.mu.Lock()
	c.hits++
	c.mu.Unlock()
	return data, &kept{data: data, stamp: st}
}

// sameFile tells whether the file at path still has stamp st, its last
// bytes included.
func sameFile(path string, st fileStamp) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < trailerLen {
		return false
	}
	var tail [trailerLen]byte
	if _, err := f.ReadAt(tail[:], fi.Size()-trailerLen); err != nil {
		return false
	}
	return stampOf(fi, tail[:]) == st
}

// keeps tells whether the write under way should keep what it writes.
func (c *Cache) keeps() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes > 1
}

// spare returns an empty buffer to write the next index into.
func (c *Cache) spare() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.free[:0]
	c.free = nil
	return b
}

// put keeps data, the file at path with stamp st.
func (c *Cache) put(path string, data []byte, st fileStamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.path, c.data, c.stamp = path, data, st
}

// putWritten keeps data, just renamed into place at path, and old, the
// index it replaced, as the buffer for the next write. An index whose
// trailer is all zero (index.skipHash) is not kept: its trailer proves
// nothing of its content.
func (c *Cache) putWritten(path string, data, old []byte) {
	fi, err := os.Stat(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old != nil {
		c.free = old
	}
	if err != nil || len(data) < trailerLen || allZero(data[len(data)-trailerLen:]) || fi.Size() != int64(len(data)) {
		return
	}
	c.path, c.data, c.stamp = path, data, stampOf(fi, data)
}

// keptIndex collects the index as it is written.
type keptIndex struct{ data []byte }

func (k *keptIndex) Write(p []byte) (int, error) {
	k.data = append(k.data, p...)
	return len(p), nil
}
