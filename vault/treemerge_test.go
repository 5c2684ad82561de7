package vault

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestMergeTrees covers the whole-file cases of a merge: what each side did
// to a path, and what must survive.
func TestMergeTrees(t *testing.T) {
	const (
		sarah     = "---\ntitle: Sarah\ntype: contact\ntags: [a]\n---\nOne.\nTwo.\nThree.\n"
		sarahTags = "---\ntitle: Sarah\ntype: contact\ntags: [a, b]\n---\nOne.\nTwo.\nThree.\n"
		sarahBody = "---\ntitle: Sarah\ntype: contact\ntags: [a]\n---\nOne.\nTwo.\nThree, edited.\n"
		sarahBoth = "---\ntitle: Sarah\ntype: contact\ntags: [a, b]\n---\nOne.\nTwo.\nThree, edited.\n"
	)
	const (
		pBase  = "---\ntitle: P\nlinks: [contacts/sarah]\n---\nSee [[contacts/sarah]].\n"
		pShort = "---\ntitle: P\nlinks: [contacts/sarah-c]\n---\nSee [[contacts/sarah-c]].\n"
		pLong  = "---\ntitle: P\nlinks: [contacts/sarah-chen]\n---\nSee [[contacts/sarah-chen]].\n"
		// both renames settled on the first name, the other kept as an alias
		sarahSettled = "---\ntitle: Sarah\ntype: contact\ntags: [a, b]\naliases: [contacts/sarah-chen]\n---\nOne.\nTwo.\nThree.\n"
	)
	tests := []struct {
		name               string
		base, ours, theirs map[string]string
		want               map[string]string
		conflicts          int
	}{{
		name:   "edits to different fields and lines both apply",
		base:   map[string]string{"contacts/sarah.md": sarah},
		ours:   map[string]string{"contacts/sarah.md": sarahTags},
		theirs: map[string]string{"contacts/sarah.md": sarahBody},
		want:   map[string]string{"contacts/sarah.md": sarahBoth},
	}, {
		name:   "changed here, deleted there: the change is kept",
		base:   map[string]string{"contacts/sarah.md": sarah},
		ours:   map[string]string{},
		theirs: map[string]string{"contacts/sarah.md": sarahBody},
		want:   map[string]string{"contacts/sarah.md": sarahBody},
	}, {
		name:   "deleted here, untouched there: the deletion stands",
		base:   map[string]string{"contacts/sarah.md": sarah, "keep.md": "k\n"},
		ours:   map[string]string{"keep.md": "k\n"},
		theirs: map[string]string{"contacts/sarah.md": sarah, "keep.md": "k\n"},
		want:   map[string]string{"keep.md": "k\n"},
	}, {
		name:   "untouched here, deleted there: the deletion is taken",
		base:   map[string]string{"contacts/sarah.md": sarah, "keep.md": "k\n"},
		ours:   map[string]string{"contacts/sarah.md": sarah, "keep.md": "k\n"},
		theirs: map[string]string{"keep.md": "k\n"},
		want:   map[string]string{"keep.md": "k\n"},
	}, {
		name:   "added on both sides under one name merges as if from empty",
		base:   map[string]string{},
		ours:   map[string]string{"n.md": "---\ntitle: N\ntags: [x]\n---\nours line\n"},
		theirs: map[string]string{"n.md": "---\ntitle: N\ntags: [y]\n---\ntheirs line\n"},
		want:   map[string]string{"n.md": "---\ntitle: N\ntags: [y, x]\n---\nours line\ntheirs line\n"}, // a union: nothing lost
	}, {
		name:   "a summary made on both sides: the later wins whole, with no conflict to resolve",
		base:   map[string]string{},
		ours:   map[string]string{"summaries/2026-11-28-incremental.md": "---\ntitle: Summary of 1 entry\ntype: summary\nupdated: 2026-11-28T10:00:00Z\ncovers: [a]\n---\n- A.\n"},
		theirs: map[string]string{"summaries/2026-11-28-incremental.md": "---\ntitle: Summary of 1 entry\ntype: summary\nupdated: 2026-11-28T10:05:00Z\ncovers: [b]\n---\n- B.\n"},
		want:   map[string]string{"summaries/2026-11-28-incremental.md": "---\ntitle: Summary of 1 entry\ntype: summary\nupdated: 2026-11-28T10:05:00Z\ncovers: [b]\n---\n- B.\n"},
	}, {
		name:   "renamed here, edited there: both survive",
		base:   map[string]string{"contacts/sarah.md": sarah},
		ours:   map[string]string{"contacts/sarah-chen.md": sarah},
		theirs: map[string]string{"contacts/sarah.md": sarahBody},
		want:   map[string]string{"contacts/sarah-chen.md": sarahBody},
	}, {
		name:   "edited here, renamed there: both survive",
		base:   map[string]string{"contacts/sarah.md": sarah},
		ours:   map[string]string{"contacts/sarah.md": sarahTags},
		theirs: map[string]string{"people/sarah.md": sarah},
		want:   map[string]string{"people/sarah.md": sarahTags},
	}, {
		name:   "renamed differently on both sides: ours is the first name, theirs an alias",
		base:   map[string]string{"contacts/sarah.md": sarah, "p.md": pBase},
		ours:   map[string]string{"contacts/sarah-c.md": sarah, "p.md": pShort},
		theirs: map[string]string{"contacts/sarah-chen.md": sarahTags, "p.md": pLong},
		want:   map[string]string{"contacts/sarah-c.md": sarahSettled, "p.md": pShort},
	}, {
		name:   "renamed differently on both sides: theirs is the first name, ours an alias",
		base:   map[string]string{"contacts/sarah.md": sarah, "p.md": pBase},
		ours:   map[string]string{"contacts/sarah-chen.md": sarahTags, "p.md": pLong},
		theirs: map[string]string{"contacts/sarah-c.md": sarah, "p.md": pShort},
		want:   map[string]string{"contacts/sarah-c.md": sarahSettled, "p.md": pShort},
	}, {
		name:      "a non-entry file changed on both sides keeps both",
		base:      map[string]string{"notes.txt": "base\n"},
		ours:      map[string]string{"notes.txt": "ours\n"},
		theirs:    map[string]string{"notes.txt": "theirs\n"},
		want:      map[string]string{"notes.txt": "ours\n", "notes.conflict-theirs.txt": "theirs\n"},
		conflicts: 1,
	}, {
		name:      "a field changed differently on both sides: ours stays, theirs is a conflict",
		base:      map[string]string{"a.md": "---\ntitle: Base\n---\nx\n"},
		ours:      map[string]string{"a.md": "---\ntitle: Ours\n---\nx\n"},
		theirs:    map[string]string{"a.md": "---\ntitle: Theirs\n---\nx\n"},
		want:      map[string]string{"a.md": "---\ntitle: Ours\n---\nx\n"},
		conflicts: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := testVault(t)
			trees := make([]*object.Tree, 3)
			for i, files := range []map[string]string{tt.base, tt.ours, tt.theirs} {
				trees[i] = mkTree(t, v, files)
			}
			m, err := v.mergeTrees(t.Context(), trees[0], trees[1], trees[2], [2]string{"ours", "theirs"})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for p, c := range tt.ours {
				got[p] = c
			}
			for p, h := range m.edits {
				if h.IsZero() {
					delete(got, p)
					continue
				}
				got[p] = string(m.data[p])
			}
			for p, want := range tt.want {
				if got[p] != want {
					t.Errorf("%s:\n%s\nwant:\n%s", p, got[p], want)
				}
			}
			for p := range got {
				if _, ok := tt.want[p]; !ok {
					t.Errorf("unexpected %s:\n%s", p, got[p])
				}
			}
			if len(m.conflicts) != tt.conflicts {
				t.Errorf("%d conflicts, want %d: %+v", len(m.conflicts), tt.conflicts, m.conflicts)
			}
			for p, d := range m.data {
				if strings.Contains(string(d), "<<<<<<<") {
					t.Errorf("%s has conflict markers", p)
				}
			}
		})
	}
}

// mkTree stores files as a tree in the vault's object store.
func mkTree(t *testing.T, v *Vault, files map[string]string) *object.Tree {
	t.Helper()
	edits := map[string]plumbing.Hash{}
	for p, c := range files {
		h, err := v.storeBlob([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		edits[p] = h
	}
	h, err := v.writeTree(t.Context(), plumbing.ZeroHash, edits)
	if err != nil {
		t.Fatal(err)
	}
	if h.IsZero() {
		if h, err = v.storeTree(nil); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := object.GetTree(v.repo.Storer, h)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
