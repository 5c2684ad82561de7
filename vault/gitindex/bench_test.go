package gitindex

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// benchDir holds the benchmark fixture; TestMain removes it.
var benchDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

var bench struct {
	once  sync.Once
	index []byte      // a git-made index of 10,000 paths, TREE included
	info  os.FileInfo // Lstat of a freshly written work-tree file
	hash  plumbing.Hash
	err   error
}

// benchIndex makes, once, a vault-like repository of 10,000 small files in
// 100 directories with git, and returns its index.
func benchIndex(b *testing.B) ([]byte, os.FileInfo, plumbing.Hash) {
	b.Helper()
	requireGit(b)
	bench.once.Do(func() {
		dir, err := os.MkdirTemp("", "gitindex-bench-")
		if err != nil {
			bench.err = err
			return
		}
		benchDir = dir
		r := &gitRepo{tb: b, dir: dir}
		r.git("init", "-q", "-b", "main")
		for d := range 100 {
			sub := filepath.Join(dir, "notes", fmt.Sprintf("topic-%03d", d))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				bench.err = err
				return
			}
			for f := range 100 {
				name := filepath.Join(sub, fmt.Sprintf("entry-%04d.md", d*100+f))
				if err := os.WriteFile(name, fmt.Appendf(nil, "# entry %d\n", d*100+f), 0o644); err != nil {
					bench.err = err
					return
				}
			}
		}
		r.git("add", "-A")
		r.git("commit", "-q", "-m", "vault")
		bench.index = r.readIndex()
		data := []byte("# new entry\n")
		r.write("notes/topic-050/new.md", string(data))
		bench.hash = plumbing.ComputeHash(plumbing.BlobObject, data)
		bench.info, bench.err = os.Lstat(filepath.Join(dir, "notes", "topic-050", "new.md"))
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.index, bench.info, bench.hash
}

// benchGitDir returns a git dir holding only a copy of the fixture index.
func benchGitDir(b *testing.B, data []byte) string {
	gitDir := b.TempDir()
	if err := os.WriteFile(filepath.Join(gitDir, "index"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return gitDir
}

// BenchmarkApplySplice: one Apply of one path into a 10,000-entry index,
// everything included (lock, read, checksum check, splice, checksum, write,
// fsync, rename). Iterations alternate adding and removing the path.
func BenchmarkApplySplice(b *testing.B) {
	data, info, hash := benchIndex(b)
	gitDir := benchGitDir(b, data)
	add := []Update{{Path: "notes/topic-050/new.md", Hash: hash, Mode: filemode.Regular, Info: info}}
	remove := []Update{{Path: "notes/topic-050/new.md", Remove: true}}
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	timeOps(b, func(i int) {
		u := add
		if i%2 == 1 {
			u = remove
		}
		if err := Apply(ctx, gitDir, u); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSpliceInMemory: parse, checksum check and splice, no file system.
func BenchmarkSpliceInMemory(b *testing.B) {
	data, info, hash := benchIndex(b)
	ops, err := prepareOps([]Update{{Path: "notes/topic-050/new.md", Hash: hash, Mode: filemode.Regular, Info: info}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	timeOps(b, func(int) {
		ix, err := parseIndex(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := checkAndSplice(ix, ops, io.Discard); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkGoGitDecodeEncode: what the splice replaces, go-git's full decode,
// one added entry and full encode, in memory.
func BenchmarkGoGitDecodeEncode(b *testing.B) {
	data, info, hash := benchIndex(b)
	var buf bytes.Buffer
	b.SetBytes(int64(len(data)))
	timeOps(b, func(int) {
		var idx index.Index
		if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
			b.Fatal(err)
		}
		goGitAdd(&idx, "notes/topic-050/new.md", hash, info)
		buf.Reset()
		if err := index.NewEncoder(&buf).Encode(&idx); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkGoGitApply: the same whole-file operation as
// BenchmarkApplySplice, done with go-git's decoder and encoder.
func BenchmarkGoGitApply(b *testing.B) {
	data, info, hash := benchIndex(b)
	gitDir := benchGitDir(b, data)
	indexPath := filepath.Join(gitDir, "index")
	b.SetBytes(int64(len(data)))
	timeOps(b, func(i int) {
		f, err := os.OpenFile(indexPath+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			b.Fatal(err)
		}
		in, err := os.Open(indexPath)
		if err != nil {
			b.Fatal(err)
		}
		var idx index.Index
		err = index.NewDecoder(in).Decode(&idx)
		in.Close()
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			goGitAdd(&idx, "notes/topic-050/new.md", hash, info)
		} else if _, err := idx.Remove("notes/topic-050/new.md"); err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 64<<10)
		if err := index.NewEncoder(w).Encode(&idx); err != nil {
			b.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(indexPath+".lock", indexPath); err != nil {
			b.Fatal(err)
		}
	})
}

func goGitAdd(idx *index.Index, path string, hash plumbing.Hash, info os.FileInfo) {
	e := idx.Add(path)
	e.Hash = hash
	e.Mode = filemode.Regular
	e.ModifiedAt = info.ModTime()
	e.Size = uint32(info.Size())
}

// BenchmarkWriteFsyncRename: the file-system share of BenchmarkApplySplice,
// writing the same number of bytes to a lock file, fsyncing and renaming it.
func BenchmarkWriteFsyncRename(b *testing.B) {
	data, _, _ := benchIndex(b)
	dir := b.TempDir()
	lock, target := filepath.Join(dir, "index.lock"), filepath.Join(dir, "index")
	b.SetBytes(int64(len(data)))
	timeOps(b, func(int) {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(lock, target); err != nil {
			b.Fatal(err)
		}
	})
}

// timeOps runs op b.N times and also reports the fastest and the median
// single run: on a busy machine the minimum shows the uncontended cost.
func timeOps(b *testing.B, op func(i int)) {
	runs := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		op(i)
		runs[i] = time.Since(start)
	}
	b.StopTimer()
	slices.Sort(runs)
	b.ReportMetric(float64(runs[0].Nanoseconds()), "min-ns/op")
	b.ReportMetric(float64(runs[len(runs)/2].Nanoseconds()), "p50-ns/op")
}
