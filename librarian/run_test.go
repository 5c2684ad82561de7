package librarian

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// testVault is a new vault with its index, as the CLI opens it.
func testVault(t *testing.T) (*vault.Vault, *index.Index) {
	t.Helper()
	gittest.Require(t)
	v := vaulttest.New(t, vault.WithClock(now))
	ix, err := index.Open(t.Context(), v, index.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	v.SetCatalog(ix)
	t.Cleanup(func() { ix.Close() })
	return v, ix
}

// runAll files every queued conversation, as ctx0 librarian run --all --queued
// does, and returns what each run did.
func runAll(t *testing.T, o Options) []Result {
	t.Helper()
	var out []Result
	for {
		res, err := Run(t.Context(), o)
		if errors.Is(err, sessions.ErrNoWork) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
}

// vaultDump is every entry file of the vault's work tree but me.md, each
// under a header with its path, for a golden file.
func vaultDump(t *testing.T, v *vault.Vault) []byte {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(v.Root(), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(v.Root(), p)
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && rel != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".md") && rel != "me.md" && rel != "CONTEXT.md" {
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(v.Root(), p))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("=== " + p + "\n")
		b.Write(data)
	}
	return []byte(b.String())
}

// TestRunRealTranscripts files the real Claude Code and Codex sessions
// offline: the golden is the vault afterwards. Running again on every
// conversation changes nothing: no commit, no file.
func TestRunRealTranscripts(t *testing.T) {
	v, ix := testVault(t)
	st := ingestFiles(t, v.Root(), publishedFiles(t))
	o := Options{Vault: v, Store: st, Search: ix, Now: now, Loc: time.UTC}
	results := runAll(t, o)
	if len(results) == 0 {
		t.Fatal("nothing filed")
	}
	for _, r := range results {
		if r.Run.Status != agent.StatusDone || r.Run.Result == "" {
			t.Errorf("conversation %d: run %s status %s result %q, want done with a commit", r.Conversation.ID, r.Run.ID, r.Run.Status, r.Run.Result)
		}
		if r.Run.Provider != "offline" {
			t.Errorf("run provider %q, want offline", r.Run.Provider)
		}
	}
	gittest.CheckClean(t, v.Root())
	golden.Check(t, filepath.Join("testdata", "real.vault.golden"), vaultDump(t, v), *update)
	checkDoctor(t, ix)

	convs, err := st.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	archived := 0
	for _, c := range convs {
		if c.Status == sessions.Queued || c.Status == sessions.Processing {
			t.Errorf("conversation %d still %s", c.ID, c.Status)
		}
		if c.Status == sessions.Archived {
			archived++
		}
	}
	if archived != len(results) {
		t.Errorf("%d conversations archived, want %d", archived, len(results))
	}

	// Idempotence: every conversation again, by id.
	head := gittest.Run(t, v.Root(), "rev-parse", "HEAD")
	for _, r := range results {
		o.Conversation = r.Conversation.ID
		again, err := Run(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !again.Filed.Already || again.Run.Result != "" || len(again.Run.Created)+len(again.Run.Updated) > 0 {
			t.Errorf("conversation %d filed again: %+v", r.Conversation.ID, again.Filed)
		}
	}
	if h := gittest.Run(t, v.Root(), "rev-parse", "HEAD"); h != head {
		t.Errorf("filing again moved the branch from %s to %s", head, h)
	}
	gittest.CheckClean(t, v.Root())
}

// TestRunByID files the conversation asked for, not the oldest queued,
// and leaves the others in the queue; one that is not queued is refused.
func TestRunByID(t *testing.T) {
	v, ix := testVault(t)
	var files []sessions.File
	for _, n := range []string{"billing.jsonl", "injection.jsonl"} {
		f, err := sessions.FileAt(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	st := ingestFiles(t, v.Root(), files)
	convs, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil || len(convs) != 2 {
		t.Fatalf("queued: %v, %v", convs, err)
	}
	newest := convs[len(convs)-1]
	res, err := Run(t.Context(), Options{Vault: v, Store: st, Search: ix, Conversation: newest.ID, Now: now, Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if res.Conversation.ID != newest.ID {
		t.Errorf("filed conversation %d, want %d", res.Conversation.ID, newest.ID)
	}
	left, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil || len(left) != 1 || left[0].ID != convs[0].ID {
		t.Errorf("queued after: %v, %v; want the other one", left, err)
	}
	if _, err := st.IngestLog(t.Context(), transcript.Log{Session: "short", Messages: []transcript.Message{{Pos: 1, Role: transcript.User, Time: testNow, Text: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	skipped, err := st.Conversations(t.Context(), sessions.Skipped)
	if err != nil || len(skipped) != 1 {
		t.Fatalf("skipped: %v, %v", skipped, err)
	}
	if _, err := Run(t.Context(), Options{Vault: v, Store: st, Conversation: skipped[0].ID, Now: now}); !errors.Is(err, ErrNotQueued) {
		t.Errorf("filing a skipped conversation: %v, want ErrNotQueued", err)
	}
}

// checkDoctor fails on anything ctx0 doctor would report: broken links,
// bad files, duplicate aliases.
func checkDoctor(t *testing.T, ix *index.Index) {
	t.Helper()
	d, err := ix.Doctor(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Problems {
		t.Errorf("doctor: %s %s: %s", p.Kind, p.Name, p.Message)
	}
}

// TestFiledInAnotherTimeZone: a conversation filed by a machine in
// another time zone, whose episode day differs, is not filed again.
func TestFiledInAnotherTimeZone(t *testing.T) {
	v, ix := testVault(t)
	st := billing(t, v.Root())
	res, err := Run(t.Context(), Options{Vault: v, Store: st, Search: ix, Now: now, Loc: time.FixedZone("UTC-10", -10*3600)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Filed.Episode != "episodes/2026-01/2026-01-26" {
		t.Fatalf("filed in %s, want the day before in UTC-10", res.Filed.Episode)
	}
	again, err := Run(t.Context(), Options{Vault: v, Store: st, Search: ix, Conversation: res.Conversation.ID, Now: now, Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Filed.Already || again.Filed.Episode != "episodes/2026-01/2026-01-26" || again.Run.Result != "" {
		t.Errorf("filed again in UTC: %+v", again.Filed)
	}
}
