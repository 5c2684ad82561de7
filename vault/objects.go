package vault

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// looseLevel is the zlib level of the loose objects ctx0 writes: git's own
// default for them (core.looseCompression). go-git writes them at zlib's
// default level, which spent more time on the 40 KB tree of a folder of
// 1,000 entries than the rest of a write.
const looseLevel = zlib.BestSpeed

// looseStoredLevel is the zlib level of the trees and the small objects
// ctx0 writes: none (stored blocks, as core.looseCompression 0 writes them,
// valid zlib that any git reads). A tree is mostly object hashes and
// compresses poorly (the 60 KB tree of a folder of 1,000 entries to 36
// KB), while compressing it was the largest part of a write's own CPU
// after the index (1.5 ms of a remember at 10,000 entries), and reading it
// back the next write's inflate. An object of at most looseSmall bytes (an
// entry's blob, a commit) takes one file system block compressed or not,
// and compressing it cost making a compressor, 370 KB of fresh memory (90
// page faults) in a process that writes one. The tree files take more room
// until a repack packs them.
const looseStoredLevel = zlib.NoCompression

// looseSmall is the largest object written without compression whatever
// its type: with zlib's header and trailer, one 4 KB block.
const looseSmall = 4000

// looseWriters keep zlib's state, hundreds of kilobytes, from one object to
// the next, one pool per level.
var looseWriters = map[int]*sync.Pool{looseLevel: writerPool(looseLevel), looseStoredLevel: writerPool(looseStoredLevel)}

func writerPool(level int) *sync.Pool {
	return &sync.Pool{New: func() any {
		w, _ := zlib.NewWriterLevel(nil, level) // the level is valid
		return w
	}}
}

// looseLevelOf is the zlib level for an object of type t and size bytes.
func looseLevelOf(t plumbing.ObjectType, size int64) int {
	if t == plumbing.TreeObject || size <= looseSmall {
		return looseStoredLevel
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
	pool := looseWriters[looseLevelOf(obj.Type(), obj.Size())]
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

// encodeTree is the content of a tree object holding entries, sorted as git
// sorts them: for each, its mode in octal, a space, its name, a NUL and its
// object's hash. It is what go-git's Tree.Encode writes, built in one
// buffer rather than with a formatted write per entry (0.8 ms for a folder
// of 1,000 entries, more than compressing it takes now).
func encodeTree(entries []object.TreeEntry) ([]byte, error) {
	n := 0
	for _, e := range entries {
		n += len(e.Name) + 8 + len(e.Hash)
	}
	b := make([]byte, 0, n)
	for i, e := range entries {
		if e.Name == "" || strings.IndexByte(e.Name, 0) >= 0 {
			return nil, fmt.Errorf("encode tree: malformed file name %q", e.Name)
		}
		if i > 0 && compareTreeNames(entries[i-1], e) >= 0 {
			return nil, fmt.Errorf("encode tree: %q and %q are out of git's order", entries[i-1].Name, e.Name)
		}
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	return b, nil
}

// compareTreeNames compares a and b in git's order of a tree's entries:
// by name, a folder's as if it ended in "/".
func compareTreeNames(a, b object.TreeEntry) int {
	n := min(len(a.Name), len(b.Name))
	if c := strings.Compare(a.Name[:n], b.Name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(treeNameByte(a, n), treeNameByte(b, n))
}

// treeNameByte is the byte at i of e's name in git's order, past its end
// "/" for a folder and nothing (-1) for a file, then nothing.
func treeNameByte(e object.TreeEntry, i int) int {
	switch {
	case i < len(e.Name):
		return int(e.Name[i])
	case i == len(e.Name) && e.Mode == filemode.Dir:
		return '/'
	}
	return -1
}

// errMalformedTree says a tree object's content is not a tree.
var errMalformedTree = errors.New("malformed tree")

// decodeTree reads the entries of a tree object's content, as go-git's
// Tree.Decode reads them (modes made canonical as it makes them), without
// a buffered reader and a string per field.
func decodeTree(b []byte) ([]object.TreeEntry, error) {
	n := 0
	for _, c := range b {
		if c == 0 {
			n++
		}
	}
	entries := make([]object.TreeEntry, 0, n)
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%w: missing mode terminator", errMalformedTree)
		}
		mode, err := filemode.New(string(b[:sp]))
		if err != nil {
			return nil, fmt.Errorf("%w: malformed mode", errMalformedTree)
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		switch {
		case nul < 0:
			return nil, fmt.Errorf("%w: missing filename terminator", errMalformedTree)
		case nul == 0:
			return nil, fmt.Errorf("%w: empty filename", errMalformedTree)
		}
		e := object.TreeEntry{Name: string(b[:nul]), Mode: canonicalTreeMode(mode)}
		b = b[nul+1:]
		if len(b) < len(e.Hash) {
			return nil, fmt.Errorf("%w: truncated object id", errMalformedTree)
		}
		copy(e.Hash[:], b)
		b = b[len(e.Hash):]
		entries = append(entries, e)
	}
	return entries, nil
}

// canonicalTreeMode is the mode go-git gives an entry of mode m: git's
// canonical one of its kind.
func canonicalTreeMode(m filemode.FileMode) filemode.FileMode {
	switch m & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if m&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	default:
		return filemode.Submodule
	}
}

// treeEntries reads the entries of the tree h.
func (v *Vault) treeEntries(h plumbing.Hash) ([]object.TreeEntry, error) {
	obj, err := v.repo.Storer.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return decodeTree(b)
}
