package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctx0/ctx0/internal/words"
)

// Rebuild builds the index again from the files: into a new file, which
// then replaces the old one, so that no reader ever sees half an index.
// Other processes that write the index wait until it is done.
func (ix *Index) Rebuild(ctx context.Context) (Report, error) {
	err := ix.rebuild(ctx, "", false)
	return ix.LastCheck(), err
}

// rebuild rebuilds the index and opens the new file, saying why in a
// notice unless reason is "" (a rebuild someone asked for). held says the
// caller holds the write lock already: flock is per open file, so taking
// it again would wait for ourselves. ix.mu must not be held: the write
// lock is always taken first, as another goroutine may hold it while it
// waits for ix.mu.
func (ix *Index) rebuild(ctx context.Context, reason string, held bool) error {
	start := ix.now()
	if !held {
		unlock, err := lockFile(ctx, ix.writeLock(), false)
		if err != nil {
			return fmt.Errorf("rebuild index: %w", err)
		}
		defer unlock()
	}
	if reason != "" {
		// Another process, or goroutine, may have rebuilt it while we waited.
		ix.mu.Lock()
		moved := ix.db == nil || !sameFile(ix.path, ix.ident)
		if moved {
			if r, err := ix.tryOpen(ctx); err == nil && r == "" {
				ix.mu.Unlock()
				return nil
			}
		}
		ix.mu.Unlock()
	}
	tmp := fmt.Sprintf("%s-new-%d", ix.path, os.Getpid())
	defer os.Remove(tmp) // gone after the rename; left behind only on failure
	removeAbandonedBuilds(ix.path, tmp)
	n, err := ix.build(ctx, tmp, reason)
	if err != nil {
		return fmt.Errorf("rebuild index %s: %w", ix.path, err)
	}
	if err := ix.swap(ctx, tmp); err != nil {
		return fmt.Errorf("rebuild index %s: %w", ix.path, err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if r, err := ix.tryOpen(ctx); err != nil || r != "" {
		return fmt.Errorf("rebuild index %s: the new file is unusable: %v%v", ix.path, r, err)
	}
	ix.last = Report{Check: CheckRebuild, Entries: n, Added: n, Took: ix.now().Sub(start)}
	return nil
}

// removeAbandonedBuilds removes the files of builds that stopped midway
// (path-new-<pid>, left by a killed process). The caller holds the write
// lock, which every build holds throughout, so any such file other than
// its own, keep, belongs to no running build. The mark of a build started
// in the background (EnsureBuilding) goes too: this is that build, or
// makes it needless.
func removeAbandonedBuilds(path, keep string) {
	os.Remove(path + "-starting")
	ents, _ := os.ReadDir(filepath.Dir(path))
	prefix := filepath.Base(path) + "-new-"
	for _, e := range ents {
		if f := filepath.Join(filepath.Dir(path), e.Name()); strings.HasPrefix(e.Name(), prefix) && f != keep {
			os.Remove(f)
		}
	}
}

// swap renames the new index file into place.
func (ix *Index) swap(ctx context.Context, tmp string) error {
	unlock, err := lockFile(ctx, ix.openLock(), false)
	if err != nil {
		return err
	}
	defer unlock()
	// The old file's WAL must not be read as the new file's. Processes that
	// still have the old file open keep their own handles to both.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(ix.path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return os.Rename(tmp, ix.path)
}

// parsed is a worker's result for one file.
type parsed struct {
	rec *record
	err error
}

// aheadOfWriter bounds how many parsed files wait for the writer, and so
// the memory a rebuild takes.
const aheadOfWriter = 256

// build writes a complete index of the vault into the file tmp and returns
// the number of entries. Files are parsed on all cores and written by one
// transaction in the order of their mtimes, so that ids (see the entries
// table) start out ordered by how recently each file changed.
func (ix *Index) build(ctx context.Context, tmp, reason string) (n int, err error) {
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	db, err := openDB(tmp, buildPragmas)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	if err := createSchema(ctx, db); err != nil {
		return 0, err
	}
	now := ix.now()
	folders, files, err := walkTree(ctx, ix.root, "", now)
	if err != nil {
		return 0, err
	}
	if reason != "" {
		ix.notify(fmt.Sprintf("the index %s %s; rebuilding it from %s", File, reason, words.Plural(len(files), "file", "files")))
	}
	slices.SortFunc(files, func(a, b fileStamp) int {
		return cmp.Or(cmp.Compare(a.stamp.mtime, b.stamp.mtime), cmp.Compare(a.name, b.name))
	})
	p := parseInOrder(ctx, ix.root, files, now)
	defer p.stop()
	err = withTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		if n, err = ix.writeAll(ctx, tx, files, p); err != nil {
			return err
		}
		if err := putFolders(ctx, tx, folders); err != nil {
			return err
		}
		if err := putLists(ctx, tx, listsOf(folders, files, now), nil); err != nil {
			return err
		}
		return ix.finishTables(ctx, tx)
	})
	if err != nil {
		return 0, err
	}
	// A damaged old file has been noticed already; its vectors are lost
	// with it.
	if err := carryVectors(ctx, db, ix.path); err != nil && !isCorrupt(err) {
		ix.notify(fmt.Sprintf("the embeddings in %s could not be kept (%v); they will be made again", File, err))
	}
	for _, s := range []string{fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion), `PRAGMA journal_mode = WAL`} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// createSchema makes the tables of a new index file.
func createSchema(ctx context.Context, db *sql.DB) error {
	for _, s := range schemaTables {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	for _, t := range ftsTables {
		if _, err := db.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, rank) VALUES ('usermerge', 2)`); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	return nil
}

// parsing reads and parses files on every core and hands them to one
// writer in their order, never more than aheadOfWriter files ahead of it.
type parsing struct {
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	results []chan parsed // one per file, each filled once
	ahead   chan struct{} // a token per file handed out and not yet taken
}

// parseInOrder starts parsing files under root. The caller takes them with
// next, in order, and must call stop.
func parseInOrder(ctx context.Context, root string, files []fileStamp, now time.Time) *parsing {
	p := &parsing{
		results: make([]chan parsed, len(files)),
		ahead:   make(chan struct{}, aheadOfWriter),
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	for i := range p.results {
		p.results[i] = make(chan parsed, 1)
	}
	jobs := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		p.wg.Go(func() {
			for i := range jobs {
				r, err := readRecord(root, files[i].name, now)
				p.results[i] <- parsed{r, err}
			}
		})
	}
	p.wg.Go(func() {
		defer close(jobs)
		for i := range files {
			select {
			case p.ahead <- struct{}{}:
			case <-p.ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-p.ctx.Done():
				return
			}
		}
	})
	return p
}

// next waits for the file at i, which must follow the one taken before.
func (p *parsing) next(i int) (parsed, error) {
	select {
	case r := <-p.results[i]:
		<-p.ahead
		return r, nil
	case <-p.ctx.Done():
		return parsed{}, p.ctx.Err()
	}
}

// stop ends the parsing of files not handed out yet and waits for the
// workers.
func (p *parsing) stop() {
	p.cancel()
	p.wg.Wait()
}

// writeAll writes the entries of files, parsed by p, and returns how many
// it wrote. The newest recentSize files are marked recent.
func (ix *Index) writeAll(ctx context.Context, tx *sql.Tx, files []fileStamp, p *parsing) (int, error) {
	n := 0
	w := newWriter(tx)
	defer w.close()
	for i := range files {
		r, err := p.next(i)
		if err != nil {
			return n, err
		}
		if errors.Is(r.err, errGone) {
			continue
		}
		if r.err != nil {
			return n, r.err
		}
		if _, err := w.put(ctx, r.rec, i >= len(files)-recentSize); err != nil {
			return n, err
		}
		n++
		if n%100 == 0 || i == len(files)-1 {
			ix.progress(i+1, len(files))
		}
	}
	return n, nil
}

// finishTables readies the filled tables for searching: merged FTS5
// segments, the secondary indexes, resolved links and the build time.
func (ix *Index) finishTables(ctx context.Context, tx *sql.Tx) error {
	// One segment per FTS5 table (see ftsTables): the bulk insert
	// leaves many. At 100k entries that is a quarter of a search's
	// time, for a tenth more rebuild.
	for _, t := range ftsTables {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`) VALUES ('optimize')`); err != nil {
			return fmt.Errorf("optimize %s: %w", t, err)
		}
	}
	for _, s := range schemaIndexes {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("create index: %w", err)
		}
	}
	if err := resolveWhere(ctx, tx, "1"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)`, metaBuilt, utc(ix.clock())); err != nil {
		return err
	}
	return nil
}

// putFolders records folders and their mtimes.
func putFolders(ctx context.Context, tx *sql.Tx, folders []folderStamp) error {
	st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO folders(path, mtime, settled) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, f := range folders {
		if _, err := st.ExecContext(ctx, f.path, f.mtime, f.settled); err != nil {
			return fmt.Errorf("index folder %s: %w", f.path, err)
		}
	}
	return nil
}
