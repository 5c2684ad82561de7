package curator

import (
	"strings"
	"testing"
	"time"
)

// TestReinforcementAndDecay: a preference the librarian wrote counts an
// observation; each time it is updated again (the librarian seeing it
// again) its confidence rises; left alone it decays and is archived below
// the threshold. The user's own preference stays.
func TestReinforcementAndDecay(t *testing.T) {
	v, c := testVault(t)
	put(t, v, "preferences/short-commits", "---\ntitle: Short commit subjects\ntype: preference\nsource: librarian\ncreated: 2026-05-01T12:00:00Z\nupdated: 2026-05-01T12:00:00Z\n---\nThe user wants commit subjects under 60 characters.\n")
	put(t, v, "preferences/dark-mode", "---\ntitle: Dark mode\ntype: preference\nsource: user\ncreated: 2026-05-01T12:00:00Z\nupdated: 2026-05-01T12:00:00Z\n---\nThe user wants dark mode everywhere.\n")
	curate(t, v, c, false)
	file := func() string { return entryFiles(t, v)["preferences/short-commits.md"] }
	if f := file(); !strings.Contains(f, "observations: 1\n") || !strings.Contains(f, "confidence: 0.5\n") {
		t.Fatalf("after the first run:\n%s", f)
	}
	// Seen again ten days later, and again the day after.
	for _, d := range []time.Duration{10 * day, day} {
		c.Add(d)
		if _, _, err := v.Set(t.Context(), "preferences/short-commits", "updated", c.Now().Format(time.RFC3339)); err != nil {
			t.Fatal(err)
		}
		res := curate(t, v, c, false)
		if len(res.Changes) != 1 || res.Changes[0].Kind != KindConfirm {
			t.Errorf("changes:\n%s", changeLines(res))
		}
	}
	if f := file(); !strings.Contains(f, "observations: 3\n") || !strings.Contains(f, "confidence: 0.88\n") || !strings.Contains(f, "last_observed: 2026-05-12T12:00:00Z\n") {
		t.Fatalf("after two more observations:\n%s", f)
	}
	// 0.875 halves below 0.25 after log2(3.5) half-lives: about 108 days.
	c.Add(100 * day)
	if res := curate(t, v, c, false); len(res.Changes) != 0 {
		t.Errorf("decayed too soon:\n%s", changeLines(res))
	}
	c.Add(10 * day)
	res := curate(t, v, c, false)
	if len(res.Changes) != 1 || res.Changes[0].Kind != KindDecay || res.Changes[0].Other != "archive/preferences/short-commits" {
		t.Fatalf("changes:\n%s", changeLines(res))
	}
	files := entryFiles(t, v)
	if _, ok := files["archive/preferences/short-commits.md"]; !ok {
		t.Error("not archived")
	}
	if _, ok := files["preferences/dark-mode.md"]; !ok {
		t.Error("the user's preference was archived")
	}
}

// TestMergedPreferencesAddUp: two preferences that say the same merge;
// the survivor counts both's observations, and the other's conversation
// is named in the change rather than written into the text.
func TestMergedPreferencesAddUp(t *testing.T) {
	v, c := testVault(t)
	put(t, v, "preferences/tabs", "---\ntitle: Tabs\ntype: preference\nsource: librarian\nconversation: s1@2026-04-01T09:00:00Z\nobservations: 2\nlast_observed: 2026-04-20T09:00:00Z\ncreated: 2026-04-01T09:00:00Z\nupdated: 2026-04-20T09:00:00Z\n---\nThe user indents Go code with tabs.\n")
	put(t, v, "preferences/go-tabs", "---\ntitle: Go tabs\ntype: preference\nsource: librarian\nconversation: s2@2026-04-25T09:00:00Z\ncreated: 2026-04-25T09:00:00Z\nupdated: 2026-04-25T09:00:00Z\n---\nThe user indents Go code with tabs.\n")
	res := curate(t, v, c, false)
	f := entryFiles(t, v)["preferences/tabs.md"]
	for _, want := range []string{"observations: 3\n", "confidence: 0.88\n", "conversation: s1@2026-04-01T09:00:00Z\n", "aliases: [preferences/go-tabs, Go tabs]\n"} {
		if !strings.Contains(f, want) {
			t.Errorf("lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "s2@") {
		t.Errorf("the other's conversation was written in:\n%s", f)
	}
	if !strings.Contains(changeLines(res), "preferences/go-tabs's conversation was s2@2026-04-25T09:00:00Z") {
		t.Errorf("changes:\n%s", changeLines(res))
	}
	if again := curate(t, v, c, false); len(again.Changes) != 0 {
		t.Errorf("a second run:\n%s", changeLines(again))
	}
}
