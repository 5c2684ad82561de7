package mcp

import (
	"strings"
	"testing"
)

// TestRememberLinksOneCommit: remember with links writes the entry and its
// links in one commit, as any new entry is made.
func TestRememberLinksOneCommit(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	dir := f.v.Root()
	before := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	out := ok(t, cs, "remember", map[string]any{"content": "The billing service runs on Postgres 16.", "links": []string{"projects/billing", "contacts/sarah"}})
	name := strings.TrimSuffix(strings.TrimPrefix(out, "Saved as "), ".")
	if got := strings.Fields(git(t, dir, "rev-list", before+"..HEAD")); len(got) != 1 {
		t.Errorf("%d commits for one remember: %v", len(got), got)
	}
	if data := git(t, dir, "show", "HEAD:"+name+".md"); !strings.Contains(data, "links: [projects/billing, contacts/sarah]\n") {
		t.Errorf("%s:\n%s", name, data)
	}
}
