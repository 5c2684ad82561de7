package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctx0/ctx0/internal/inode"
	"github.com/ctx0/ctx0/vault"
)

// The checks, as Report.Check names them.
const (
	// CheckRebuild: the index was built from nothing.
	CheckRebuild = "rebuild"
	// CheckFull compares every file's size and mtime with the index, then
	// the content of those that differ; it also makes the folder check.
	// It lists only the folders that changed since their files were
	// recorded (see folderList).
	CheckFull = "full"
	// CheckFolders compares the mtimes of the vault's folders with the
	// index and lists those that moved: it finds files added, removed,
	// renamed or replaced (editors that save by rename), not files edited
	// in place. The check of writes.
	CheckFolders = "folders"
	// CheckWatcher is the folder check after a running watcher has
	// confirmed that it has indexed every change made so far.
	CheckWatcher = "watcher"
	// CheckPaths updates the index for given paths only: a ctx0 write, a
	// batch of the watcher's events.
	CheckPaths = "paths"
)

// Report says what a check or a rebuild found and did.
type Report struct {
	Check   string        `json:"check"`
	Entries int           `json:"entries,omitempty"` // entries in the index afterwards, when counted
	Checked int           `json:"checked"`           // files compared with the index
	Added   int           `json:"added"`
	Updated int           `json:"updated"`
	Removed int           `json:"removed"`
	Took    time.Duration `json:"took_ns"`
}

// Changes is the number of entries the check added, updated or removed.
func (r Report) Changes() int { return r.Added + r.Updated + r.Removed }

// Refresh brings the index up to date with a full check, whether or not a
// watcher runs, and counts its entries: what `ctx0 index` does.
func (ix *Index) Refresh(ctx context.Context) (Report, error) {
	rep, err := ix.check(ctx, CheckFull)
	if err != nil {
		return rep, err
	}
	db, err := ix.handle(ctx)
	if err != nil {
		return rep, err
	}
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&rep.Entries)
	return rep, err
}

// LastCheck is what the last check or rebuild of this process found.
func (ix *Index) LastCheck() Report {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.last
}

// forRead makes the check a read needs and returns the database: the
// folder check if a watcher vouches for everything else, else the full one.
func (ix *Index) forRead(ctx context.Context) (*sql.DB, error) {
	if ix.checked {
		return ix.handle(ctx) // see Checked
	}
	level := CheckFull
	if ix.watcherSynced(ctx) {
		level = CheckWatcher
	}
	if _, err := ix.check(ctx, level); err != nil {
		return nil, err
	}
	return ix.handle(ctx)
}

// forWrite makes the folder check and returns the database: what the
// questions a write asks need, cheaply enough for every write.
//
// When a watcher runs in this process (the one that takes other
// processes' writes, the MCP server's, the daemon's), it is synced with
// first, as a read syncs with it: once it has indexed every change made
// before, it has recorded the folders' new stamps too, and a folder the
// previous write changed is not listed again.
func (ix *Index) forWrite(ctx context.Context) (*sql.DB, error) {
	level := CheckFolders
	if local := ix.localWatcher(); local != nil && ix.syncLocal(ctx, local) == nil {
		level = CheckWatcher
	}
	if _, err := ix.check(ctx, level); err != nil {
		return nil, err
	}
	db, err := ix.handle(ctx)
	if err == nil && level == CheckFolders {
		ix.wantWatcherForWrite(ctx, db)
	}
	return db, err
}

// check makes the check level, rebuilding the index once if it turns out
// to be damaged.
func (ix *Index) check(ctx context.Context, level string) (Report, error) {
	start := ix.now()
	rep, err := ix.checkOnce(ctx, level)
	if retry, derr := ix.damaged(ctx, err); retry {
		rep, err = ix.checkOnce(ctx, level)
	} else {
		err = derr
	}
	if err != nil {
		return rep, fmt.Errorf("check index %s: %w", ix.path, err)
	}
	rep.Took = ix.now().Sub(start)
	ix.mu.Lock()
	ix.last = rep
	ix.mu.Unlock()
	if level == CheckFull {
		ix.wantWatcher(rep)
	}
	return rep, nil
}

func (ix *Index) checkOnce(ctx context.Context, level string) (Report, error) {
	rep := Report{Check: level}
	db, err := ix.handle(ctx)
	if err != nil {
		return rep, err
	}
	// Look without the lock first: most checks find nothing to do.
	folders, err := loadFolders(ctx, db)
	if err != nil {
		return rep, err
	}
	// A watcher that has synced with us has seen every change, so a
	// folder whose mtime is too recent to trust alone is trusted.
	suspectFolders := surveyFolders(ix.root, folders, level == CheckWatcher)
	var (
		suspectNames []string
		lists        []folderList // folders the full check listed, to record
	)
	if level == CheckFull {
		if suspectNames, rep.Checked, lists, err = surveyFiles(ctx, db, ix.root, ix.now()); err != nil {
			return rep, err
		}
	}
	if len(suspectFolders) == 0 && len(suspectNames) == 0 {
		ix.keepLists(ctx, lists)
		return rep, nil
	}
	// The full check stats every file of a folder it lists; the others
	// compare its names and inode numbers with the index first.
	got, err := ix.updateListing(ctx, suspectFolders, suspectNames, nil, lists, nil, level != CheckFull)
	got.Check, got.Checked = level, max(rep.Checked, got.Checked)
	return got, err
}

// keepLists records the listings of folders that a full check which found
// nothing to update made, so that the next one need not list them again.
// It is a read's work, so it gives way: if another process holds the
// write lock, or the index cannot be written, the records are left for a
// later check to make, and the read has its answer all the same.
func (ix *Index) keepLists(ctx context.Context, lists []folderList) {
	if len(lists) == 0 {
		return
	}
	unlock, ok := tryLockFile(ix.writeLock())
	if !ok {
		return
	}
	defer unlock()
	db, err := ix.open(ctx, true)
	if err != nil {
		return
	}
	_ = withTx(ctx, db, func(tx *sql.Tx) error { return putLists(ctx, tx, lists, nil) })
}

// update brings the given folders and entries up to date, and records the
// given folder mtimes, under the write lock.
//
// seen, if not nil, hears of each entry file read and indexed, as it was
// read, once the index holds it.
func (ix *Index) update(ctx context.Context, folders, names []string, stamps []folderStamp, seen func(name string, fi fs.FileInfo)) (Report, error) {
	return ix.updateListing(ctx, folders, names, stamps, nil, seen, false)
}

// updateListing is update, also recording the listings lists (see
// folderList), and listing folders by their names and inode numbers first
// when byNames is set (see reconcile).
func (ix *Index) updateListing(ctx context.Context, folders, names []string, stamps []folderStamp, lists []folderList, seen func(name string, fi fs.FileInfo), byNames bool) (Report, error) {
	unlock, err := lockFile(ctx, ix.writeLock(), false)
	if err != nil {
		return Report{}, err
	}
	defer unlock()
	db, err := ix.open(ctx, true) // another process may have rebuilt it meanwhile
	if err != nil {
		return Report{}, err
	}
	return ix.reconcile(ctx, db, folders, names, stamps, lists, seen, byNames)
}

// loadFolders reads the folders table.
func loadFolders(ctx context.Context, db *sql.DB) (map[string]folderStamp, error) {
	rows, err := db.QueryContext(ctx, `SELECT path, mtime, settled FROM folders`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]folderStamp{}
	for rows.Next() {
		var f folderStamp
		if err := rows.Scan(&f.path, &f.mtime, &f.settled); err != nil {
			return nil, err
		}
		out[f.path] = f
	}
	return out, rows.Err()
}

// surveyFolders returns the folders whose mtime moved, or was too recent
// to trust unless trustRecent, since the index listed them.
func surveyFolders(root string, folders map[string]folderStamp, trustRecent bool) []string {
	if len(folders) == 0 {
		return []string{""}
	}
	var out []string
	for p, f := range folders {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || !fi.IsDir() || fi.ModTime().UnixNano() != f.mtime || !(f.settled || trustRecent) {
			out = append(out, p)
		}
	}
	return out
}

// surveyFiles stats the entry files of every folder that holds entries
// and returns the entries whose file differs from the index (see
// folderFiles.changed), how many files it statted, and the listings it
// made that may be recorded (see statFolders). now is taken before it
// starts.
func surveyFiles(ctx context.Context, db *sql.DB, root string, now time.Time) ([]string, int, []folderList, error) {
	sums, err := loadSums(ctx, db)
	if err != nil {
		return nil, 0, nil, err
	}
	recorded, err := recordOf(ctx, db)
	if err != nil {
		return nil, 0, nil, err
	}
	folders := slices.Sorted(maps.Keys(sums))
	defer relaxGC()()
	disk, fresh := statFolders(ctx, root, folders, recorded, now)
	var (
		suspect []string
		checked int
	)
	for i, f := range folders {
		checked += len(disk[i].files)
		changed, err := disk[i].changed(ctx, db, f, sums[f])
		if err != nil {
			return nil, 0, nil, err
		}
		suspect = append(suspect, changed...)
	}
	return suspect, checked, fresh, ctx.Err()
}

// changed returns the entries of the folder f, whose files are d, that may
// differ from the index: added, gone, of another size or mtime, or with a
// row not settled (whose content must be compared). sum is the folder's
// sum in folder_sums. Reading every row's stamp would cost about as much
// as the stats, so the rows are read only when the sums differ, counting
// the few unsettled rows as settled. Two different sets of stamps have the
// same sum with a chance of 2^-64.
func (d *folderFiles) changed(ctx context.Context, db *sql.DB, f string, sum uint64) ([]string, error) {
	disk := d.sum()
	if disk == sum {
		return nil, nil
	}
	unsettled, err := loadUnsettled(ctx, db, f)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range unsettled {
		sum ^= stampSum(r.name, r.stamp, false) ^ stampSum(r.name, r.stamp, true)
		out = append(out, r.name)
	}
	if disk == sum {
		return out, nil
	}
	rows, err := loadUnder(ctx, db, f, false)
	if err != nil {
		return nil, err
	}
	out = out[:0]
	onDisk := make(map[string]stamp, len(d.files))
	for j := range d.files {
		if !d.ok[j] {
			continue
		}
		n := d.name(j)
		onDisk[n] = d.stamps[j]
		if _, ok := rows[n]; !ok {
			out = append(out, n)
		}
	}
	for n, r := range rows {
		if s, ok := onDisk[n]; !ok || !r.settled || s != r.stamp {
			out = append(out, n)
		}
	}
	return out, nil
}

// loadSum reads the sum of the folder f in folder_sums, 0 if it has none.
func loadSum(ctx context.Context, db *sql.DB, f string) (uint64, error) {
	var sum int64
	err := db.QueryRowContext(ctx, `SELECT sum FROM folder_sums WHERE path = ?`, f).Scan(&sum)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return uint64(sum), err
}

// loadUnsettled reads the stamps of the unsettled entries in the folder f,
// from the partial index of them.
func loadUnsettled(ctx context.Context, db *sql.DB, f string) ([]entryRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, name, size, mtime FROM entries INDEXED BY entries_unsettled
		WHERE folder = ? AND settled = 0`, f)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entryRow
	for rows.Next() {
		var r entryRow
		if err := rows.Scan(&r.id, &r.name, &r.stamp.size, &r.stamp.mtime); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// loadSums reads the folder_sums table.
func loadSums(ctx context.Context, db *sql.DB) (map[string]uint64, error) {
	rows, err := db.QueryContext(ctx, `SELECT path, sum FROM folder_sums`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]uint64{}
	for rows.Next() {
		var (
			p   string
			sum int64
		)
		if err := rows.Scan(&p, &sum); err != nil {
			return nil, err
		}
		out[p] = uint64(sum)
	}
	return out, rows.Err()
}

// folderFiles is a folder's entry files and their stamps.
type folderFiles struct {
	folder string   // the folder, "" for the vault root
	files  []string // its entry files' names in it, each ending in ".md"
	stamps []stamp
	ok     []bool // the file is a regular file, and stamps holds its stamp
	xor    uint64 // sum(), when summed
	summed bool
}

// name is the entry name of files[i] (vault.NameOf of its path), made only
// when needed: the full check sums names without making them.
func (f *folderFiles) name(i int) string {
	base := f.files[i][:len(f.files[i])-len(".md")]
	if f.folder == "" {
		return base
	}
	return f.folder + "/" + base
}

// sum is the XOR of stampSum over the files that are ok, as settled: what
// folder_sums holds for the folder when the index agrees with every file.
func (f *folderFiles) sum() uint64 {
	if f.summed {
		return f.xor
	}
	return sumFiles(f.folder, f.files, f.stamps, f.ok)
}

// sumFiles is the sum of the files of the folder folder that are ok. The
// names are hashed in parts, the folder's once.
func sumFiles(folder string, files []string, stamps []stamp, ok []bool) uint64 {
	prefix := uint64(fnvOffset)
	if folder != "" {
		prefix = fnvString(fnvString(prefix, folder), "/")
	}
	var sum uint64
	for i, file := range files {
		if ok[i] {
			sum ^= stampSumFrom(fnvString(prefix, file[:len(file)-len(".md")]), stamps[i], true)
		}
	}
	return sum
}

// recordedFiles is recorded(s), or nothing if recorded is nil.
func recordedFiles(recorded func(folderStamp) ([]string, bool), s folderStamp) ([]string, bool) {
	if recorded == nil {
		return nil, false
	}
	return recorded(s)
}

// statFolders stats the entry files of the folders, and sums them, on all
// cores. A folder whose record has its mtime and change time (recorded, if
// not nil, finds it) is not listed: its files are the record's (see
// folderList). The others are listed, and those of their listings that
// listOf keeps, with now taken before any of them, are returned to be
// recorded.
func statFolders(ctx context.Context, root string, folders []string, recorded func(folderStamp) ([]string, bool), now time.Time) ([]folderFiles, []folderList) {
	out := make([]folderFiles, len(folders))
	fresh := make([]*folderList, len(folders))
	parallel(ctx, len(folders), func(i int) {
		f := &out[i]
		f.folder = folders[i]
		abs := filepath.Join(root, filepath.FromSlash(folders[i]))
		// The folder's times before its listing, as listOf requires.
		fi, err := os.Lstat(abs)
		if err != nil || !fi.IsDir() {
			return // gone: its entries are missing, so suspect
		}
		s := stampOf(fi)
		st := folderStamp{path: folders[i], mtime: s.mtime, settled: s.settledAt(now), ctime: ctimeOf(fi), ino: inode.Of(fi)}
		if files, ok := recordedFiles(recorded, st); ok {
			f.files = files
		} else {
			// Names alone, unsorted: the stats say which are regular files.
			d, err := os.Open(abs)
			if err != nil {
				return
			}
			all, err := d.Readdirnames(-1)
			d.Close()
			for _, file := range all {
				if _, ok := vault.NameOf(path.Join(folders[i], file)); ok {
					f.files = append(f.files, file)
				}
			}
			if l, ok := listOf(st, f.files, now); ok && err == nil {
				fresh[i] = &l
			}
		}
		f.stamps, f.ok = make([]stamp, len(f.files)), make([]bool, len(f.files))
	})
	type job struct{ folder, lo, hi int }
	var jobs []job
	for i, f := range out {
		for lo := 0; lo < len(f.files); lo += statChunk {
			jobs = append(jobs, job{i, lo, min(lo+statChunk, len(f.files))})
		}
	}
	// Each part is summed where it was statted: the XOR of the parts is the
	// folder's sum, and hashing 100,000 names on one core afterwards took
	// as long as a tenth of the stats.
	sums := make([]uint64, len(jobs))
	parallel(ctx, len(jobs), func(k int) {
		j := jobs[k]
		f := out[j.folder]
		statIn(filepath.Join(root, filepath.FromSlash(folders[j.folder])), f.files[j.lo:j.hi], f.stamps[j.lo:j.hi], f.ok[j.lo:j.hi])
		sums[k] = sumFiles(f.folder, f.files[j.lo:j.hi], f.stamps[j.lo:j.hi], f.ok[j.lo:j.hi])
	})
	for k, j := range jobs {
		out[j.folder].xor ^= sums[k]
	}
	for i := range out {
		out[i].summed = true
	}
	var keep []folderList
	for _, l := range fresh {
		if l != nil {
			keep = append(keep, *l)
		}
	}
	return out, keep
}

// statChunk is how many files of a folder one core stats at a time: one
// large folder should not keep one core busy while the others wait.
const statChunk = 1024

// parallel calls fn(0) to fn(n-1) on all cores, until ctx ends.
func parallel(ctx context.Context, n int, fn func(i int)) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) * 2 { // stat waits on the kernel, not the CPU
		wg.Go(func() {
			for i := range work {
				fn(i)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
}

// entryRow is what the checks know of an indexed entry.
type entryRow struct {
	id      int64
	name    string
	stamp   stamp
	ino     uint64
	settled bool
	hash    string
	problem string
	recency string // loaded by loadRows only
}

// loadRows reads what the checks know of the entries named.
func loadRows(ctx context.Context, db *sql.DB, names []string) (map[string]entryRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, name, size, mtime, settled, hash, problem, recency, ino FROM entries
		WHERE name IN (SELECT value FROM json_each(?))`, jsonList(names))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]entryRow{}
	for rows.Next() {
		var r entryRow
		var ino int64
		if err := rows.Scan(&r.id, &r.name, &r.stamp.size, &r.stamp.mtime, &r.settled, &r.hash, &r.problem, &r.recency, &ino); err != nil {
			return nil, err
		}
		r.ino = uint64(ino)
		out[r.name] = r
	}
	return out, rows.Err()
}

// loadUnder reads the stamps of the entries in the folder f, or also in
// its subfolders. Below the root it reads them from the covering index of
// the stamps, where the entries of a folder lie together (a name begins
// with its folder): a folder of thousands of entries costs a few pages,
// not a row fetch per entry.
func loadUnder(ctx context.Context, db *sql.DB, f string, deep bool) (map[string]entryRow, error) {
	q := `SELECT id, name, size, mtime, settled, ino FROM entries WHERE folder = ''`
	if f != "" {
		// '0' follows '/'; a name with a '/' after the folder's is in a subfolder.
		q = `SELECT id, name, size, mtime, settled, ino FROM entries INDEXED BY entries_stamps
			WHERE name >= ?1 || '/' AND name < ?1 || '0' AND (?2 OR instr(substr(name, length(?1) + 2), '/') = 0)`
	} else if deep {
		q = `SELECT id, name, size, mtime, settled, ino FROM entries`
	}
	rows, err := db.QueryContext(ctx, q, f, deep)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]entryRow{}
	for rows.Next() {
		var r entryRow
		var ino int64
		if err := rows.Scan(&r.id, &r.name, &r.stamp.size, &r.stamp.mtime, &r.settled, &ino); err != nil {
			return nil, err
		}
		r.ino = uint64(ino)
		out[r.name] = r
	}
	return out, rows.Err()
}

// change is what reconcile decided for one entry.
type change struct {
	row     *entryRow // the entry as indexed; nil if it is not
	rec     *record   // the file as read; nil if it is gone
	restamp bool      // same content: only size, mtime or settled change
}

// reconcile makes the index agree with the files in the given folders
// (added, removed and replaced files, new and removed subfolders) and with
// the given entries' files, and records stamps, the mtimes of folders whose
// changes the caller knows to be among names (the watcher). The write lock
// is held.
//
// With byNames, a folder whose entry files have the names and inode
// numbers the index holds (listNames) is taken as it is, without a stat
// per file: no file was added, removed, renamed or replaced by a rename;
// only its unsettled rows are compared. A settled file edited in place
// keeps both, and is found by the full check or the watcher, as the
// folder's mtime would not have shown it either.
func (ix *Index) reconcile(ctx context.Context, db *sql.DB, folders, names []string, stamps []folderStamp, lists []folderList, seen func(string, fs.FileInfo), byNames bool) (rep Report, err error) {
	now := ix.now()
	known, err := loadFolders(ctx, db)
	if err != nil {
		return rep, err
	}
	verify := map[string]bool{}
	for _, n := range names {
		verify[n] = true
	}
	var (
		drops   []string
		statted int          // entry files statted in the listed folders
		own     []folderList // records of this call's listings
	)
	listed := stamps
	slices.Sort(folders)
	folders = slices.Compact(folders)
	for _, f := range folders {
		if under(drops, f) {
			continue
		}
		var (
			l    listing
			same bool
		)
		if byNames {
			if l, same, err = listNames(ctx, db, ix.root, f, now); err != nil {
				return rep, err
			}
		}
		if !same {
			if l, err = listFolder(ctx, ix.root, f, now); err != nil {
				return rep, err
			}
		}
		if l.gone {
			if f == "" {
				return rep, fmt.Errorf("the vault folder %s is gone", ix.root)
			}
			drops = append(drops, f)
			continue
		}
		listed = append(listed, l.stamp)
		if rec, ok := listOf(l.stamp, l.files, now); ok && !same {
			own = append(own, rec)
		}
		if same {
			// Its rows written too recently to trust (an entry a write
			// just made) are compared by content all the same, as the
			// listing with stats does.
			unsettled, err := loadUnsettled(ctx, db, f)
			if err != nil {
				return rep, err
			}
			for _, r := range unsettled {
				verify[r.name] = true
			}
		} else {
			sum, err := loadSum(ctx, db, f)
			if err != nil {
				return rep, err
			}
			// An entry still listed is read again only if its stamp moved
			// (a file replaced by rename is a new file, with a new
			// mtime), one that appeared or went always.
			changed, err := l.changed(ctx, db, f, sum)
			if err != nil {
				return rep, err
			}
			for _, n := range changed {
				verify[n] = true
			}
			statted += len(l.files)
		}
		sub := map[string]bool{}
		for _, s := range l.folders {
			sub[s] = true
			if _, ok := known[s]; ok {
				continue
			}
			// A new folder: take all of it.
			fs, files, err := walkTree(ctx, ix.root, s, now)
			if err != nil {
				return rep, err
			}
			listed = append(listed, fs...)
			own = append(own, listsOf(fs, files, now)...)
			for _, file := range files {
				verify[file.name] = true
			}
		}
		for s := range known {
			if s != "" && vault.Folder(s) == f && !sub[s] {
				drops = append(drops, s)
			}
		}
	}
	var dropped []entryRow
	for _, d := range drops {
		rows, err := loadUnder(ctx, db, d, true)
		if err != nil {
			return rep, err
		}
		for n, r := range rows {
			delete(verify, n)
			dropped = append(dropped, r)
		}
	}

	rep.Checked = max(len(verify), statted)
	rows, err := loadRows(ctx, db, mapKeys(verify))
	if err != nil {
		return rep, err
	}
	changes := compare(ix.root, mapKeys(verify), rows, now)
	for _, r := range dropped {
		changes = append(changes, change{row: &r})
	}
	// The caller's lists are new (the full check's, of folders whose
	// record it could not use); this call's own listings may already be
	// recorded, and recording them again would be a transaction for
	// nothing.
	if own, err = newLists(ctx, db, own); err != nil {
		return rep, err
	}
	lists = append(lists, own...)
	if len(changes) == 0 && len(drops) == 0 && len(lists) == 0 && !foldersMoved(known, listed) {
		return rep, nil
	}
	err = withTx(ctx, db, func(tx *sql.Tx) error {
		return apply(ctx, tx, changes, listed, lists, drops, &rep)
	})
	if err == nil && seen != nil {
		for _, c := range changes {
			if c.rec != nil && c.rec.file != nil {
				seen(c.rec.name, c.rec.file)
			}
		}
	}
	return rep, err
}

// compare reads the files of names that may have changed, on all cores,
// and returns what must change in the index.
func compare(root string, names []string, rows map[string]entryRow, now time.Time) []change {
	var (
		mu  sync.Mutex
		out []change
		wg  sync.WaitGroup
	)
	work := make(chan string)
	for range runtime.GOMAXPROCS(0) * 2 {
		wg.Go(func() {
			for n := range work {
				c, ok := compareOne(root, n, rows, now)
				if ok {
					mu.Lock()
					out = append(out, c)
					mu.Unlock()
				}
			}
		})
	}
	for _, n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
	return out
}

func compareOne(root, name string, rows map[string]entryRow, now time.Time) (change, bool) {
	var row *entryRow
	if r, ok := rows[name]; ok {
		row = &r
	}
	if row != nil && row.settled {
		if fi, err := os.Lstat(fileOf(root, name)); err == nil && fi.Mode().IsRegular() && stampOf(fi) == row.stamp {
			return change{}, false
		}
	}
	rec, data, err := readRaw(root, name, now)
	switch {
	case errors.Is(err, errGone):
		return change{row: row}, row != nil
	case row != nil && data != nil && rec.hash == row.hash && rec.stamp == row.stamp:
		// The same bytes and stamp (an entry just written, read again
		// while its mtime is too recent to trust): at most settled
		// moves, and there is nothing to parse.
		rec.problem, rec.recency = row.problem, row.recency
		return change{row: row, rec: rec, restamp: true}, rec.settled != row.settled
	}
	if data != nil {
		rec.parse(data)
	}
	switch {
	case row == nil:
		return change{rec: rec}, true
	case rec.hash == row.hash && rec.problem == row.problem:
		return change{row: row, rec: rec, restamp: true}, rec.stamp != row.stamp || rec.settled != row.settled
	}
	return change{row: row, rec: rec}, true
}

// apply writes changes, folder mtimes, the records of folders' listings
// and removed folders in one transaction, and resolves again the links
// they may redirect.
func apply(ctx context.Context, tx *sql.Tx, changes []change, listed []folderStamp, lists []folderList, drops []string, rep *Report) error {
	w := newWriter(tx)
	defer w.close()
	// New ids follow mtimes, so that a higher id stays a more recent change.
	slices.SortFunc(changes, func(a, b change) int {
		var am, bm int64
		if a.rec != nil {
			am = a.rec.stamp.mtime
		}
		if b.rec != nil {
			bm = b.rec.stamp.mtime
		}
		return cmp.Compare(am, bm)
	})
	aff := &affected{}
	var folders []string
	for _, c := range changes {
		if c.restamp {
			if err := w.restamp(ctx, *c.row, c.rec); err != nil {
				return err
			}
			continue
		}
		if c.row != nil {
			if err := noteOld(ctx, tx, aff, c.row.id); err != nil {
				return err
			}
			if err := w.remove(ctx, *c.row); err != nil {
				return err
			}
		}
		switch {
		case c.rec == nil:
			rep.Removed++
			continue
		case c.row == nil:
			rep.Added++
		default:
			rep.Updated++
		}
		id, err := w.put(ctx, c.rec, true)
		if err != nil {
			return err
		}
		aff.ids = append(aff.ids, id)
		aff.entry(c.rec.name, c.rec.title, c.rec.aliases)
		for f := vault.Folder(c.rec.name); ; f = vault.Folder(f) {
			folders = append(folders, f)
			if f == "" {
				break
			}
		}
	}
	// Folders that entries were written into are recorded with no mtime,
	// so that the next check lists them.
	for _, f := range folders {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO folders(path, mtime, settled) VALUES (?, 0, 0)`, f); err != nil {
			return fmt.Errorf("index folder %s: %w", f, err)
		}
	}
	for _, d := range drops {
		if _, err := tx.ExecContext(ctx, `DELETE FROM folders WHERE path = ?1 OR (path >= ?1 || '/' AND path < ?1 || '0')`, d); err != nil {
			return fmt.Errorf("unindex folder %s: %w", d, err)
		}
	}
	if err := putFolders(ctx, tx, listed); err != nil {
		return err
	}
	if err := putLists(ctx, tx, lists, drops); err != nil {
		return err
	}
	if rep.Changes() == 0 {
		// Only stamps moved (a folder listed again after a write, files
		// touched but not changed): no entry's text changed, so the
		// full-text tables have no new segment to merge and nothing to trim.
		return nil
	}
	if err := trimRecent(ctx, tx); err != nil {
		return err
	}
	for _, t := range ftsTables {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, rank) VALUES ('merge', ?)`, mergePages); err != nil {
			return fmt.Errorf("merge %s: %w", t, err)
		}
	}
	return resolveAffected(ctx, tx, aff)
}

// noteOld adds the keys of the indexed entry id to aff, before it changes.
func noteOld(ctx context.Context, tx *sql.Tx, aff *affected, id int64) error {
	var name, title string
	if err := tx.QueryRowContext(ctx, `SELECT name, title FROM entries WHERE id = ?`, id).Scan(&name, &title); err != nil {
		return fmt.Errorf("read entry %d: %w", id, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT alias FROM aliases WHERE entry_id = ?`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	var aliases []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return err
		}
		aliases = append(aliases, a)
	}
	aff.entry(name, title, aliases)
	return rows.Err()
}

// foldersMoved reports whether listing found any folder's mtime or
// settledness other than recorded.
func foldersMoved(known map[string]folderStamp, listed []folderStamp) bool {
	for _, l := range listed {
		if k, ok := known[l.path]; !ok || k.mtime != l.mtime || k.settled != l.settled {
			return true
		}
	}
	return false
}

// under reports whether f is one of the folders in drops or inside one.
func under(drops []string, f string) bool {
	for _, d := range drops {
		if f == d || strings.HasPrefix(f, d+"/") {
			return true
		}
	}
	return false
}

func mapKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Checked makes the check a read needs now and returns a view of ix whose
// reads (Search, Latest, Links, Backlinks) skip their own check: for a
// caller that reads several times to answer one request, such as the
// extractor, and wants one view of the vault at the cost of one check
// rather than one check per read. Its searches run in this process, not
// in a watcher's, which would check again. Writes and lookups still make
// theirs.
func (ix *Index) Checked(ctx context.Context) (*Index, error) {
	if _, err := ix.forRead(ctx); err != nil {
		return ix, err
	}
	return &Index{shared: ix.shared, checked: true}, nil
}
