package vault

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/redact/redacttest"
	"github.com/ctx0/ctx0/vault/entry"
)

// joined is every text of cases, a blank line between two.
func joined(cases []redacttest.Case) string {
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.Text
	}
	return strings.Join(texts, "\n\n") + "\n"
}

// TestNamesRedact: a name made from text, typed or taken from a title,
// never carries a secret of the corpus.
func TestNamesRedact(t *testing.T) {
	secrets, _ := redacttest.Corpus(t)
	for _, c := range secrets {
		if s := c.Leaks(SlugFromTitle(c.Text)); s != "" {
			t.Errorf("%s: SlugFromTitle(%q) = %q holds %q", c.Name, c.Text, SlugFromTitle(c.Text), s)
		}
		n, err := NormalizeName("knowledge/" + c.Text)
		if err != nil {
			continue // refused ("//" makes an empty segment): nothing named
		}
		if s := c.Leaks(n); s != "" {
			t.Errorf("%s: NormalizeName(%q) = %q holds %q", c.Name, c.Text, n, s)
		}
	}
}

// TestWritePathsRedact runs the secrets of the corpus through every way
// text enters the vault (remember one by one; add with a title and body,
// write, set, edit, create, import and a run's commit), then reads
// everything git holds, every commit of every ref with its message, names
// and contents: no secret is there. The near-misses go in through remember
// and add and come out unchanged.
func TestWritePathsRedact(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	secrets, keeps := redacttest.Corpus(t)
	base := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD"))
	for _, c := range secrets {
		r, err := v.Remember(ctx, RememberOptions{Text: c.Text})
		if err != nil {
			t.Fatalf("%s: remember: %v", c.Name, err)
		}
		if len(r.Commit.Redacted) == 0 && !r.Duplicate {
			t.Errorf("%s: remember did not say it redacted anything", c.Name)
		}
	}
	all := joined(secrets)
	name, ac, err := v.Add(ctx, AddOptions{Name: "knowledge/all " + secrets[0].Text, Meta: Meta{Title: secrets[0].Text}, Body: &all})
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	if len(ac.Redacted) == 0 {
		t.Error("add did not say it redacted anything")
	}
	if _, _, err := v.Write(ctx, name, "before\n"+all); err != nil {
		t.Fatalf("write: %v", err)
	}
	if _, _, err := v.EditBody(ctx, name, "edit", func(b string) (string, error) { return all + b, nil }); err != nil {
		t.Fatalf("edit: %v", err)
	}
	for _, c := range secrets {
		// Set reads the value as YAML: "password: x" is a map, whose keys
		// must count as the context of its values. Other text is a plain
		// string, as in the note of the created file below.
		if !strings.Contains(c.Text, ": ") {
			continue
		}
		// Text that is not YAML is refused, which stores nothing either.
		if _, _, err := v.Set(ctx, name, "note", c.Text); err != nil && !errors.Is(err, entry.ErrFrontmatter) {
			t.Fatalf("%s: set: %v", c.Name, err)
		}
	}
	file := []byte("---\ntitle: created\nnote: " + strings.ReplaceAll(secrets[0].Text, "\n", " ") + "\n---\n" + all)
	if _, err := v.Create(ctx, "knowledge/created-by-hand", file); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := v.Import(ctx, []ImportFile{{Name: "knowledge/imported", Data: file}}, "backup"); err != nil {
		t.Fatalf("import: %v", err)
	}
	if _, err := v.CommitRun(ctx, "run-1", base, map[string][]byte{"knowledge/run.md": file}, "run: "+all); err != nil {
		t.Fatalf("commit run: %v", err)
	}
	checkClean(t, v)
	stored := runGit(t, v, "log", "--all", "-p", "--format=%H%n%B") +
		runGit(t, v, "log", "--all", "--name-only", "--format=") +
		runGit(t, v, "for-each-ref")
	for _, c := range secrets {
		if s := c.Leaks(stored); s != "" {
			t.Errorf("%s: git holds %q", c.Name, s)
		}
	}

	for _, c := range keeps {
		r, err := v.Remember(ctx, RememberOptions{Text: c.Text})
		if err != nil {
			t.Fatalf("%s: remember: %v", c.Name, err)
		}
		if data, err := os.ReadFile(v.path(r.Name)); err != nil || !strings.Contains(string(data), c.Text) {
			t.Errorf("%s: %s lost the text %q (%v):\n%s", c.Name, r.Name, c.Text, err, data)
		}
	}
	body := joined(keeps)
	kept, _, err := v.Add(ctx, AddOptions{Name: "knowledge/near-misses", Body: &body})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(v.path(kept)); err != nil || !strings.HasSuffix(string(data), "\n---\n"+body) {
		t.Errorf("add changed the near-misses (%v):\n%s", err, data)
	}
}
