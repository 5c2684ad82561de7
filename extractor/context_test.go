package extractor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/templates"
)

// TestContextGolden compares session-start blocks of the fixture vault with
// testdata/context (go test -update rewrites them).
func TestContextGolden(t *testing.T) {
	m := fixture(t)
	for _, c := range []struct {
		name string
		opt  ContextOptions
		json bool
	}{
		{"bot0", ContextOptions{Project: "github.com/me/bot0"}, true},
		{"global", ContextOptions{}, false},
		{"small", ContextOptions{Project: "github.com/me/bot0", Budget: MinContextBudget}, false},
		{"mcp", ContextOptions{Project: "github.com/me/bot0", Usage: UsageMCP}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := Context(t.Context(), m, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkBlock(t, b)
			golden.Check(t, filepath.Join("testdata", "context/"+c.name+".txt"), []byte(b.Text), *update)
			if c.json {
				golden.Check(t, filepath.Join("testdata", "context/"+c.name+".json"), jsonOf(t, b), *update)
			}
		})
	}
}

func checkBlock(t *testing.T, b Block) {
	t.Helper()
	if n := Tokens(b.Text); n > b.Budget || n != b.Tokens {
		t.Errorf("block takes %d tokens, says %d, budget %d", n, b.Tokens, b.Budget)
	}
	if !strings.HasPrefix(b.Text, "<memory>\n") || !strings.HasSuffix(b.Text, "</memory>\n") {
		t.Errorf("not a <memory> block:\n%s", b.Text)
	}
}

// TestContextWithSummaries checks the block's order once the curator has
// made summaries: the newest compacted one, the incremental ones since,
// then only the entries changed after the newest summary.
func TestContextWithSummaries(t *testing.T) {
	m := fixture(t)
	for rel, data := range map[string]string{
		"summaries/2026-01-25-compacted.md":   "---\ntitle: Summary to 2026-01-25\ntype: summary\ntags: [compacted]\ncreated: 2026-01-25T23:00:00Z\nupdated: 2026-01-25T23:00:00Z\n---\nThe user builds bot0, a local-first agent daemon, and is raising a seed round with Sarah Chen. New TypeScript projects use Bun and strict mode.\n",
		"summaries/2026-01-20-compacted.md":   "---\ntitle: Summary to 2026-01-20\ntype: summary\ntags: [compacted]\ncreated: 2026-01-20T23:00:00Z\nupdated: 2026-01-20T23:00:00Z\n---\nAn older roll-up that a newer one replaces.\n",
		"summaries/2026-01-27-incremental.md": "---\ntitle: Summary of 2026-01-26 and 27\ntype: summary\ntags: [incremental]\ncreated: 2026-01-27T23:00:00Z\nupdated: 2026-01-27T23:00:00Z\n---\nThe memory spec was finalized; summaries cut the session-start context tenfold.\n",
	} {
		if err := writeFile(filepath.Join(m.Vault.Root(), rel), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Context(t.Context(), m, ContextOptions{Project: "github.com/me/bot0"})
	if err != nil {
		t.Fatal(err)
	}
	checkBlock(t, b)
	golden.Check(t, filepath.Join("testdata", "context/summaries.txt"), []byte(b.Text), *update)
	if strings.Contains(b.Text, "older roll-up") {
		t.Error("the block holds a compacted summary older than the newest")
	}
	for _, it := range b.Items {
		if it.Section == "latest" && it.Date.Before(clock.AddDate(0, 0, -5)) {
			t.Errorf("latest holds %s of %s, which the summaries cover", it.Name, it.Date)
		}
	}
}

// TestContextLatestByWhenFiled: an entry filed after the newest summary is
// in the block's latest, however long ago what it tells happened (a fact
// learned in July, filed today), and is dated by that.
func TestContextLatestByWhenFiled(t *testing.T) {
	m := fixture(t)
	for rel, data := range map[string]string{
		"summaries/2026-01-27-compacted.md": "---\ntitle: Summary to 2026-01-27\ntype: summary\ntags: [compacted]\ncreated: 2026-01-27T23:00:00Z\nupdated: 2026-01-27T23:00:00Z\n---\nThe user builds bot0.\n",
		"knowledge/one-queue.md":            "---\ntitle: One queue for every job\nconversation: \"abc@2025-07-22T09:15:00Z\"\ncreated: 2026-01-28T09:00:00Z\nupdated: 2026-01-28T09:00:00Z\n---\nThe jobs share one queue.\n",
	} {
		if err := writeFile(filepath.Join(m.Vault.Root(), rel), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Context(t.Context(), m, ContextOptions{Project: "github.com/me/bot0"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(b.Items, func(it BlockItem) bool { return it.Name == "knowledge/one-queue" })
	if i < 0 || b.Items[i].Section != "latest" {
		t.Fatalf("the fact filed after the summary is not in latest:\n%s", b.Text)
	}
	if got := b.Items[i].Date.Format(time.RFC3339); got != "2025-07-22T09:15:00Z" {
		t.Errorf("dated %s, want when it happened, 2025-07-22T09:15:00Z", got)
	}
}

// TestContextStable checks that the block does not change from one call to
// the next, nor when another project gains an entry, so that a prompt
// cache holding it stays warm.
func TestContextStable(t *testing.T) {
	m := fixture(t)
	opt := ContextOptions{Project: "github.com/me/bot0"}
	first, err := Context(t.Context(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	other := "---\ntitle: Other project note\nproject: elsewhere\ncreated: 2026-01-31T10:00:00Z\nupdated: 2026-01-31T10:00:00Z\n---\nSomething about another project.\n"
	if err := writeFile(filepath.Join(m.Vault.Root(), "knowledge", "other.md"), []byte(other)); err != nil {
		t.Fatal(err)
	}
	second, err := Context(t.Context(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if first.Text != second.Text {
		t.Errorf("the block changed:\n%s\nthen:\n%s", first.Text, second.Text)
	}
}

// TestContextProjectFromGitRemote checks that the project is found as
// transcript ingestion finds it: the normalized remote of the folder's
// git repository.
func TestContextProjectFromGitRemote(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git binary")
	}
	m := fixture(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "git@GitHub.com:me/bot0.git"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	sub := filepath.Join(dir, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := Context(t.Context(), m, ContextOptions{Dir: sub})
	if err != nil {
		t.Fatal(err)
	}
	if b.Project != "github.com/me/bot0" || !strings.Contains(b.Text, "knowledge/staging-deploy-key") {
		t.Errorf("project %q; block:\n%s", b.Project, b.Text)
	}
}

// TestContextProjectScope: the block of a session in a project holds that
// project's entries, under whichever name the project field gives it (the
// repository, its last part, or the name of its entry as the librarian
// writes it: "web-app" for github.com/me/web.app), what is global, and
// the days whose episode names the project; not another project's.
func TestContextProjectScope(t *testing.T) {
	m := fixture(t)
	for rel, project := range map[string]string{
		"knowledge/web-slug.md": "web-app", "knowledge/web-repo.md": "github.com/me/web.app",
		"knowledge/web-base.md": "web.app", "knowledge/other.md": "other-app",
	} {
		data := fmt.Sprintf("---\ntitle: Note %s\nproject: %s\ncreated: 2026-01-31T10:00:00Z\nupdated: 2026-01-31T10:00:00Z\n---\nA note.\n", strings.TrimSuffix(filepath.Base(rel), ".md"), project)
		if err := writeFile(filepath.Join(m.Vault.Root(), rel), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	for rel, body := range map[string]string{
		"episodes/2026-01/2026-01-30.md": "## 2026-01-30 09:00 Fix the login form\n\nConversation: `s1` (claude-code, 4 messages, project [[projects/web-app]])\n",
		"episodes/2026-01/2026-01-31.md": "## 2026-01-31 09:00 Tune the queue\n\nConversation: `s2` (codex, 4 messages, project [[projects/other-app]])\n",
	} {
		data := "---\ntitle: " + strings.TrimSuffix(filepath.Base(rel), ".md") + "\ntype: episode\ncreated: 2026-01-31T10:00:00Z\nupdated: 2026-01-31T10:00:00Z\n---\n" + body
		if err := writeFile(filepath.Join(m.Vault.Root(), rel), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Context(t.Context(), m, ContextOptions{Project: "github.com/me/web.app"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"knowledge/web-slug", "knowledge/web-repo", "knowledge/web-base", "episodes/2026-01/2026-01-30"} {
		if !strings.Contains(b.Text, want) {
			t.Errorf("the block lacks %s of this project:\n%s", want, b.Text)
		}
	}
	for _, other := range []string{"knowledge/other", "episodes/2026-01/2026-01-31"} {
		if strings.Contains(b.Text, other) {
			t.Errorf("the block holds another project's %s:\n%s", other, b.Text)
		}
	}
}

func TestContextBudgetTooSmall(t *testing.T) {
	m := fixture(t)
	if _, err := Context(t.Context(), m, ContextOptions{Budget: MinContextBudget - 1}); !errors.Is(err, ErrBudget) {
		t.Errorf("err = %v, want ErrBudget", err)
	}
}

// TestContextLeavesOutWhatSaysNothing checks that the block shows a new
// vault's me.md, still its template, as empty rather than as known about
// the user, and leaves the librarian's own questions log out of the latest.
func TestContextLeavesOutWhatSaysNothing(t *testing.T) {
	m := fixture(t)
	var me string
	for _, f := range templates.Vault() {
		if f.Path == "me.md" {
			me = string(f.Data)
		}
	}
	if me == "" {
		t.Fatal("no me.md in the vault template")
	}
	for rel, data := range map[string]string{
		"me.md":                        me,
		"logs/librarian-questions.md":  "---\ntitle: Librarian questions\ntype: log\nsource: librarian\ncreated: 2026-01-31T10:00:00Z\nupdated: 2026-01-31T10:00:00Z\n---\nQuestions the librarian could not answer from a conversation.\n\n- why does the deploy fail on staging?\n",
		"knowledge/fresh-fact-here.md": "---\ntitle: Staging deploys on Tuesdays\ntype: fact\ncreated: 2026-01-31T11:00:00Z\nupdated: 2026-01-31T11:00:00Z\n---\nStaging deploys go out on Tuesdays.\n",
	} {
		if err := writeFile(filepath.Join(m.Vault.Root(), rel), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Context(t.Context(), m, ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Text, "Who the user is") {
		t.Errorf("the block shows me.md's template as known:\n%s", b.Text)
	}
	if !strings.Contains(b.Text, "empty, not filled in yet (me.md)") {
		t.Errorf("the block does not say me.md is empty:\n%s", b.Text)
	}
	if strings.Contains(b.Text, "Librarian questions") || strings.Contains(b.Text, "deploy fail") {
		t.Errorf("the block shows the librarian's questions log:\n%s", b.Text)
	}
	if !strings.Contains(b.Text, "Staging deploys on Tuesdays") {
		t.Errorf("the latest entry is not in the block:\n%s", b.Text)
	}
}
