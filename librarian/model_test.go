package librarian

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// canned stands in for a language model service: it answers every
// request with the same structured reply, and records the requests.
type canned struct {
	reply []byte
	err   error
	// during, if set, runs while the "model" thinks: what the user does
	// meanwhile.
	during func(ctx context.Context) error
	got    []llm.Request
}

var _ llm.Provider = (*canned)(nil)

func (c *canned) Name() string  { return "anthropic" }
func (c *canned) Model() string { return "claude-test" }

func (c *canned) Complete(ctx context.Context, r llm.Request) (llm.Reply, error) {
	c.got = append(c.got, r)
	if c.during != nil {
		if err := c.during(ctx); err != nil {
			return llm.Reply{}, err
		}
	}
	if c.err != nil {
		return llm.Reply{}, c.err
	}
	return llm.Reply{JSON: c.reply, Model: "claude-test", Usage: llm.Usage{InputTokens: 1200, OutputTokens: 340}}, nil
}

// billing ingests testdata/billing.jsonl, one queued conversation.
func billing(t *testing.T, root string) *sessions.Store {
	t.Helper()
	f, err := sessions.FileAt(filepath.Join("testdata", "billing.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return ingestFiles(t, root, []sessions.File{f})
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRunWithModel files a conversation from a model's structured reply,
// through the same writer as offline, while the user writes to the vault
// during the run: both writes survive.
func TestRunWithModel(t *testing.T) {
	v, ix := testVault(t)
	st := billing(t, v.Root())
	if _, _, err := v.Add(t.Context(), vault.AddOptions{Meta: vault.Meta{Type: "project", Source: "user"}, Name: "projects/billing",
		Body: ptr("## Overview\n\nInvoices.\n\n## Activity\n\n- 2026-01-20: Started.\n\n## Notes\n\nAsk Dana about quotas.\n")}); err != nil {
		t.Fatal(err)
	}
	p := &canned{reply: readFile(t, filepath.Join("testdata", "model-reply.json"))}
	p.during = func(ctx context.Context) error {
		if _, err := v.Remember(ctx, vault.RememberOptions{Text: "Payments sync runs hourly.", Type: "fact", Source: "user"}); err != nil {
			return err
		}
		_, _, err := v.Set(ctx, "projects/billing", "tags", "[billing, team-a]")
		return err
	}
	res, err := Run(t.Context(), Options{Vault: v, Store: st, Provider: p, Search: ix, Now: now, Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}

	if len(p.got) != 1 {
		t.Fatalf("%d requests, want 1", len(p.got))
	}
	r := p.got[0]
	if r.SchemaName != SchemaName || string(r.Schema) != string(Schema) || r.System != systemPrompt {
		t.Errorf("request: schema %q (%d bytes), system prompt set %v", r.SchemaName, len(r.Schema), r.System == systemPrompt)
	}
	if strings.Count(r.Prompt, "<transcript>") != 1 || strings.Count(r.Prompt, "</transcript>") != 1 || !strings.Contains(r.Prompt, "[#0] Add a retry") {
		t.Errorf("prompt does not hold the numbered transcript between one pair of delimiters:\n%s", r.Prompt)
	}

	run := res.Run
	if run.Status != agent.StatusDone || run.Provider != "anthropic" || run.Model != "claude-test" || run.Usage.InputTokens != 1200 || run.Usage.OutputTokens != 340 {
		t.Errorf("run record: %+v", run)
	}
	gittest.CheckClean(t, v.Root())
	checkDoctor(t, ix)
	golden.Check(t, filepath.Join("testdata", "model.vault.golden"), vaultDump(t, v), *update)
	dump := string(vaultDump(t, v))
	if run.Conflicts != 0 {
		t.Errorf("%d conflicts, want none", run.Conflicts)
	}
	for _, want := range []string{"Payments sync runs hourly.", "tags: [billing, team-a]", "- 2026-01-20: Started.", "- 2026-01-27: Invoice sync job retries with exponential backoff.", "Ask Dana about quotas."} {
		if !strings.Contains(dump, want) {
			t.Errorf("the vault lost %q", want)
		}
	}
}

func ptr(s string) *string { return &s }

// TestRunFailureRequeues: a model that fails, or a run cancelled mid-way,
// leaves the branch as it was and the conversation back in the queue; the
// run's record says why.
func TestRunFailureRequeues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      *canned
		cancel bool
		status string
	}{
		{"model error", &canned{err: errors.New("HTTP 500: overloaded")}, false, agent.StatusFailed},
		{"reply off the schema", &canned{reply: []byte(`{"episode": {"title": "x"}}`)}, false, agent.StatusFailed},
		{"cancelled", &canned{reply: []byte(`{}`)}, true, agent.StatusCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ix := testVault(t)
			st := billing(t, v.Root())
			head := gittest.Run(t, v.Root(), "rev-parse", "HEAD")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.cancel {
				tc.p.during = func(ctx context.Context) error { cancel(); return ctx.Err() }
			}
			res, err := Run(ctx, Options{Vault: v, Store: st, Provider: tc.p, Search: ix, Now: now, Loc: time.UTC})
			if err == nil {
				t.Fatal("Run succeeded, want an error")
			}
			if res.Run.Status != tc.status {
				t.Errorf("run status %q, want %q (%s)", res.Run.Status, tc.status, res.Run.Error)
			}
			if h := gittest.Run(t, v.Root(), "rev-parse", "HEAD"); h != head {
				t.Errorf("the branch moved")
			}
			gittest.CheckClean(t, v.Root())
			c, err := st.Conversation(t.Context(), res.Conversation.ID)
			if err != nil {
				t.Fatal(err)
			}
			if c.Status != sessions.Queued {
				t.Errorf("conversation %s, want queued", c.Status)
			}
		})
	}
}

// TestRunConflictsListed: the user creates the entry the run creates too.
// Nothing either wrote is lost, and what could not be merged is listed as
// the vault's conflicts (ctx0 conflicts).
func TestRunConflictsListed(t *testing.T) {
	v, ix := testVault(t)
	st := billing(t, v.Root())
	p := &canned{reply: readFile(t, filepath.Join("testdata", "model-reply.json"))}
	p.during = func(ctx context.Context) error {
		_, _, err := v.Add(ctx, vault.AddOptions{Meta: vault.Meta{Title: "Billing service", Type: "project", Source: "user"}, Name: "projects/billing",
			Body: ptr("## Overview\n\nWritten by the user during the run.\n")})
		return err
	}
	res, err := Run(t.Context(), Options{Vault: v, Store: st, Provider: p, Search: ix, Now: now, Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	cs, _, err := v.Conflicts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Conflicts == 0 || len(cs) != res.Run.Conflicts {
		t.Errorf("run counted %d conflicts, the vault lists %d", res.Run.Conflicts, len(cs))
	}
	got := string(readFile(t, filepath.Join(v.Root(), "projects", "billing.md")))
	for _, want := range []string{"Written by the user during the run.", "The billing service: invoices", "Invoice sync job retries with exponential backoff."} {
		if !strings.Contains(got, want) {
			t.Errorf("projects/billing lost %q:\n%s", want, got)
		}
	}
	gittest.CheckClean(t, v.Root())
}
