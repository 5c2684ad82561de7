package index

import (
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault"
)

// TestWatcherAnswersSearches: a reader's search goes to the running
// watcher, which answers what the reader's own search of the same index
// would, fresh with a file written the moment before; a reader of another
// version is turned away, and once the watcher stops, readers search on
// their own.
func TestWatcherAnswersSearches(t *testing.T) {
	ctx := t.Context()
	v, ix := searchVault(t, map[string]string{
		"contacts/sarah-chen.md":    "---\ntitle: Sarah Chen\ntags: [investor]\n---\nPartner at Example Ventures; owns the billing deal.\n",
		"knowledge/deploy.md":       "---\ntitle: Deploying\n---\nThe staging deploy key lives in the vault. Fresh start on Mondays.\n",
		"decisions/use-postgres.md": "---\ntitle: Use Postgres\n---\nWe decided on Postgres for billing.\n",
	})
	stop := startWatcher(t, v)
	writeFile(t, v, "knowledge/editor.md", "---\ntitle: Written in an editor\n---\nA note about billing, just saved.\n")

	for _, q := range []Query{
		{Text: "billing"},
		{Text: "sarah OR postgres"},
		{Text: `"fresh start"`},
		{Text: "deploy*", Limit: 1},
		{Text: "billing", Type: "decision"},
		{Text: "nothing-matches-this"},
	} {
		remote, err := ix.searchWatcher(ctx, q)
		if err != nil {
			t.Fatalf("search %+v through the watcher: %v", q, err)
		}
		local, err := (&Index{shared: ix.shared, checked: true}).searchHere(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if r, l := jsonOf(t, remote), jsonOf(t, local); r != l {
			t.Errorf("search %+v: the watcher answered\n%s\nthe reader finds\n%s", q, r, l)
		}
		if q.Text == "billing" && q.Type == "" && !strings.Contains(jsonOf(t, remote), "knowledge/editor") {
			t.Errorf("the watcher's answer misses the file written before the search: %s", jsonOf(t, remote))
		}
	}

	// A reader of another version.
	conn, err := net.Dial("unix", ix.socketPath())
	if err != nil {
		t.Fatal(err)
	}
	json.NewEncoder(conn).Encode(watcherRequest{Version: serveVersion + 1, Schema: schemaVersion, Query: Query{Text: "billing"}})
	var ans watcherAnswer
	if err := json.NewDecoder(conn).Decode(&ans); err != nil || !strings.Contains(ans.Error, "version") || ans.Results != nil {
		t.Errorf("answer to another version = %+v, %v; want a version error and no results", ans, err)
	}
	conn.Close()

	stop()
	if _, err := ix.searchWatcher(ctx, Query{Text: "billing"}); !errors.Is(err, errNoWatcher) {
		t.Errorf("search after the watcher stopped: %v, want errNoWatcher", err)
	}
	if got := names(find(t, ix, Query{Text: "editor"})); len(got) != 1 {
		t.Errorf("search on its own after the watcher stopped = %q", got)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWatcherTakesQueue: a process that hands its writes off (ctx0
// remember, add) gets them made by the running watcher, in a commit that
// names the queued write; a request to take the queue from another
// version is turned away.
func TestWatcherTakesQueue(t *testing.T) {
	ctx := t.Context()
	v, _ := searchVault(t, nil)
	startWatcher(t, v)

	// Another process's view of the vault: its own vault and index.
	other, err := vault.Open(ctx, v.Root())
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, other, nil)
	other.HandOff(ix)
	r, err := other.Remember(ctx, vault.RememberOptions{Text: "The watcher makes the writes of short-lived processes."})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Commit.Message, "\nCtx0-Write: ") || len(r.Commit.Paths) != 1 || r.Commit.Paths[0] != r.Name+".md" {
		t.Errorf("remember handed to the watcher = %+v; want its entry in a commit of the watcher's, naming the queued write", r)
	}

	// A writer of another version: its request is refused, so its
	// TakeQueue fails and it makes its write by the queue's rules.
	conn, err := net.Dial("unix", ix.socketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	json.NewEncoder(conn).Encode(watcherRequest{Version: serveVersion + 1, Schema: schemaVersion, Take: true})
	var ans watcherAnswer
	if err := json.NewDecoder(conn).Decode(&ans); err != nil || !strings.Contains(ans.Error, "version") {
		t.Errorf("answer to a take of another version = %+v, %v; want a version error", ans, err)
	}
}
