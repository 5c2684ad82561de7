package index

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// settledVault makes a vault of three entries in knowledge/ and an index
// whose clock runs an hour ahead, so that every folder and file in it is
// long settled, and makes the full check that builds the index.
func settledVault(t *testing.T) (*vault.Vault, *Index) {
	t.Helper()
	v := vaulttest.New(t)
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		writeFile(t, v, "knowledge/"+n+".md", "---\ntitle: "+n+"\n---\nAbout "+n+"word.\n")
	}
	ix := openIndex(t, v, nil)
	ix.now = func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := ix.check(t.Context(), CheckFull); err != nil {
		t.Fatal(err)
	}
	return v, ix
}

// loadLists reads the records of folder_files, those of the current format
// and not damaged.
func loadLists(ctx context.Context, db *sql.DB) (map[string]folderList, error) {
	if ok, err := hasFolderFiles(ctx, db); err != nil || !ok {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT path, mtime, ctime, ino, files FROM folder_files WHERE format = ?`, folderFilesFormat)
	if err != nil {
		return nil, fmt.Errorf("read folder_files: %w", err)
	}
	defer rows.Close()
	out := map[string]folderList{}
	for rows.Next() {
		var (
			l     folderList
			files string
			ino   int64
		)
		if err := rows.Scan(&l.path, &l.mtime, &l.ctime, &ino, &files); err != nil {
			return nil, fmt.Errorf("read folder_files: %w", err)
		}
		l.ino = uint64(ino)
		if l.files, err = decodeFiles(l.path, files); err != nil {
			continue
		}
		out[l.path] = l
	}
	return out, rows.Err()
}

// records reads the folders' records from the index.
func records(t *testing.T, ix *Index) map[string]folderList {
	t.Helper()
	db, err := ix.handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	lists, err := loadLists(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	return lists
}

// listedNow is the folders holding entries that the full check would list
// now rather than take from their records, of those it may record.
func listedNow(t *testing.T, ix *Index) []string {
	t.Helper()
	db, err := ix.handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sums, err := loadSums(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	_, fresh := statFolders(t.Context(), ix.root, slices.Sorted(maps.Keys(sums)), recordIn(records(t, ix)), ix.now())
	var out []string
	for _, l := range fresh {
		out = append(out, l.path)
	}
	return out
}

// recordIn finds records in lists, as recordOf does in the index.
func recordIn(lists map[string]folderList) func(folderStamp) ([]string, bool) {
	return func(s folderStamp) ([]string, bool) {
		l, ok := lists[s.path]
		return l.files, ok && l.mtime == s.mtime && l.ctime == s.ctime && l.ino == s.ino
	}
}

// entryFiles is the entry files in the folder dir of the vault, sorted.
func entryFiles(t *testing.T, v *vault.Vault, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(v.Root(), dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		if _, ok := vault.NameOf(dir + "/" + d.Name()); ok && d.Type().IsRegular() {
			out = append(out, d.Name())
		}
	}
	return out
}

// TestFullCheckByRecords: a full check takes a settled folder's files from
// its record rather than listing it, and still finds every change another
// program makes: a file added, removed or renamed (the folder's mtime
// moves), edited in place (its stat), or added with the folder's mtime put
// back afterwards (its change time moves), or another folder moved into
// its place. It counts every file checked, and the record it keeps
// afterwards holds the folder's files.
func TestFullCheckByRecords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, v *vault.Vault, dir string)
		want   map[string][]string // query: names found
	}{
		{"added", func(t *testing.T, v *vault.Vault, dir string) {
			writeFile(t, v, "knowledge/delta.md", "About deltaword.\n")
		}, map[string][]string{"deltaword": {"knowledge/delta"}}},
		{"removed", func(t *testing.T, v *vault.Vault, dir string) {
			if err := os.Remove(filepath.Join(dir, "bravo.md")); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{"bravoword": {}}},
		{"renamed", func(t *testing.T, v *vault.Vault, dir string) {
			if err := os.Rename(filepath.Join(dir, "charlie.md"), filepath.Join(dir, "charles.md")); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{"charlieword": {"knowledge/charles"}}},
		{"edited in place", func(t *testing.T, v *vault.Vault, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, "alpha.md"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("Now about zuluword.\n"); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{"zuluword": {"knowledge/alpha"}}},
		{"added, the folder's mtime put back", func(t *testing.T, v *vault.Vault, dir string) {
			fi, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, v, "knowledge/echo.md", "About echoword.\n")
			if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{"echoword": {"knowledge/echo"}}},
		{"another folder moved in, with the same mtime", func(t *testing.T, v *vault.Vault, dir string) {
			fi, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, v, ".swap/alpha.md", "About foxtrotword.\n")
			swap := filepath.Join(v.Root(), ".swap")
			if err := os.Chtimes(swap, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(dir, filepath.Join(v.Root(), ".old")); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(swap, dir); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{"foxtrotword": {"knowledge/alpha"}, "bravoword": {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ix := settledVault(t)
			dir := filepath.Join(v.Root(), "knowledge")
			if got := records(t, ix)["knowledge"].files; !slices.Equal(slices.Sorted(slices.Values(got)), []string{"alpha.md", "bravo.md", "charlie.md"}) {
				t.Fatalf("the rebuild's record of knowledge = %q, want its three files", got)
			}
			if got := listedNow(t, ix); len(got) != 0 {
				t.Fatalf("a full check would list %q, want every folder taken from its record", got)
			}
			tc.change(t, v, dir)
			rep, err := ix.check(t.Context(), CheckFull)
			if err != nil {
				t.Fatal(err)
			}
			for q, want := range tc.want {
				if got := names(findUnchecked(t, ix, q)); !slices.Equal(got, want) {
					t.Errorf("search %s = %q, want %q", q, got, want)
				}
			}
			files := entryFiles(t, v, "knowledge")
			_, all, err := walkTree(t.Context(), v.Root(), "", ix.now())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Checked < len(all) {
				t.Errorf("the check = %+v, want at least the vault's %d files checked", rep, len(all))
			}
			if got := records(t, ix)["knowledge"].files; !slices.Equal(slices.Sorted(slices.Values(got)), files) {
				t.Errorf("the record of knowledge after the check = %q, want %q", got, files)
			}
			if got := listedNow(t, ix); len(got) != 0 {
				t.Errorf("after the check, a full check would list %q, want none", got)
			}
		})
	}
}

// TestFullCheckKeepsNoRecordOfAnUnsettledFolder: a listing made while the
// folder's mtime is within racyWindow of the moment of the listing is not
// recorded, whether by the rebuild, the full check or the update, as a
// change in the same tick would leave the mtime as it was; the folder is
// listed again by every full check until it has settled.
func TestFullCheckKeepsNoRecordOfAnUnsettledFolder(t *testing.T) {
	v := vaulttest.New(t)
	for _, n := range []string{"alpha", "bravo"} {
		writeFile(t, v, "knowledge/"+n+".md", "About "+n+"word.\n")
	}
	dir := filepath.Join(v.Root(), "knowledge")
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, v, nil)
	// The folder changed half the margin before each listing.
	ix.now = func() time.Time { return fi.ModTime().Add(racyWindow / 2) }
	for range 2 {
		if _, err := ix.check(t.Context(), CheckFull); err != nil {
			t.Fatal(err)
		}
		if l, ok := records(t, ix)["knowledge"]; ok {
			t.Fatalf("the folder listed within the racy window has a record: %+v", l)
		}
	}
	// A file added in the same tick: the folder's mtime as it was.
	writeFile(t, v, "knowledge/charlie.md", "About charlieword.\n")
	if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.check(t.Context(), CheckFull); err != nil {
		t.Fatal(err)
	}
	if got := names(findUnchecked(t, ix, "charlieword")); !slices.Equal(got, []string{"knowledge/charlie"}) {
		t.Errorf("search charlieword = %q, want knowledge/charlie", got)
	}
	if l, ok := records(t, ix)["knowledge"]; ok {
		t.Errorf("the folder listed within the racy window has a record: %+v", l)
	}
	// Once settled, it is recorded.
	ix.now = func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := ix.check(t.Context(), CheckFull); err != nil {
		t.Fatal(err)
	}
	if got := records(t, ix)["knowledge"].files; len(got) != 3 {
		t.Errorf("the settled folder's record = %q, want its three files", got)
	}
}

// TestListOfMargin: a listing is kept only when both the folder's mtime
// and its change time are more than racyWindow older than the listing.
func TestListOfMargin(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	old := now.Add(-racyWindow - time.Nanosecond).UnixNano()
	edge := now.Add(-racyWindow).UnixNano()
	for _, tc := range []struct {
		mtime, ctime int64
		keep         bool
	}{
		{old, old, true},
		{edge, old, false},
		{old, edge, false},
		{old, now.UnixNano(), false},
		{edge, edge, false},
	} {
		s := folderStamp{path: "knowledge", mtime: tc.mtime, ctime: tc.ctime, settled: stamp{mtime: tc.mtime}.settledAt(now)}
		if _, keep := listOf(s, []string{"a.md"}, now); keep != tc.keep {
			t.Errorf("listOf(mtime %v before, ctime %v before) keeps = %v, want %v",
				now.Sub(time.Unix(0, tc.mtime)), now.Sub(time.Unix(0, tc.ctime)), keep, tc.keep)
		}
	}
}

// TestFullCheckBesideABadRecord: a record that is missing, of another
// format or damaged is not used: the folder is listed as before, the check
// is right and counts the same files, and the record is written again. A
// record whose times match but that names a file since gone (its times
// forged here) makes the file's stat fail, and the entry is removed.
func TestFullCheckBesideABadRecord(t *testing.T) {
	for _, tc := range []struct {
		name string
		sql  string
	}{
		{"missing", `DELETE FROM folder_files WHERE path = 'knowledge'`},
		{"another format", `UPDATE folder_files SET format = 99, files = X'00' WHERE path = 'knowledge'`},
		{"damaged", `UPDATE folder_files SET files = X'616c7068612e6d64002f2e2e2f782e6d6400' WHERE path = 'knowledge'`}, // "alpha.md", "/../x.md"
		{"no terminator", `UPDATE folder_files SET files = CAST('alpha.md' AS BLOB) WHERE path = 'knowledge'`},
		{"the table gone", `DROP TABLE folder_files`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ix := settledVault(t)
			before, err := ix.check(t.Context(), CheckFull)
			if err != nil {
				t.Fatal(err)
			}
			db, err := ix.handle(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(t.Context(), tc.sql); err != nil {
				t.Fatal(err)
			}
			if got := listedNow(t, ix); !slices.Contains(got, "knowledge") {
				t.Errorf("a full check would list %q, want knowledge among them", got)
			}
			writeFile(t, v, "newword.md", "About newword.\n") // the root changes meanwhile
			rep, err := ix.check(t.Context(), CheckFull)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Checked != before.Checked+1 || rep.Added != 1 || rep.Updated+rep.Removed != 0 {
				t.Errorf("the check = %+v, want %d checked, the new file added", rep, before.Checked+1)
			}
			if got := records(t, ix)["knowledge"].files; !slices.Equal(slices.Sorted(slices.Values(got)), entryFiles(t, v, "knowledge")) {
				t.Errorf("the record of knowledge after the check = %q, want its files", got)
			}
		})
	}
	t.Run("a gone file", func(t *testing.T) {
		v, ix := settledVault(t)
		dir := filepath.Join(v.Root(), "knowledge")
		if err := os.Remove(filepath.Join(dir, "bravo.md")); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		db, err := ix.handle(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(t.Context(), `UPDATE folder_files SET mtime = ?, ctime = ? WHERE path = 'knowledge'`,
			fi.ModTime().UnixNano(), ctimeOf(fi)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(t.Context(), `UPDATE folders SET mtime = ? WHERE path = 'knowledge'`, fi.ModTime().UnixNano()); err != nil {
			t.Fatal(err)
		}
		if got := listedNow(t, ix); len(got) != 0 {
			t.Fatalf("a full check would list %q, want the forged record used", got)
		}
		rep, err := ix.check(t.Context(), CheckFull)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Removed != 1 {
			t.Errorf("the check = %+v, want bravo removed", rep)
		}
		if got := names(findUnchecked(t, ix, "bravoword")); len(got) != 0 {
			t.Errorf("search bravoword = %q, want nothing", got)
		}
	})
}

// TestFullCheckCountsTheSameWithRecords: the full check reports as many
// files checked when it takes folders from their records as when it lists
// them, over several folders and the vault's root.
func TestFullCheckCountsTheSameWithRecords(t *testing.T) {
	v := vaulttest.New(t)
	for i := range 30 {
		writeFile(t, v, fmt.Sprintf("%s/f%02d.md", []string{"knowledge", "inbox", "projects/x"}[i%3], i), fmt.Sprintf("About word%02d.\n", i))
	}
	ix := openIndex(t, v, nil)
	ix.now = func() time.Time { return time.Now().Add(time.Hour) }
	listed, err := ix.check(t.Context(), CheckFull)
	if err != nil {
		t.Fatal(err)
	}
	if got := listedNow(t, ix); len(got) != 0 {
		t.Fatalf("a full check would list %q, want every folder taken from its record", got)
	}
	recorded, err := ix.check(t.Context(), CheckFull)
	if err != nil {
		t.Fatal(err)
	}
	if recorded.Checked != listed.Checked || recorded.Changes() != 0 {
		t.Errorf("the check by records = %+v, the one that listed = %+v: want the same count, no change", recorded, listed)
	}
}

// FuzzDecodeFiles: a record's files decode only to entry files' base names
// (at the root, not the vault's guide), which encode back to the same
// bytes; anything else is refused, never half read.
func FuzzDecodeFiles(f *testing.F) {
	f.Add("knowledge", "alpha.md\x00bravo.md\x00")
	f.Add("", "alpha.md\x00CONTEXT.md\x00")
	f.Add("knowledge", "alpha.md")
	f.Add("knowledge", "\x00")
	f.Add("knowledge", "../x.md\x00")
	f.Add("knowledge", ".hidden.md\x00")
	f.Add("knowledge", "")
	f.Fuzz(func(t *testing.T, folder, s string) {
		files, err := decodeFiles(folder, s)
		if err != nil {
			if files != nil {
				t.Errorf("decodeFiles(%q, %q) = %q and %v, want no files with the error", folder, s, files, err)
			}
			return
		}
		for _, name := range files {
			rel := name
			if folder != "" {
				rel = "knowledge/" + name // a folder that holds entries
			}
			if _, ok := vault.NameOf(rel); !ok || strings.Contains(name, "/") {
				t.Errorf("decodeFiles(%q, %q) gave %q, not an entry file's name", folder, s, name)
			}
		}
		if got := string(encodeFiles(files)); got != s {
			t.Errorf("decodeFiles(%q, %q) = %q, which encodes to %q", folder, s, files, got)
		}
	})
}

// TestFullCheckDoesNotWaitToRecord: a full check that found nothing to
// update records its listings only if the index's write lock is free: a
// read does not wait for another process's write to keep them, and the
// next check keeps them instead.
func TestFullCheckDoesNotWaitToRecord(t *testing.T) {
	v, ix := settledVault(t)
	db, err := ix.handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `DELETE FROM folder_files`); err != nil {
		t.Fatal(err)
	}
	held, err := filelock.Exclusive(t.Context(), ix.writeLock())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ix.check(t.Context(), CheckFull)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changes() != 0 || len(records(t, ix)) != 0 {
		t.Errorf("with the write lock held elsewhere: %+v and records %v, want no change and no record", rep, records(t, ix))
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.check(t.Context(), CheckFull); err != nil {
		t.Fatal(err)
	}
	if got := records(t, ix)["knowledge"].files; !slices.Equal(slices.Sorted(slices.Values(got)), entryFiles(t, v, "knowledge")) {
		t.Errorf("the record of knowledge once the lock is free = %q, want its files", got)
	}
}
