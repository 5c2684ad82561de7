package vault

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault/entry"
)

// TestWritesRefuseWhatReadsRefuse: every write path refuses text that a
// read would refuse (a NUL byte, more than entry.MaxSize bytes, invalid
// UTF-8), with an error that names the argument, and commits nothing.
func TestWritesRefuseWhatReadsRefuse(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	body := "ok"
	if _, _, err := v.Add(ctx, AddOptions{Name: "knowledge/target", Body: &body}); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD"))
	bad := []struct {
		name, text string
		want       error
	}{
		{"NUL", "a\x00b", entry.ErrBinary},
		{"too large", strings.Repeat("x", entry.MaxSize+1), entry.ErrTooLarge},
		{"invalid UTF-8", "caf\xe9", entry.ErrInvalidUTF8},
	}
	paths := []struct {
		name, arg string
		write     func(text string) error
	}{
		{"add", "body", func(s string) error {
			_, _, err := v.Add(ctx, AddOptions{Name: "knowledge/new", Body: &s})
			return err
		}},
		{"write", "body", func(s string) error { _, _, err := v.Write(ctx, "knowledge/target", s); return err }},
		{"set", "value", func(s string) error { _, _, err := v.Set(ctx, "knowledge/target", "note", s); return err }},
		{"edit", "the new body", func(s string) error {
			_, _, err := v.EditBody(ctx, "knowledge/target", "edit", func(string) (string, error) { return s, nil })
			return err
		}},
		{"create", "create knowledge/created", func(s string) error {
			_, err := v.Create(ctx, "knowledge/created", []byte("---\ntitle: x\n---\n"+s))
			return err
		}},
		{"import", "knowledge/imported", func(s string) error {
			_, err := v.Import(ctx, []ImportFile{{Name: "knowledge/imported", Data: []byte(s)}}, "backup")
			return err
		}},
		{"run", "knowledge/run.md", func(s string) error {
			_, err := v.CommitRun(ctx, "r", base, map[string][]byte{"knowledge/run.md": []byte(s)}, "run")
			return err
		}},
	}
	for _, p := range paths {
		for _, b := range bad {
			t.Run(p.name+"/"+b.name, func(t *testing.T) {
				err := p.write(b.text)
				if !errors.Is(err, b.want) {
					t.Fatalf("got %v, want %v", err, b.want)
				}
				if msg := err.Error(); !strings.Contains(msg, p.arg) || strings.Contains(msg, "\n") || len(msg) > 300 {
					t.Errorf("error %q is not one line naming %q", msg, p.arg)
				}
			})
		}
	}
	// remember: the text; a large one is over remember's own limit first.
	for _, b := range bad {
		_, err := v.Remember(ctx, RememberOptions{Text: b.text})
		if !errors.Is(err, b.want) && !(b.want == entry.ErrTooLarge && errors.Is(err, ErrTooLong)) {
			t.Errorf("remember %s: got %v", b.name, err)
		}
	}
	if head := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD")); head != base {
		t.Errorf("a refused write committed: HEAD moved from %s to %s", base, head)
	}
	checkClean(t, v)
}
