package librarian

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ctx0/ctx0/librarian/ingest"
)

// TestOfflineGolden runs the offline extractor on every conversation of
// the real transcripts; the goldens show what it keeps of each.
func TestOfflineGolden(t *testing.T) {
	st := ingestFiles(t, t.TempDir(), publishedFiles(t))
	convs, err := st.Conversations(t.Context(), ingest.Queued)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) == 0 {
		t.Fatal("no conversation queued")
	}
	type result struct {
		Conversation string     `json:"conversation"`
		Extraction   Extraction `json:"extraction"`
	}
	var all []result
	for _, c := range convs {
		msgs, err := st.Messages(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		x := Offline(c, msgs)
		data, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseExtraction(data); err != nil {
			t.Errorf("conversation %s: the offline extraction fails the schema: %v", ConversationRef(c), err)
		}
		all = append(all, result{ConversationRef(c), x})
	}
	got, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "offline.golden.json"), append(got, '\n'))
}
