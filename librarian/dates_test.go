package librarian

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

// TestRunDatesRelativeTimes checks that what the librarian files says
// when things happened: a relative time said in a conversation gets its
// date beside it, counted from when it was said, offline and in what a
// model is given to read.
func TestRunDatesRelativeTimes(t *testing.T) {
	f, err := sessions.FileAt(filepath.Join("testdata", "dates.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Offline: the filed entries carry the dates.
	v, ix := testVault(t)
	st := ingestFiles(t, v.Root(), []sessions.File{f})
	if _, err := Run(t.Context(), Options{Vault: v, Store: st, Search: ix, Now: now, Loc: time.UTC}); err != nil {
		t.Fatal(err)
	}
	dump := string(vaultDump(t, v))
	for _, want := range []string{"yesterday (2023-05-07)", "next Friday (2023-05-12)"} {
		if !strings.Contains(dump, want) {
			t.Errorf("the filed vault does not say %q:\n%s", want, dump)
		}
	}
	// With a model: the transcript it reads carries them, and it is told
	// to keep them.
	v, ix = testVault(t)
	st = ingestFiles(t, v.Root(), []sessions.File{f})
	p := &canned{reply: readFile(t, filepath.Join("testdata", "model-reply.json"))}
	if _, err := Run(t.Context(), Options{Vault: v, Store: st, Provider: p, Search: ix, Now: now, Loc: time.UTC}); err != nil {
		t.Fatal(err)
	}
	if len(p.got) != 1 {
		t.Fatalf("%d requests, want 1", len(p.got))
	}
	for _, want := range []string{"pottery class yesterday (2023-05-07).", "the first lesson is next Friday (2023-05-12)."} {
		if !strings.Contains(p.got[0].Prompt, want) {
			t.Errorf("the model's transcript does not say %q:\n%s", want, p.got[0].Prompt)
		}
	}
	if !strings.Contains(p.got[0].System, "yesterday (2023-05-07)") {
		t.Errorf("the system prompt does not ask for dates")
	}
}

// TestDatedInTheMessagesLocation checks that a message's relative times are
// counted in the librarian's location: said late on 7 May in UTC, it is
// already 8 May in Tokyo.
func TestDatedInTheMessagesLocation(t *testing.T) {
	msgs := []transcript.Message{{Role: transcript.User, Text: "I signed up yesterday.", Time: time.Date(2023, 5, 7, 20, 0, 0, 0, time.UTC)}}
	tokyo := time.FixedZone("JST", 9*3600)
	got := dated(msgs, tokyo)
	if !strings.Contains(got[0].Text, "yesterday (2023-05-07)") {
		t.Errorf("in Tokyo: %q", got[0].Text)
	}
	if got := dated(msgs, time.UTC); !strings.Contains(got[0].Text, "yesterday (2023-05-06)") {
		t.Errorf("in UTC: %q", got[0].Text)
	}
	if strings.Contains(msgs[0].Text, "(") {
		t.Errorf("dated changed its argument: %q", msgs[0].Text)
	}
}
