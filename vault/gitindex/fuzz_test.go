package gitindex

import (
	"bytes"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// FuzzParseIndex: the parser never panics; re-serializing an unmodified
// index gives back the same bytes; splicing into any index it accepts never
// panics and gives an index it accepts again.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("DIRC"))
	if r := newSeedRepo(f); r != nil {
		r.commitFiles("base", "a.md", "a\n", "d/b.md", "b\n", "d/e/c.md", "c\n", "z", "z\n")
		f.Add(r.readIndex()) // version 2 with TREE
		r.write("ita.md", "i\n")
		r.git("add", "-N", "ita.md")
		f.Add(r.readIndex()) // version 3
		r.git("update-index", "--index-version", "4")
		f.Add(r.readIndex())
	}
	if r := newSeedRepo(f); r != nil {
		conflictSetup(r)
		f.Add(r.readIndex()) // unmerged stages, REUC
	}
	hash := plumbing.ComputeHash(plumbing.BlobObject, []byte("x"))
	ops, err := prepareOps([]Update{
		{Path: "a.md", Remove: true},
		{Path: "d", Hash: hash, Mode: filemode.Regular},
		{Path: "f.md", Hash: hash, Mode: filemode.Regular},
		{Path: "m/n.md", Hash: hash, Mode: filemode.Regular},
	})
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := parseIndex(data)
		if err != nil {
			return
		}
		out := encodeUnchanged(ix)
		body := len(data) - trailerLen
		if len(out) != len(data) || !bytes.Equal(out[:body], data[:body]) {
			t.Fatalf("re-serialized entries or extensions differ")
		}
		if ix.checksumOK() && !bytes.Equal(out, data) {
			t.Fatalf("re-serialized index differs")
		}

		spliced, err := spliceBytes(ix, ops)
		if err != nil || spliced == nil {
			return
		}
		ix2, err := parseIndex(spliced)
		if err != nil {
			t.Fatalf("spliced index does not parse: %v", err)
		}
		if !ix2.checksumOK() {
			t.Fatalf("spliced index has a bad checksum")
		}
		for _, o := range ops {
			s := ix2.nameSpan(o.path)
			if n := s.hi - s.lo; o.remove && n != 0 || !o.remove && n != 1 {
				t.Fatalf("%q has %d entries after the splice", o.path, n)
			}
		}
	})
}

// newSeedRepo returns a repository for seeds, or nil without git.
func newSeedRepo(f *testing.F) *gitRepo {
	f.Helper()
	if !haveGit() {
		return nil
	}
	return newRepo(f)
}
