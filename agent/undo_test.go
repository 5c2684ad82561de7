package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/vault"
)

// TestUndoRevertsWhatTheRunMerged: a run merged beside a person's write
// is undone by one new commit; the person's write stays.
func TestUndoRevertsWhatTheRunMerged(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	s := begin(t, v, clock)
	old, err := s.Read(ctx, "knowledge/alpha.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write("knowledge/alpha.md", []byte(strings.Replace(string(old), "tags: [a]", "tags: [a, b]", 1))); err != nil {
		t.Fatal(err)
	}
	if err := s.Write("knowledge/new.md", []byte("---\ntitle: New\n---\nFiled by the run.\n")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.Write(ctx, "knowledge/alpha", "One.\nTwo, edited by the user.\n"); err != nil {
		t.Fatal(err)
	}
	run, err := s.Finish(ctx, "librarian: file conversation 7")
	if err != nil {
		t.Fatal(err)
	}
	merged := gittest.Run(t, v.Root(), "rev-parse", "HEAD")
	r, err := Undo(ctx, v, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	gittest.CheckClean(t, v.Root())
	if got := gittest.Run(t, v.Root(), "log", "-1", "--format=%P %s"); got != merged+" revert run "+run.ID {
		t.Errorf("the undo commit: %q", got)
	}
	if r.Hash != gittest.Run(t, v.Root(), "rev-parse", "HEAD") {
		t.Errorf("Undo returned %s, not HEAD", r.Hash)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "knowledge", "new.md")); !os.IsNotExist(err) {
		t.Errorf("the run's new entry is still there: %v", err)
	}
	alpha, err := os.ReadFile(filepath.Join(v.Root(), "knowledge", "alpha.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(alpha), "tags: [a]\n") || !strings.Contains(string(alpha), "Two, edited by the user.") {
		t.Errorf("alpha after the undo:\n%s", alpha)
	}
	if _, err := Undo(ctx, v, run.ID); !errors.Is(err, vault.ErrNothingToRevert) {
		t.Errorf("a second undo: %v, want ErrNothingToRevert", err)
	}

	// A run that changed nothing never reached the branch.
	empty, err := begin(t, v, clock).Finish(ctx, "librarian: nothing")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(ctx, v, empty.ID); !errors.Is(err, vault.ErrNothingToRevert) {
		t.Errorf("undo of a run that changed nothing: %v", err)
	}
	if _, err := Undo(ctx, v, "../../x"); !errors.Is(err, ErrNoRun) {
		t.Errorf("undo of a bad run id: %v", err)
	}
	gittest.CheckClean(t, v.Root())
}
