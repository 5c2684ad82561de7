package merge

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx0/ctx0/vault/entry"
)

func TestBlocks(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Block
	}{
		{name: "none", body: "Plain text.\n> a quote\n"},
		{
			name: "one at the end",
			body: "Line.\n\n> [!conflict] Merge conflict: theirs had a different version of line 1\n> Other line.\n",
			want: []Block{{Start: 2, End: 4, Title: "Merge conflict: theirs had a different version of line 1", Text: "Other line."}},
		},
		{
			name: "two, with an empty quoted line",
			body: "A\n\n> [!conflict] Merge conflict: x\n> one\n>\n> two\n\n> [!conflict] Merge conflict: y\n> three\n",
			want: []Block{
				{Start: 2, End: 6, Title: "Merge conflict: x", Text: "one\n\ntwo"},
				{Start: 7, End: 9, Title: "Merge conflict: y", Text: "three"},
			},
		},
		{name: "a callout of another type", body: "> [!note] Not a conflict\n> text\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Blocks(tt.body)
			if len(got) != len(tt.want) {
				t.Fatalf("Blocks = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("block %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestBlocksOfMerges reads back the blocks the merges of testdata/entry
// write: each conflict in a body is found, quoting the version that did not
// stay in place. Last-write-wins merges keep no blocks, and files that do not
// parse are merged as lines, whole.
func TestBlocksOfMerges(t *testing.T) {
	paths, err := filepath.Glob("testdata/entry/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test cases: %v", err)
	}
	checked := 0
	for _, path := range paths {
		a, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		opt := options(a.Comment)
		if wholeWins(opt.Strategy) || !parses(file(a, "ours"), file(a, "theirs")) {
			continue
		}
		got, cs, err := Entry(file(a, "base"), file(a, "ours"), file(a, "theirs"), opt)
		if err != nil {
			t.Fatal(err)
		}
		e, err := entry.Parse(got)
		if err != nil {
			t.Fatalf("%s: merged file does not parse: %v", filepath.Base(path), err)
		}
		blocks := Blocks(e.Body())
		n := 0
		for _, c := range cs {
			if c.Field != "" || c.Hunk == "" {
				continue
			}
			n++
			lost := c.Theirs
			if c.Kept == Theirs {
				lost = c.Ours
			}
			if strings.TrimSpace(lost) != "" && !HoldsBlock(e.Body(), lost) {
				t.Errorf("%s: no block quotes %q; blocks: %+v", filepath.Base(path), lost, blocks)
			}
			checked++
		}
		if len(blocks) > n {
			t.Errorf("%s: %d blocks for %d body conflicts", filepath.Base(path), len(blocks), n)
		}
	}
	if checked == 0 {
		t.Fatal("no merge in testdata/entry kept a body conflict aside")
	}
}

// FuzzBlocks checks that the blocks of any body lie within it, in order,
// each starting at a callout line.
func FuzzBlocks(f *testing.F) {
	f.Add("Line.\n\n> [!conflict] Merge conflict: x\n> one\n>\n> two\n")
	f.Add("> [!conflict]\n> [!conflict] y\n")
	f.Fuzz(func(t *testing.T, body string) {
		lines := strings.Split(body, "\n")
		next := 0
		for _, b := range Blocks(body) {
			if b.Start < next || b.End <= b.Start || b.End > len(lines) {
				t.Fatalf("block %+v out of order or of the body's %d lines", b, len(lines))
			}
			if !strings.HasPrefix(lines[b.Start], calloutPrefix) {
				t.Fatalf("block %+v starts at %q", b, lines[b.Start])
			}
			next = b.End
		}
	})
}
