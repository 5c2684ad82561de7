package vault

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// looseLevel is the zlib level of the loose objects ctx0 writes: git's own
// default for them (core.looseCompression). go-git writes them at zlib's
// default level, which spent more time on the 40 KB tree of a folder of
// 1,000 entries than the rest of a write.
const looseLevel = zlib.BestSpeed

// looseTreeLevel is the zlib level of the tree objects ctx0 writes: none
// (stored blocks, as core.looseCompression 0 writes them, valid zlib that
// any git reads). A tree is mostly object hashes and compresses poorly (the
// 60 KB tree of a folder of 1,000 entries to 36 KB), while compressing it
// was the largest part of a write's own CPU after the index (1.5 ms of a
// remember at 10,000 entries), and reading it back the next write's
// inflate. The tree files take more room until a repack packs them.
const looseTreeLevel = zlib.NoCompression

// looseWriters keep zlib's state, hundreds of kilobytes, from one object to
// the next, one pool per level.
var looseWriters = map[int]*sync.Pool{looseLevel: writerPool(looseLevel), looseTreeLevel: writerPool(looseTreeLevel)}

func writerPool(level int) *sync.Pool {
	return &sync.Pool{New: func() any {
		w, _ := zlib.NewWriterLevel(nil, level) // the level is valid
		return w
	}}
}

// looseLevelOf is the zlib level for an object of type t.
func looseLevelOf(t plumbing.ObjectType) int {
	if t == plumbing.TreeObject {
		return looseTreeLevel
	}
	return looseLevel
}

// looseBuffers hold an object's compressed bytes until they go to its file
// in one write: zlib hands its output on every 240 bytes, so writing it
// straight to the file made some 80 system calls of the 20 KB tree of a
// folder of 1,000 entries.
var looseBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxLoose is the largest loose object readLoose reads into memory; go-git
// reads a larger one (a big attachment) as it reads any other.
const maxLoose = 64 << 20

// readLoose reads the loose object h from the objects folder, as git
// stores it: zlib-compressed, a header "<type> <size>" and a NUL, then the
// content.
func readLoose(objects string, h plumbing.Hash) (plumbing.EncodedObject, error) {
	name := h.String()
	f, err := os.Open(filepath.Join(objects, name[:2], name[2:]))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", name, err)
	}
	defer zr.Close()
	br := bufio.NewReader(zr)
	header, err := br.ReadString(0)
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", name, err)
	}
	typ, size, ok := strings.Cut(strings.TrimSuffix(header, "\x00"), " ")
	n, err := strconv.ParseInt(size, 10, 64)
	t, terr := plumbing.ParseObjectType(typ)
	if !ok || err != nil || terr != nil || n < 0 {
		return nil, fmt.Errorf("read object %s: bad header %q", name, header)
	}
	if n > maxLoose {
		return nil, fmt.Errorf("read object %s: %d bytes, more than ctx0 reads loose", name, n)
	}
	content := make([]byte, n)
	if _, err := io.ReadFull(br, content); err != nil {
		return nil, fmt.Errorf("read object %s: %w", name, err)
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(t)
	obj.SetSize(n)
	obj.Write(content)
	if obj.Hash() != h {
		return nil, fmt.Errorf("read object %s: its content hashes to %s", name, obj.Hash())
	}
	return obj, nil
}

// storeObject writes obj into the repository as a loose object, as git
// does: zlib-compressed into a temporary file beside its place, which is
// then renamed into place. An object the repository already holds loose is
// not written again.
func (v *Vault) storeObject(obj plumbing.EncodedObject) (h plumbing.Hash, err error) {
	h = obj.Hash()
	name := h.String()
	dir := filepath.Join(v.gitDir, "objects", name[:2])
	final := filepath.Join(dir, name[2:])
	defer func() {
		if err != nil {
			err = fmt.Errorf("store %s object %s: %w", obj.Type(), name, err)
		}
	}()
	if _, err := os.Lstat(final); err == nil {
		return h, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return h, err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return h, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	r, err := obj.Reader()
	if err != nil {
		return h, err
	}
	defer r.Close()
	buf := looseBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer looseBuffers.Put(buf)
	pool := looseWriters[looseLevelOf(obj.Type())]
	zw := pool.Get().(*zlib.Writer)
	defer pool.Put(zw)
	zw.Reset(buf)
	header := append(obj.Type().Bytes(), ' ')
	header = strconv.AppendInt(header, obj.Size(), 10)
	if _, err := zw.Write(append(header, 0)); err != nil {
		return h, err
	}
	if _, err := io.Copy(zw, r); err != nil {
		return h, err
	}
	if err := zw.Close(); err != nil {
		return h, err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return h, err
	}
	if err := f.Chmod(0o444); err != nil { // git's loose objects are read-only
		return h, err
	}
	if err := f.Close(); err != nil {
		return h, err
	}
	if err := os.Rename(f.Name(), final); err != nil {
		if _, serr := os.Lstat(final); serr == nil {
			os.Remove(f.Name()) // another writer stored it first
			return h, nil
		}
		return h, err
	}
	return h, nil
}
