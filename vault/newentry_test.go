package vault

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
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
