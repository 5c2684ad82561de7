package index

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

func TestRebuildsDamagedOrOldIndex(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		notice string
	}{
		{"not a database", func(t *testing.T, path string) {
			os.Remove(path + "-wal")
			os.Remove(path + "-shm")
			if err := os.WriteFile(path, []byte("this is not an SQLite database, just text that fills the header and more"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is damaged"},
		{"old schema", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`PRAGMA user_version = 0`); err != nil {
				t.Fatal(err)
			}
		}, "schema version 0"},
		{"the schema before happened", func(t *testing.T, path string) {
			// Version 4 had no happened column: an index it made is
			// rebuilt, which dates every entry.
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{`ALTER TABLE entries DROP COLUMN happened`, `PRAGMA user_version = 4`} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}, "schema version 4"},
		{"empty file", func(t *testing.T, path string) {
			os.Remove(path + "-wal")
			os.Remove(path + "-shm")
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "schema version 0"},
		{"missing", func(t *testing.T, path string) {
			for _, s := range []string{"", "-wal", "-shm"} {
				os.Remove(path + s)
			}
		}, "is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := vaulttest.New(t)
			writeFile(t, v, "knowledge/a.md", "---\ntitle: Alpha\n---\nThe alpha note.\n")
			ix := openIndex(t, v, nil)
			ix.Close()
			tc.damage(t, ix.Path())
			var notices []string
			ix = openIndex(t, v, &notices)
			if len(notices) != 1 || !strings.Contains(notices[0], tc.notice) || !strings.Contains(notices[0], "rebuilding") {
				t.Fatalf("notices = %q, want one saying %q", notices, tc.notice)
			}
			if got := names(find(t, ix, Query{Text: "alpha"})); !slices.Equal(got, []string{"knowledge/a"}) {
				t.Fatalf("search after the rebuild = %q", got)
			}
		})
	}
}

// TestDamageFoundByDoctor checks that a damaged page deep in the file,
// which opening does not notice, is found by doctor's integrity check and
// repaired by a rebuild.
func TestDamageFoundByDoctor(t *testing.T) {
	v := vaulttest.New(t)
	for i := range 200 {
		writeFile(t, v, fmt.Sprintf("knowledge/n%03d.md", i), strings.Repeat(fmt.Sprintf("note %d about kafka and deploys. ", i), 40))
	}
	ix := openIndex(t, v, nil)
	db, _ := ix.handle(t.Context())
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	f, err := os.OpenFile(ix.Path(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	junk := []byte(strings.Repeat("\xff", 4096))
	for off := int64(8192); off < fi.Size()-4096; off += 4096 * 7 {
		f.WriteAt(junk, off)
	}
	f.Close()
	var notices []string
	ix = openIndex(t, v, &notices)
	d, err := ix.Doctor(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(d.Problems, func(p Problem) bool { return p.Kind == ProblemIndexDamaged }) && len(notices) == 0 {
		t.Fatalf("doctor found %+v and noticed %q; want the damage found", d.Problems, notices)
	}
	for _, p := range d.Problems {
		if p.Kind == ProblemIndexDamaged && p.File != File {
			t.Errorf("the damage is in %q, want %q", p.File, File)
		}
	}
	if rs := find(t, ix, Query{Text: "kafka", Limit: 300}); len(rs) != 200 {
		t.Fatalf("search after repair found %d entries, want 200", len(rs))
	}
}

// TestConcurrentIndexing has two indexes of one vault (two connections,
// as two processes would have) rebuild, check and write at once.
func TestConcurrentIndexing(t *testing.T) {
	v := vaulttest.New(t)
	for i := range 50 {
		writeFile(t, v, fmt.Sprintf("knowledge/n%02d.md", i), fmt.Sprintf("---\ntitle: Note %d\n---\nAbout rollouts %d.\n", i, i))
	}
	ctx := t.Context()
	a := openIndex(t, v, nil)
	v2, err := vault.Open(ctx, v.Root())
	if err != nil {
		t.Fatal(err)
	}
	b := openIndex(t, v2, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i, ix := range []*Index{a, b} {
		wg.Go(func() {
			for j := range 5 {
				writeFile(t, v, fmt.Sprintf("knowledge/w%d-%d.md", i, j), "About rollouts, written meanwhile.\n")
				var err error
				switch j % 3 {
				case 0:
					_, err = ix.Rebuild(ctx)
				case 1:
					_, err = ix.Refresh(ctx)
				default:
					_, err = ix.Search(ctx, Query{Text: "rollouts"})
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		for j := range 5 {
			if _, err := v.Remember(ctx, vault.RememberOptions{Text: fmt.Sprintf("Rollouts need a canary, take %d.", j)}); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, ix := range []*Index{a, b} {
		if rs := find(t, ix, Query{Text: "rollouts", Limit: 100}); len(rs) != 50+10+5 {
			t.Errorf("search finds %d entries, want 65", len(rs))
		}
	}
	db, _ := a.handle(ctx)
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity check: %q, %v", res, err)
	}
}

// TestLookupAgreesWithScan checks the index's answers to the vault's
// questions against the vault's own catalog, which reads every file.
func TestLookupAgreesWithScan(t *testing.T) {
	v := vaulttest.New(t)
	writeFile(t, v, "contacts/sarah-chen.md", "---\ntitle: Sarah Chen\naliases: [Sarah, S. Chen]\n---\nPartner.\n")
	writeFile(t, v, "projects/sarah.md", "---\ntitle: Project Sarah\n---\nA project.\n")
	writeFile(t, v, "knowledge/Ärger.md", "---\ntitle: ÄRGER\n---\nTrouble.\n")
	writeFile(t, v, "knowledge/bad.md", "---\ntitle: [unclosed\n---\nBroken.\n")
	writeFile(t, v, "knowledge/dup.md", "---\ntitle: Dup\n---\n  Same body.  \n")
	ix := openIndex(t, v, nil)
	ctx := t.Context()
	scan, err := vault.Open(ctx, v.Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"sarah", "Sarah", "SARAH", "s. chen", "sarah-chen", "contacts/sarah-chen", "Sarah Chen", "project sarah", "ärger", "knowledge/Ärger", "bad", "nobody", "Dup"} {
		got, err := ix.Lookup(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		gotName, gotErr := v.Resolve(ctx, key)
		wantName, wantErr := scan.Resolve(ctx, key)
		if gotName != wantName || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("resolve %q: index %q, %v; scan %q, %v (lookup %v)", key, gotName, gotErr, wantName, wantErr, got)
		}
	}
	same, err := ix.SameBody(ctx, vault.BodySum("Same body."))
	if err != nil || !slices.Equal(same, []string{"knowledge/dup"}) {
		t.Errorf("SameBody = %q, %v", same, err)
	}
	// An in-place edit is seen by a lookup that answers with that entry.
	writeFile(t, v, "knowledge/dup.md", "---\ntitle: Dup\n---\nOther body.\n")
	if same, err := ix.SameBody(ctx, vault.BodySum("Same body.")); err != nil || len(same) != 0 {
		t.Errorf("SameBody after an edit = %q, %v", same, err)
	}
}

// startWatcher runs a watcher of v on its own index, as another process
// would, until stop is called or the test ends, and returns once it
// answers readers, searches included.
func startWatcher(t *testing.T, v *vault.Vault) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	w := openIndex(t, v, nil)
	go func() { done <- w.Watch(ctx, nil) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	for _, err := os.Stat(w.socketPath()); err != nil; _, err = os.Stat(w.socketPath()) {
		select {
		case err := <-done:
			t.Fatal(err)
		default:
			runtimeGosched()
		}
	}
	return stop
}

func TestWatcherKeepsReadersFresh(t *testing.T) {
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	// A reader that finds the watcher alive syncs with it instead of
	// checking every file.
	startWatcher(t, v)
	writeFile(t, v, "knowledge/new.md", "---\ntitle: Fresh\n---\nWritten in an editor.\n")
	if got := names(find(t, ix, Query{Text: "editor"})); !slices.Equal(got, []string{"knowledge/new"}) {
		t.Fatalf("search while watching = %q", got)
	}
	if rep := ix.LastCheck(); rep.Check != CheckWatcher {
		t.Errorf("the search made a %s check, want %s", rep.Check, CheckWatcher)
	}
	// An edit in place, which no folder check can see.
	writeFile(t, v, "knowledge/new.md", "---\ntitle: Fresh\n---\nRewritten in place.\n")
	if got := names(find(t, ix, Query{Text: "rewritten"})); !slices.Equal(got, []string{"knowledge/new"}) {
		t.Fatalf("search after an edit in place = %q", got)
	}
	// A new folder, and a file in it.
	writeFile(t, v, "people/deep/sam.md", "---\ntitle: Sam\n---\nOwns billing.\n")
	if got := names(find(t, ix, Query{Text: "billing"})); !slices.Equal(got, []string{"people/deep/sam"}) {
		t.Fatalf("search after a new folder = %q", got)
	}
	if err := os.RemoveAll(v.Root() + "/people"); err != nil {
		t.Fatal(err)
	}
	if got := names(find(t, ix, Query{Text: "billing"})); len(got) != 0 {
		t.Fatalf("search after removing a folder = %q", got)
	}
}

// TestDoctorNamesFiles: every finding names the file that holds it, for
// each kind doctor reports.
func TestDoctorNamesFiles(t *testing.T) {
	v := vaulttest.New(t)
	writeFile(t, v, "knowledge/a.md", "---\ntitle: Alpha\naliases: [Twin]\n---\nSee [[nowhere]] and [[b]].\n")
	writeFile(t, v, "knowledge/b.md", "---\ntitle: Twin\n---\nBravo.\n")
	writeFile(t, v, "contacts/b.md", "---\ntitle: Bea\n---\nAnother b.\n")
	writeFile(t, v, "knowledge/bad.md", "---\ntitle: [unclosed\n---\nBad.\n")
	writeFile(t, v, ".git/MERGE_HEAD", "")
	// An hour old, so the index trusts its size and time (a file written
	// within the last moments is read again by every check).
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(v.Root(), "contacts", "b.md"), old, old); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, v, nil)
	db, err := ix.handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The index drifts from a file without its size or time changing.
	if res, err := db.Exec(`UPDATE entries SET hash = 'drifted' WHERE name = 'contacts/b'`); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("drifted %d rows", n)
	}
	d, err := ix.Doctor(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		ProblemBrokenLink:     "knowledge/a.md",
		ProblemAmbiguousLink:  "knowledge/a.md",
		ProblemDuplicateAlias: "knowledge/a.md",
		ProblemUnparsable:     "knowledge/bad.md",
		ProblemIndexMismatch:  "contacts/b.md",
		ProblemGit:            ".git/MERGE_HEAD",
	}
	got := map[string]string{}
	for _, p := range d.Problems {
		if p.File == "" {
			t.Errorf("%s %q names no file", p.Kind, p.Message)
		}
		got[p.Kind] = p.File
	}
	for kind, file := range want {
		if got[kind] != file {
			t.Errorf("%s in %q, want %q (problems: %+v)", kind, got[kind], file, d.Problems)
		}
	}
}

// A pinned index answers as its one check left it: a file added after
// Pin is not looked for (the group that pinned it answers for its own
// writes), while the index itself still finds it; an entry it answers
// with is read again, so an edit to it is seen.
func TestPinAnswersWithoutACheck(t *testing.T) {
	v := vaulttest.New(t)
	writeFile(t, v, "knowledge/kept.md", "---\ntitle: Kept\n---\nKept body.\n")
	ix := openIndex(t, v, nil)
	ctx := t.Context()
	pin, err := ix.Pin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, "knowledge/later.md", "---\ntitle: Later\n---\nLater body.\n")
	if got, err := pin.SameBody(ctx, vault.BodySum("Later body.")); err != nil || len(got) != 0 {
		t.Errorf("pinned SameBody of a file added after Pin = %q, %v; want none", got, err)
	}
	if got, err := pin.Lookup(ctx, "Later"); err != nil || len(got) != 0 {
		t.Errorf("pinned Lookup of a file added after Pin = %v, %v; want none", got, err)
	}
	if got, err := ix.SameBody(ctx, vault.BodySum("Later body.")); err != nil || !slices.Equal(got, []string{"knowledge/later"}) {
		t.Errorf("SameBody = %q, %v; want knowledge/later", got, err)
	}
	writeFile(t, v, "knowledge/kept.md", "---\ntitle: Kept\n---\nEdited body!\n")
	if got, err := pin.SameBody(ctx, vault.BodySum("Kept body.")); err != nil || len(got) != 0 {
		t.Errorf("pinned SameBody after an edit of its answer = %q, %v; want none", got, err)
	}
}
