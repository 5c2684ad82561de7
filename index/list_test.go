package index

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestListAgreesWithFiles lists a vault through the index and by reading
// every file (a second handle on the same vault, without an index), with
// each filter, and wants the same entries and the same problems.
func TestListAgreesWithFiles(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	openIndex(t, v, nil)
	for _, a := range []vault.AddOptions{
		{Name: "contacts/sarah-chen", Meta: vault.Meta{Type: "contact", Tags: []string{"investor", "friend"}, Pinned: true}},
		{Name: "contacts/sam", Meta: vault.Meta{Type: "contact", Tags: []string{"friend"}, Project: "billing"}},
		{Name: "notes/deploy", Meta: vault.Meta{Type: "note", Project: "billing", Pinned: true}},
		{Name: "notes/plain", Meta: vault.Meta{Type: "note"}},
	} {
		if _, _, err := v.Add(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := v.Remove(ctx, "notes/plain", false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.Supersede(ctx, "contacts/sam", "Sam left; Sarah took over billing.", ""); err != nil {
		t.Fatal(err)
	}
	// Written by other tools: an entry, and a file that does not parse.
	writeFile(t, v, "notes/by-hand.md", "---\ntitle: By hand\ntype: fact\ntags: [investor]\n---\nText.\n")
	writeFile(t, v, "notes/broken.md", "---\ntitle: [unclosed\n---\nText.\n")

	files, err := vault.Open(ctx, v.Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []vault.Filter{{}, {Type: "contact"}, {Tag: "investor"}, {Project: "billing"}, {Pinned: true},
		{Type: "note", Pinned: true}, {Tag: "none"}, {All: true}, {Archived: true}, {Type: "contact", All: true}, {Type: "note", Archived: true}} {
		t.Run(fmt.Sprintf("%+v", f), func(t *testing.T) {
			got, gotProblems, err := v.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			want, wantProblems, err := files.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("through the index:\n%+v\nreading the files:\n%+v", got, want)
			}
			if len(gotProblems) != 1 || len(wantProblems) != 1 {
				t.Fatalf("problems through the index %v, reading the files %v; want one each", gotProblems, wantProblems)
			}
			if gotProblems[0].Error() != wantProblems[0].Error() {
				t.Errorf("problem through the index %q, reading the files %q", gotProblems[0], wantProblems[0])
			}
		})
	}
	// Live entries by default; the archived and superseded ones on asking.
	for _, tt := range []struct {
		f    vault.Filter
		want []string
	}{
		{vault.Filter{}, []string{"contacts/sam-left", "contacts/sarah-chen", "me", "notes/by-hand", "notes/deploy"}},
		{vault.Filter{Archived: true}, []string{"archive/notes/plain"}},
		{vault.Filter{All: true}, []string{"archive/notes/plain", "contacts/sam", "contacts/sam-left", "contacts/sarah-chen", "me", "notes/by-hand", "notes/deploy"}},
	} {
		list, _, err := v.List(ctx, tt.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range list {
			got = append(got, s.Name)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("list %+v: %v, want %v", tt.f, got, tt.want)
		}
	}
}
