package vault

import (
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// openRepo opens the git repository whose work tree is root and whose
// git folder is dot, with its storage safe for the goroutines of one
// process (sharedStorage).
func openRepo(root, dot string) (*git.Repository, error) {
	if fi, err := os.Stat(dot); err != nil || !fi.IsDir() {
		return nil, git.ErrRepositoryNotExists
	}
	return git.Open(newSharedStorage(dot), osfs.New(root))
}

// newSharedStorage is the storage of the git folder dot.
func newSharedStorage(dot string) *sharedStorage {
	st := filesystem.NewStorage(osfs.New(dot), cache.NewObjectLRUDefault())
	return &sharedStorage{Storage: st, objects: filepath.Join(dot, "objects"), loose: cache.NewObjectLRU(looseCache)}
}

// sharedStorage is a repository's storage shared by the goroutines of one
// process: the daemon's parts, the MCP server's requests. go-git's object
// storage keeps a map of the pack indexes that it fills on the first read
// of an object, again on the first read after Reindex (reloadPacks), and
// as a fetch adds a pack. Two goroutines filling it at once, or one
// emptying it while another fills it, write the map concurrently and crash
// the process ("assignment to entry in nil map"). So reads share mu and
// the map is only ever filled, emptied or added to by one holding it
// alone; once filled, concurrent reads of it are safe.
//
// Filling the map reads every pack's index (a quarter of a megabyte at
// 10,000 entries, ten times that at 100,000), while what a write reads,
// HEAD's commit and the trees on the paths it changes, is nearly always
// loose, written by the writes before it. So EncodedObject reads a loose
// object itself first, touching no map, and fills the map only for an
// object it does not find loose.
type sharedStorage struct {
	*filesystem.Storage
	objects string       // the objects folder, for reading loose objects
	loose   cache.Object // the loose objects read, as go-git keeps those it reads
	mu      sync.RWMutex
	filled  bool // the map of pack indexes is filled (guarded by mu)
}

// looseCache bounds the loose objects kept once read: a write reads the
// tree of the folder it writes to twice (the journal, the new tree), 40 KB
// to inflate for a folder of 1,000 entries.
const looseCache = 8 * cache.MiByte

// read holds mu shared with the map filled, and returns the unlock.
func (s *sharedStorage) read() (unlock func()) {
	for {
		s.mu.RLock()
		if s.filled {
			return s.mu.RUnlock
		}
		s.mu.RUnlock()
		s.mu.Lock()
		s.fill()
		s.mu.Unlock()
	}
}

// fill fills the map of pack indexes, under mu held alone. go-git fills it
// on the first object it cannot find loose; an error leaves it as go-git
// does, and the read that follows reports it.
func (s *sharedStorage) fill() {
	if !s.filled {
		_ = s.Storage.HasEncodedObject(plumbing.ZeroHash)
		s.filled = true
	}
}

// Reindex makes the storage list the packs again on the next read.
func (s *sharedStorage) Reindex() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Storage.Reindex()
	s.filled = false
}

func (s *sharedStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, ok := s.loose.Get(h)
	if !ok {
		var err error
		if obj, err = readLoose(s.objects, h); err == nil {
			s.loose.Put(obj)
		}
	}
	if obj != nil && (t == plumbing.AnyObject || obj.Type() == t) {
		return obj, nil
	}
	// Not loose, or not readable as one: go-git looks in the packs and
	// says what is wrong.
	defer s.read()()
	return s.Storage.EncodedObject(t, h)
}

func (s *sharedStorage) HasEncodedObject(h plumbing.Hash) error {
	defer s.read()()
	return s.Storage.HasEncodedObject(h)
}

func (s *sharedStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	defer s.read()()
	return s.Storage.EncodedObjectSize(h)
}

func (s *sharedStorage) DeltaObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	defer s.read()()
	return s.Storage.DeltaObject(t, h)
}

func (s *sharedStorage) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	defer s.read()()
	return s.Storage.IterEncodedObjects(t)
}

func (s *sharedStorage) HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error) {
	defer s.read()()
	return s.Storage.HashesWithPrefix(prefix)
}

// PackfileWriter is the writer a fetch stores its pack with: go-git adds
// the pack's index to the map when the writer is closed, so the close
// holds mu alone, and fills the map first: another goroutine may have
// emptied it (Reindex, as every write lock does) while the pack came in,
// and go-git adds to the map without looking (a nil map: the daemon's
// sync crashed there).
func (s *sharedStorage) PackfileWriter() (io.WriteCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fill()
	w, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &packfileWriter{WriteCloser: w, s: s}, nil
}

type packfileWriter struct {
	io.WriteCloser
	s *sharedStorage
}

func (w *packfileWriter) Close() error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.fill()
	return w.WriteCloser.Close()
}
