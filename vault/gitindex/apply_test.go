package gitindex

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// stageUpdate writes path in r's work tree and its blob in r's object store,
// and returns the Update that stages it.
func stageUpdate(t *testing.T, r *gitRepo, path, content string) Update {
	t.Helper()
	r.write(path, content)
	hash := writeBlob(t, r, []byte(content))
	info, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return Update{Path: path, Hash: hash, Mode: filemode.Regular, Info: info}
}

func assertUnchanged(t *testing.T, r *gitRepo, before []byte) {
	t.Helper()
	if !bytes.Equal(r.readIndex(), before) {
		t.Error("index changed")
	}
}

func assertNoLock(t *testing.T, r *gitRepo) {
	t.Helper()
	if _, err := os.Stat(r.indexPath() + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("index.lock: %v", err)
	}
}

func TestLockContention(t *testing.T) {
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n")
	before := r.readIndex()
	lock := r.indexPath() + ".lock"
	if err := os.WriteFile(lock, []byte("someone else's"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := stageUpdate(t, r, "b.md", "b\n")

	start := time.Now()
	err := ApplyWithLock(context.Background(), r.gitDir(), []Update{u}, WaitLock(200*time.Millisecond))
	if err == nil {
		t.Fatal("Apply succeeded with index.lock held")
	}
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), lock) {
		t.Errorf("error %q does not name %s", err, lock)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("gave up after %v without retrying", d)
	}
	assertUnchanged(t, r, before)
	if b, err := os.ReadFile(lock); err != nil || string(b) != "someone else's" {
		t.Errorf("another process's lock file was touched: %q, %v", b, err)
	}

	// Released while Apply waits: Apply goes ahead.
	go func() {
		time.Sleep(50 * time.Millisecond)
		os.Remove(lock)
	}()
	if err := Apply(context.Background(), r.gitDir(), []Update{u}); err != nil {
		t.Fatalf("Apply after the lock was released: %v", err)
	}
	if got := r.git("diff", "--cached", "--name-status"); got != "A\tb.md\n" {
		t.Errorf("staged: %q", got)
	}
	assertNoLock(t, r)
}

func TestContextCancelled(t *testing.T) {
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n")
	before := r.readIndex()
	u := stageUpdate(t, r, "b.md", "b\n")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Apply(ctx, r.gitDir(), []Update{u}); !errors.Is(err, context.Canceled) {
		t.Errorf("Apply with a cancelled context: %v", err)
	}
	assertUnchanged(t, r, before)
	assertNoLock(t, r)

	// Cancelled while waiting for the lock.
	lock := r.indexPath() + ".lock"
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := Apply(ctx, r.gitDir(), []Update{u}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Apply with a context expiring while locked: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v to notice the context", d)
	}
	assertUnchanged(t, r, before)
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("another process's lock file was removed: %v", err)
	}
}

func TestSplitIndexRefused(t *testing.T) {
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n")
	r.git("update-index", "--split-index")
	before := r.readIndex()
	u := stageUpdate(t, r, "b.md", "b\n")
	if err := Apply(context.Background(), r.gitDir(), []Update{u}); !errors.Is(err, ErrSplitIndex) {
		t.Fatalf("Apply on a split index: %v", err)
	}
	assertUnchanged(t, r, before)
	assertNoLock(t, r)
}

func TestCorruptIndexRefused(t *testing.T) {
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n", "b.md", "b\n")
	data := r.readIndex()
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(r.indexPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	u := stageUpdate(t, r, "c.md", "c\n")
	err := Apply(context.Background(), r.gitDir(), []Update{u})
	if !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), r.indexPath()) {
		t.Fatalf("Apply on a corrupt index: %v", err)
	}
	assertUnchanged(t, r, data)
	assertNoLock(t, r)
}

func TestInvalidUpdates(t *testing.T) {
	hash := plumbing.ComputeHash(plumbing.BlobObject, []byte("x"))
	for _, u := range [][]Update{
		{{Path: "", Hash: hash, Mode: filemode.Regular}},
		{{Path: "/abs", Hash: hash, Mode: filemode.Regular}},
		{{Path: "a//b", Hash: hash, Mode: filemode.Regular}},
		{{Path: "a/", Hash: hash, Mode: filemode.Regular}},
		{{Path: "a/../b", Hash: hash, Mode: filemode.Regular}},
		{{Path: "./a", Hash: hash, Mode: filemode.Regular}},
		{{Path: ".git/config", Hash: hash, Mode: filemode.Regular}},
		{{Path: "x/.GIT/y", Hash: hash, Mode: filemode.Regular}},
		{{Path: "a\x00b", Hash: hash, Mode: filemode.Regular}},
		{{Path: "a", Hash: hash, Mode: filemode.Dir}},
		{{Path: "a", Hash: hash}},
		{{Path: "a", Mode: filemode.Regular}},
		{{Path: "a", Hash: hash, Mode: filemode.Regular}, {Path: "a", Remove: true}},
		{{Path: "a", Hash: hash, Mode: filemode.Regular}, {Path: "a/b", Hash: hash, Mode: filemode.Regular}},
	} {
		dir := t.TempDir()
		err := Apply(context.Background(), dir, u)
		if err == nil || !strings.HasPrefix(err.Error(), "update git index "+filepath.Join(dir, "index")+": ") {
			t.Errorf("Apply(%+v): %v", u, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("Apply(%+v) left files behind", u)
		}
	}
}

func TestNoUpdatesNoWrite(t *testing.T) {
	dir := t.TempDir()
	if err := Apply(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), dir, []Update{{Path: "a", Remove: true}}); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("no-op Apply wrote %v", entries)
	}
}

// TestSkipHash: an index written with index.skipHash has an all-zero
// trailer, which must stay zero (git 2.40+ reads it without checking).
func TestSkipHash(t *testing.T) {
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n", "b.md", "b\n")
	data := r.readIndex()
	clear(data[len(data)-trailerLen:])
	if err := os.WriteFile(r.indexPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	u := stageUpdate(t, r, "c.md", "c\n")
	if err := Apply(context.Background(), r.gitDir(), []Update{u}); err != nil {
		t.Fatal(err)
	}
	out := r.readIndex()
	if !allZero(out[len(out)-trailerLen:]) {
		t.Fatal("checksum written into an index.skipHash index")
	}
	// With the checksum put back, git (which may predate skipHash) agrees.
	sum := sha1.Sum(out[:len(out)-trailerLen])
	copy(out[len(out)-trailerLen:], sum[:])
	if err := os.WriteFile(r.indexPath(), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.git("diff", "--cached", "--name-status"); got != "A\tc.md\n" {
		t.Errorf("staged: %q", got)
	}
}

// TestLongNames covers names of 0xFFF bytes and more, whose length field
// saturates, in every version; go-git's decoder checks the result.
func TestLongNames(t *testing.T) {
	long := func(c byte, n int) string { return "d/" + strings.Repeat(string(c), n) }
	names := []string{"a", long('b', 0xffd), long('c', 0xffe), long('d', 5000), "e/f", "z"}
	for _, version := range []uint32{2, 3, 4} {
		idx := &index.Index{Version: version}
		for i, n := range names {
			e := idx.Add(n)
			e.Hash = plumbing.ComputeHash(plumbing.BlobObject, []byte(n))
			e.Mode = filemode.Regular
			e.Size = uint32(i)
			e.SkipWorktree = version == 3 && i%2 == 0
		}
		var buf bytes.Buffer
		if err := index.NewEncoder(&buf).Encode(idx); err != nil {
			t.Fatal(err)
		}
		ix, err := parseIndex(buf.Bytes())
		if err != nil {
			t.Fatalf("v%d: %v", version, err)
		}
		if got := encodeUnchanged(ix); !bytes.Equal(got, buf.Bytes()) {
			t.Fatalf("v%d: re-serialized index differs", version)
		}
		hash := plumbing.ComputeHash(plumbing.BlobObject, []byte("new"))
		ops, err := prepareOps([]Update{
			{Path: long('c', 0xffe), Remove: true},
			{Path: long('c', 0xfff), Hash: hash, Mode: filemode.Regular},
			{Path: long('e', 6000), Hash: hash, Mode: filemode.Executable},
			{Path: "e/f", Hash: hash, Mode: filemode.Regular},
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := spliceBytes(ix, ops)
		if err != nil {
			t.Fatalf("v%d: %v", version, err)
		}
		var got index.Index
		if err := index.NewDecoder(bytes.NewReader(out)).Decode(&got); err != nil {
			t.Fatalf("v%d: go-git cannot decode the result: %v", version, err)
		}
		want := []string{"a", long('b', 0xffd), long('c', 0xfff), long('d', 5000), long('e', 6000), "e/f", "z"}
		if len(got.Entries) != len(want) {
			t.Fatalf("v%d: %d entries, want %d", version, len(got.Entries), len(want))
		}
		for i, e := range got.Entries {
			if e.Name != want[i] {
				t.Errorf("v%d: entry %d is %.20q (%d bytes), want %.20q (%d bytes)", version, i, e.Name, len(e.Name), want[i], len(want[i]))
			}
			if changed := i == 2 || i == 4 || i == 5; changed != (e.Hash == hash) {
				t.Errorf("v%d: entry %d %.20q has hash %s", version, i, e.Name, e.Hash)
			}
		}
		if got.Entries[4].Mode != filemode.Executable || got.Entries[3].Size != 3 || got.Entries[0].SkipWorktree != (version == 3) {
			t.Errorf("v%d: entry data lost: %+v %+v", version, got.Entries[0], got.Entries[4])
		}
	}
}

// withExtension appends an extension to a git-made index and fixes the
// checksum.
func withExtension(data []byte, sig string, payload []byte) []byte {
	out := bytes.Clone(data[:len(data)-trailerLen])
	out = appendExtension(out, sig, func(b []byte) []byte { return append(b, payload...) })
	sum := sha1.Sum(out)
	return append(out, sum[:]...)
}

func TestExtensions(t *testing.T) {
	for _, tc := range []struct {
		sig     string
		wantErr error // nil: the extension is dropped
	}{
		{"sdir", ErrSparseIndex},
		{"link", ErrSplitIndex},
		{"abcd", errors.New("required")},
		{"FSMN", nil},
		{"EOIE", nil},
		{"IEOT", nil},
		{"ZZZZ", nil},
	} {
		t.Run(tc.sig, func(t *testing.T) {
			t.Parallel()
			testExtension(t, tc.sig, tc.wantErr)
		})
	}
}

func testExtension(t *testing.T, sig string, wantErr error) {
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n")
	data := withExtension(r.readIndex(), sig, []byte("payload"))
	if err := os.WriteFile(r.indexPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	u := stageUpdate(t, r, "b.md", "b\n")
	err := Apply(context.Background(), r.gitDir(), []Update{u})
	switch {
	case wantErr == nil && err != nil:
		t.Errorf("%s: %v", sig, err)
	case wantErr == nil:
		if sigs := extensionSigs(t, r.readIndex()); len(sigs) != 1 || sigs[0] != "TREE" {
			t.Errorf("%s: extensions after: %q", sig, sigs)
		}
		if got := r.git("diff", "--cached", "--name-status"); got != "A\tb.md\n" {
			t.Errorf("%s: staged %q", sig, got)
		}
	case err == nil || !errors.Is(err, wantErr) && !strings.Contains(err.Error(), wantErr.Error()):
		t.Errorf("%s: error %v, want %v", sig, err, wantErr)
	default:
		assertUnchanged(t, r, data)
		assertNoLock(t, r)
	}
}

// TestPrepareLeavesIndexUntilCommit: a prepared index waits, whole, in
// index.lock, the index itself untouched, until Commit renames it into
// place; git then sees the path staged. A caller that prepares it beside
// other work (the branch moving) can still order the two.
func TestPrepareLeavesIndexUntilCommit(t *testing.T) {
	r := newRepo(t)
	r.commitFiles("base", "a.md", "a\n")
	before := r.readIndex()
	u := stageUpdate(t, r, "b.md", "b\n")
	p, err := PrepareWithLock(t.Context(), r.gitDir(), []Update{u}, WaitLock(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	assertUnchanged(t, r, before)
	if !p.Changed() {
		t.Error("Changed() = false for a new path")
	}
	locked, err := os.ReadFile(r.indexPath() + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	assertNoLock(t, r)
	if !bytes.Equal(r.readIndex(), locked) {
		t.Error("the index in place is not the one prepared in index.lock")
	}
	if got := r.git("ls-files", "--stage", "b.md"); !strings.Contains(got, u.Hash.String()) {
		t.Errorf("git ls-files --stage b.md = %q, want blob %s", got, u.Hash)
	}
	if got := strings.TrimSpace(r.git("status", "--porcelain")); got != "A  b.md" {
		t.Errorf("git status = %q, want b.md added", got)
	}
}
