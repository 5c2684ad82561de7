package extractor

import (
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault/entry"
)

// TestBlocksKeepWhatWasSaid: an entry is never quoted by a heading, a
// conversation marker or where it was learned alone, and an error goes
// with its fix.
func TestBlocksKeepWhatWasSaid(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string // each a passage holds, whole
	}{
		{"error and fix", "Error: There's an issue with the winston logger\n\nFix: import it with a named import and set the level to verbose.\n",
			[]string{"Error: There's an issue with the winston logger\nFix: import it with a named import and set the level to verbose."}},
		{"heading and marker", "## Queues\nConversation: `s1@2025-11-13T10:00:00Z`\n\n- **Asked:** why two codex queues?\n- **Done:** one codex queue\n",
			[]string{"## Queues\nConversation: `s1@2025-11-13T10:00:00Z`\n- **Asked:** why two codex queues?"}},
		{"provenance", "Use one codex queue: the auth volume is shared.\n\nLearned 2025-11-13 in [[episodes/2025-11/2025-11-13]] (project [[projects/moonmind]]).\n",
			[]string{"Use one codex queue: the auth volume is shared.\nLearned 2025-11-13 in [[episodes/2025-11/2025-11-13]] (project [[projects/moonmind]])."}},
	} {
		e, err := entry.Parse([]byte("---\ntitle: t\ntype: fact\n---\n" + c.body))
		if err != nil {
			t.Fatal(err)
		}
		ps := blocks(e)
		for _, w := range c.want {
			found := false
			for _, p := range ps {
				found = found || strings.Contains(p.text, w)
			}
			if !found {
				t.Errorf("%s: no passage holds %q; passages %+v", c.name, w, ps)
			}
		}
		for _, p := range ps {
			if l := strings.Split(p.text, "\n"); strings.HasPrefix(l[0], "Learned ") || len(l) == 1 && strings.HasPrefix(l[0], "#") {
				t.Errorf("%s: a passage of chrome alone: %q", c.name, p.text)
			}
		}
	}
}
