package vault

import "testing"

// TestSyncSaysWhatItDid: a first sync to an empty remote creates its
// branch (Created, not "up to date with" a branch that was not there); a
// sync with nothing new pushes nothing (Sent false); a sync after a local
// commit sends it.
func TestSyncSaysWhatItDid(t *testing.T) {
	ctx := t.Context()
	a := testVault(t)
	if err := a.AddRemote("origin", bareRemote(t)); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name          string
		write         bool
		created, sent bool
	}{
		{"first sync", false, true, true},
		{"nothing new", false, false, false},
		{"a local commit", true, false, true},
	}
	for _, s := range steps {
		if s.write {
			if _, err := a.Remember(ctx, RememberOptions{Text: "Made before the third sync."}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := a.Sync(ctx, SyncOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !res.Pushed || res.Created != s.created || res.Sent != s.sent {
			t.Errorf("%s: pushed %v, created %v, sent %v; want pushed, created %v, sent %v", s.name, res.Pushed, res.Created, res.Sent, s.created, s.sent)
		}
	}
}
