package vault

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestRememberOneCommit: a remember with links, no type and a secret in
// its text and a tag makes one commit holding the links, the type the text
// reads as, and each secret counted once.
func TestRememberOneCommit(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	before := strings.TrimSpace(runGit(t, v, "rev-list", "--count", "HEAD"))
	const key = "ghp_" + "Xq7wLk2PzR9mTb4NcV8sYd1FhJ6gKa3EoU5i"
	r, err := v.Remember(ctx, RememberOptions{
		Text:  "We decided to use Postgres for billing; the token is " + key,
		Tags:  []string{"infra", key},
		Links: []string{"projects/billing", " contacts/sarah ", "projects/billing", ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Name, "decisions/") {
		t.Errorf("name %s: want the decisions folder, as the text reads", r.Name)
	}
	if after := strings.TrimSpace(runGit(t, v, "rev-list", "--count", "HEAD")); after == before {
		t.Fatalf("no commit")
	}
	if got := runGit(t, v, "log", "-1", "--format=%s"); !strings.HasPrefix(got, "remember "+r.Name) {
		t.Errorf("last commit %q: want the remember itself", got)
	}
	if after := strings.TrimSpace(runGit(t, v, "rev-list", "--count", "HEAD")); after != fmt.Sprint(mustAtoi(t, before)+1) {
		t.Errorf("%s commits after %s: want one more", after, before)
	}
	data := runGit(t, v, "show", "HEAD:"+r.Name+".md")
	for _, want := range []string{"type: decision\n", "links: [projects/billing, contacts/sarah]\n", "source: agent\n"} {
		if !strings.Contains(data, want) {
			t.Errorf("entry lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(data, key) {
		t.Errorf("entry holds the secret:\n%s", data)
	}
	total := 0
	for _, n := range r.Commit.Redacted {
		total += n
	}
	if total != 2 {
		t.Errorf("redacted %v: want the text's secret and the tag's, each once", r.Commit.Redacted)
	}
	if got := strings.TrimSpace(runGit(t, v, "status", "--porcelain")); got != "" {
		t.Errorf("git status: %s", got)
	}
}

// TestFreeName: the one allocator gives the name, then -2, -3…, and stops
// at an error.
func TestFreeName(t *testing.T) {
	used := map[string]bool{"a/b": true, "a/b-2": true}
	got, err := FreeName("a/b", func(n string) (bool, error) { return used[n], nil })
	if err != nil || got != "a/b-3" {
		t.Errorf("FreeName = %q, %v; want a/b-3", got, err)
	}
	if _, err := FreeName("a/c", func(string) (bool, error) { return true, nil }); err == nil {
		t.Error("FreeName over a full folder: no error")
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPlainTitle: a title keeps the words of markdown text, not its
// markup, and leaves alone what only looks like markup.
func TestPlainTitle(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"•Automatically switch to a 5-minute break when the work session ends", "Automatically switch to a 5-minute break when the work session ends"},
		{"- [ ] Write the release notes", "Write the release notes"},
		{"2. Ship it", "Ship it"},
		{"## Deploy checklist", "Deploy checklist"},
		{"> quoted line", "quoted line"},
		{"Rename `/data-capture` to `/src`", "Rename /data-capture to /src"},
		{"Make **async/await** the *primary* API", "Make async/await the primary API"},
		{"**Spec Updates**", "Spec Updates"},
		{"See [the docs](https://example.com/docs) and ![logo](logo.png)", "See the docs and logo"},
		{"Ask [[contacts/sarah-chen|Sarah]] about [[projects/billing]]", "Ask Sarah about projects/billing"},
		{"~~old~~ plan", "old plan"},
		{"snake_case_name stays, a*b*c stays, C# tips", "snake_case_name stays, a*b*c stays, C# tips"},
		{"Fix #42 in\n  two   lines", "Fix #42 in two lines"},
		{"2025 was a good year", "2025 was a good year"},
		{"", ""},
	} {
		if got := PlainTitle(tt.in); got != tt.want {
			t.Errorf("PlainTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNewEntryPlainTitle: every writer's new entry (remember, add, the
// librarian, the memory tool all make it with NewEntry) gets a plain
// title, and its body keeps the markup.
func TestNewEntryPlainTitle(t *testing.T) {
	e, err := NewEntry(Meta{Title: "•Rename `/data-capture` to **/src**", Type: "decision"}, time.Unix(0, 0), "Rename `/data-capture` to **/src**\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Title(), "Rename /data-capture to /src"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if got, want := e.Body(), "Rename `/data-capture` to **/src**\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
}

// FuzzPlainTitle: a plain title is one line, never longer than what it
// was made from, and valid text stays valid.
func FuzzPlainTitle(f *testing.F) {
	f.Add("•Rename `/data-capture` to **/src** [docs](https://x)")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		got := PlainTitle(s)
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("PlainTitle(%q) = %q: more than one line", s, got)
		}
		if len(got) > len(s) {
			t.Errorf("PlainTitle(%q) = %q: longer", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("PlainTitle(%q) = %q: invalid UTF-8", s, got)
		}
	})
}
