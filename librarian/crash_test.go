package librarian

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// helperEnv names the vault a helper process files into, in
// TestKillMidRun.
const helperEnv = "CTX0_LIBRARIAN_KILL_HELPER"

// stalled is a model that never answers: it says it was asked, on
// stdout, and waits to be killed.
type stalled struct{}

func (stalled) Name() string  { return "anthropic" }
func (stalled) Model() string { return "claude-test" }
func (stalled) Complete(ctx context.Context, _ llm.Request) (llm.Reply, error) {
	fmt.Println("ctx0-helper: asked")
	<-ctx.Done()
	return llm.Reply{}, ctx.Err()
}

// TestKillMidRun kills -9 a process in the middle of a librarian run (its
// conversation claimed, its agent run begun, the model asked). The branch
// is as it was, the next opening of the ingest state puts the conversation
// back in the queue, the run lists as died, and filing again files it
// once.
func TestKillMidRun(t *testing.T) {
	if root := os.Getenv(helperEnv); root != "" {
		v, err := vault.Open(t.Context(), root, vault.WithClock(now))
		if err != nil {
			t.Fatal(err)
		}
		st, err := sessions.Open(t.Context(), root, sessions.WithClock(now))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(t.Context(), Options{Vault: v, Store: st, Provider: stalled{}, Now: now, Loc: time.UTC})
		t.Fatalf("the helper's run ended: %v", err)
	}
	v, ix := testVault(t)
	st := billing(t, v.Root())
	head := gittest.Run(t, v.Root(), "rev-parse", "HEAD")

	cmd := exec.Command(os.Args[0], "-test.run=^TestKillMidRun$")
	cmd.Env = append(os.Environ(), helperEnv+"="+v.Root())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	asked := false
	for !asked && sc.Scan() {
		asked = strings.Contains(sc.Text(), "ctx0-helper: asked")
	}
	if !asked {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the helper ended before asking its model")
	}
	if c, err := st.Conversations(t.Context(), sessions.Processing); err != nil || len(c) != 1 {
		t.Fatalf("processing while the helper runs: %v, %v", c, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	if h := gittest.Run(t, v.Root(), "rev-parse", "HEAD"); h != head {
		t.Errorf("the killed run moved the branch")
	}
	gittest.CheckClean(t, v.Root())
	runs, err := agent.List(t.Context(), v.Root())
	if err != nil || len(runs) != 1 || runs[0].Status != agent.StatusDied {
		t.Errorf("runs after the kill: %+v, %v; want one that died", runs, err)
	}
	st2, err := sessions.Open(t.Context(), v.Root(), sessions.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	queued, err := st2.Conversations(t.Context(), sessions.Queued)
	if err != nil || len(queued) != 1 {
		t.Fatalf("queued after the kill: %v, %v; want the conversation back", queued, err)
	}

	res, err := Run(t.Context(), Options{Vault: v, Store: st2, Search: ix, Now: now, Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if res.Conversation.ID != queued[0].ID || res.Run.Status != agent.StatusDone {
		t.Errorf("the next run: %+v", res.Run)
	}
	ep := string(readFile(t, filepath.Join(v.Root(), "episodes", "2026-01", "2026-01-27.md")))
	if n := strings.Count(ep, marker(ConversationRef(res.Conversation))); n != 1 {
		t.Errorf("the conversation is in its episode %d times, want once", n)
	}
	gittest.CheckClean(t, v.Root())
}
