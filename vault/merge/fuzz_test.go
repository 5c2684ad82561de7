package merge

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx0/ctx0/vault/entry"
)

// FuzzEntry checks that merging any three files does not panic or fail,
// and keeps the properties checkMerge checks; that no field value is lost;
// and that merging a version with itself or the base gives it back, byte
// for byte, with the shortcut and without it.
func FuzzEntry(f *testing.F) {
	f.Add([]byte("---\ntitle: x\n---\nbody\n"), []byte("---\ntitle: y\n---\nbody\n"), []byte("---\ntitle: x\n---\nbody 2\n"), uint8(0), false)
	f.Add([]byte(""), []byte(""), []byte(""), uint8(0), false)
	paths, err := filepath.Glob("testdata/entry/*.txtar")
	if err != nil {
		f.Fatal(err)
	}
	for i, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(file(a, "base"), file(a, "ours"), file(a, "theirs"), uint8(i), i%2 == 0)
	}
	strategies := []Strategy{FieldMerge, AppendOnly, LastWriteWins, Rebuilt}
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte, strategy uint8, theirsWin bool) {
		opt := Options{Strategy: strategies[int(strategy)%len(strategies)]}
		if theirsWin {
			opt.Winner = Theirs
		}
		got, cs, err := Entry(base, ours, theirs, opt)
		if err != nil {
			t.Fatalf("Entry: %v", err)
		}
		checkMerge(t, base, ours, theirs, opt, got, cs)

		for _, x := range [][]byte{ours, theirs} {
			for _, in := range [][3][]byte{{base, x, x}, {base, base, x}, {base, x, base}} {
				got, cs, err := Entry(in[0], in[1], in[2], opt)
				if err != nil || !bytes.Equal(got, x) || len(cs) > 0 {
					t.Fatalf("Entry(%q, %q, %q) = %q, %v, %v; want the changed side", in[0], in[1], in[2], got, cs, err)
				}
			}
		}
		if wholeWins(opt.Strategy) || !parses(base, ours, theirs) {
			return
		}
		for _, side := range [][]byte{ours, theirs} {
			if err := fieldsKept(base, side, got, cs); err != nil {
				t.Fatalf("%v\nmerged:\n%s", err, got)
			}
		}
		for _, x := range [][]byte{ours, theirs} {
			for _, in := range [][3][]byte{{base, x, x}, {base, base, x}, {base, x, base}} {
				if opt.Strategy == AppendOnly && bytes.Equal(in[1], base) {
					continue // the sections x added go in date order, not where x put them
				}
				if got := structural(t, in, opt); !bytes.Equal(got, x) {
					t.Fatalf("merge of %q, %q, %q without the shortcut = %q; want the changed side", in[0], in[1], in[2], got)
				}
			}
		}
	})
}

func parses(files ...[]byte) bool {
	for _, data := range files {
		if _, err := entry.Parse(data); err != nil {
			return false
		}
	}
	return true
}
