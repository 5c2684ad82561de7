package gitindex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Cache splices the index it last wrote without reading the file again
// while the file is as it left it, and reads the file again once another
// program changed it: a person's git add, git commit or git checkout, a
// file touched in place. Every index it writes is byte for byte what a
// write without the cache makes of the same file, and git finds it sound.
func TestCacheReadsTheFileAgainOnlyWhenItChanged(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n")
	c := &Cache{}
	n := 0
	// write stages one new file through c, and checks the result against
	// a write without the cache applied to a copy of the index before.
	write := func(wantHit bool) {
		t.Helper()
		n++
		cold := t.TempDir()
		if err := os.WriteFile(filepath.Join(cold, "index"), r.readIndex(), 0o644); err != nil {
			t.Fatal(err)
		}
		u := stageUpdate(t, r, fmt.Sprintf("w%d.md", n), fmt.Sprintf("write %d\n", n))
		hits := c.hits
		p, err := c.Prepare(ctx, r.gitDir(), []Update{u}, WaitLock(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := c.hits > hits; got != wantHit {
			t.Fatalf("write %d: spliced the kept index: %v, want %v", n, got, wantHit)
		}
		if err := Apply(ctx, cold, []Update{u}); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(cold, "index"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.readIndex(), want) {
			t.Fatalf("write %d: the index differs from a write without the cache", n)
		}
		r.git("fsck", "--strict")
		if !strings.Contains(r.git("ls-files", "--stage"), u.Path) {
			t.Fatalf("write %d: %s not staged", n, u.Path)
		}
	}
	write(false) // the first write keeps nothing
	write(false) // the second reads the file and keeps what it writes
	write(true)
	write(true)

	r.write("person.md", "a person's file\n")
	r.git("add", "person.md")
	write(false)
	if !strings.Contains(r.git("ls-files", "--stage"), "person.md") {
		t.Fatal("the person's staged file was lost")
	}
	write(true)

	r.git("commit", "-q", "-m", "the person's commit")
	write(false)
	write(true)

	r.git("checkout", "-q", "-b", "other", "HEAD~1")
	write(false)
	write(true)

	// Touched in place, same size and bytes: read again all the same.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(r.indexPath(), future, future); err != nil {
		t.Fatal(err)
	}
	write(false)
	write(true)
	if st := r.git("status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Logf("status:\n%s", st) // staged and unstaged writes are expected here
	}
}

// A write whose updates change nothing leaves the file, and the cache's
// hold on it, as they were.
func TestCacheKeepsAnUnchangedIndex(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n")
	c := &Cache{}
	for i := range 2 {
		u := stageUpdate(t, r, fmt.Sprintf("w%d.md", i), "w\n")
		if p, err := c.Prepare(ctx, r.gitDir(), []Update{u}, WaitLock(time.Second)); err != nil {
			t.Fatal(err)
		} else if err := p.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	before := r.readIndex()
	p, err := c.Prepare(ctx, r.gitDir(), []Update{{Path: "absent.md", Remove: true}}, WaitLock(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	assertUnchanged(t, r, before)
	assertNoLock(t, r)
	hits := c.hits
	u := stageUpdate(t, r, "last.md", "last\n")
	if p, err := c.Prepare(ctx, r.gitDir(), []Update{u}, WaitLock(time.Second)); err != nil {
		t.Fatal(err)
	} else if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if c.hits != hits+1 {
		t.Fatal("the index left unchanged was read again")
	}
	r.git("fsck", "--strict")
}
