package export

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// entryFiles reads every entry file of a vault, by name.
func entryFiles(t *testing.T, v *vault.Vault) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := v.Walk(t.Context(), func(name string, _ fs.FileInfo) error {
		out[name] = readFile(t, v.Root(), vault.EntryPath(name))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJSONRoundTrip: a backup imported into an empty vault gives every
// entry back byte for byte, archived and superseded ones too, in one
// commit that git finds sound.
func TestJSONRoundTrip(t *testing.T) {
	v := fixture(t)
	// Bytes that a careless round trip would lose: CRLF line breaks, no
	// final line break, a byte order mark, HTML-like text, odd spacing.
	writeFile(t, v, "knowledge/crlf.md", "---\r\ntitle: CRLF\r\ntype: note\r\n---\r\nLine one.\r\nNo final break & <b>tags</b>")
	writeFile(t, v, "knowledge/bom.md", "\uFEFF---\ntitle:    spaced   \n# a comment\ntype: note\n---\n\n\n  indented\n")
	commit(t, v, clock, "odd bytes")
	var backup bytes.Buffer
	res, err := JSON(t.Context(), v, &backup, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := entryFiles(t, v)
	if res.Entries != len(want) {
		t.Errorf("backup holds %d entries, the vault %d", res.Entries, len(want))
	}
	var b Backup
	if err := json.Unmarshal(backup.Bytes(), &b); err != nil {
		t.Fatalf("the backup is not JSON: %v", err)
	}
	for _, e := range b.Entries {
		if e.Name == "contacts/sarah-chen" {
			if !slices.Equal(e.Aliases, []string{"Sarah", "S. Chen"}) || !slices.Equal(e.Links, []string{"contacts/sam", "contacts/sarah-chen", "projects/bot0"}) ||
				e.Frontmatter["project"] != "bot0" || !strings.HasPrefix(e.Body, "Partner at Example Ventures.") {
				t.Errorf("sarah-chen in the backup: %+v", e)
			}
		}
	}

	w := vaulttest.New(t, vault.WithClock(now))
	commits := len(log(t, w))
	imp, err := Import(t.Context(), w, &backup, "backup.json")
	if err != nil {
		t.Fatal(err)
	}
	if imp.Added+imp.Merged != len(want) || imp.Merged != 1 || imp.Conflicts != 0 { // me.md, as init wrote it, merges
		t.Errorf("import: %+v", imp)
	}
	if n := len(log(t, w)); n != commits+1 {
		t.Errorf("import made %d commits, want 1", n-commits)
	}
	got := entryFiles(t, w)
	for name, data := range want {
		// Import stores through the vault's write path, which redacts:
		// the secrets a person wrote into the fixture come back as markers.
		data, _ = vault.Redact(data)
		if got[name] != data {
			t.Errorf("%s after the round trip:\n%q\nwant\n%q", name, got[name], data)
		}
	}
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		t.Errorf("entries after the round trip: %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	runGit(t, w, clock, "fsck", "--strict")
	if st := runGit(t, w, clock, "status", "--porcelain"); st != "" {
		t.Errorf("git status after import:\n%s", st)
	}

	// Imported again, nothing changes.
	if _, err := JSON(t.Context(), v, &backup, Options{Now: now}); err != nil {
		t.Fatal(err)
	}
	imp, err = Import(t.Context(), w, &backup, "backup.json")
	if err != nil || imp.Unchanged != len(want) || imp.Commit.Hash != "" {
		t.Errorf("second import: %+v, %v", imp, err)
	}
}

func log(t *testing.T, v *vault.Vault) []vault.LogEntry {
	t.Helper()
	l, err := v.Log(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestImportComposes: an entry without its text, as another tool may write
// a backup, is made from its frontmatter and body.
func TestImportComposes(t *testing.T) {
	w := vaulttest.New(t, vault.WithClock(now))
	in := `{"format": "ctx0-backup", "version": 1, "entries": [
	  {"name": "knowledge/x", "frontmatter": {"zeta": 1, "type": "fact", "title": "X", "tags": ["a", "b"]}, "body": "Text.\n"}]}`
	if _, err := Import(t.Context(), w, strings.NewReader(in), "other.json"); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, w.Root(), "knowledge/x.md")
	if want := "---\ntitle: X\ntype: fact\ntags: [a, b]\nzeta: 1\n---\nText.\n"; got != want {
		t.Errorf("composed entry:\n%s\nwant\n%s", got, want)
	}
}

// TestImportRefuses: what is not a backup, or holds a bad entry, is refused
// with nothing written.
func TestImportRefuses(t *testing.T) {
	w := vaulttest.New(t, vault.WithClock(now))
	commits := len(log(t, w))
	tests := []struct{ in, err string }{
		{`not json`, "import b.json: not a ctx0 JSON backup"},
		{`{"format": "something", "version": 1}`, `its format is "something"`},
		{`{"format": "ctx0-backup", "version": 2}`, "backup version 2 is newer"},
		{`{"format": "ctx0-backup", "version": 1, "entries": [{"text": "x"}]}`, "entry 1 has no name"},
		{`{"format": "ctx0-backup", "version": 1, "entries": [{"name": "a", "text": "x"}, {"name": "../b", "text": "y"}]}`, "would leave the vault"},
		{`{"format": "ctx0-backup", "version": 1, "entries": [{"name": "Notes/A", "text": "x"}]}`, "not normalized"},
		{`{"format": "ctx0-backup", "version": 1, "entries": [{"name": "a", "text": "---\ntitle: [\n---\n"}]}`, "malformed frontmatter"},
	}
	for _, tt := range tests {
		_, err := Import(t.Context(), w, strings.NewReader(tt.in), "b.json")
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("import %s: err = %v, want %q", tt.in, err, tt.err)
		}
	}
	if n := len(log(t, w)); n != commits {
		t.Errorf("refused imports made %d commits", n-commits)
	}
}

// TestMarkdownRedacts: the document honours redact and minimal too.
func TestMarkdownRedacts(t *testing.T) {
	v := fixture(t)
	var doc bytes.Buffer
	res, err := Markdown(t.Context(), v, &doc, Options{Redact: true, Minimal: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	s := doc.String()
	if strings.Contains(s, "sk-proj-") || !strings.Contains(s, "[REDACTED:openai-key]") || res.Redacted["openai-key"] != 1 {
		t.Errorf("document not redacted (%v)", res.Redacted)
	}
	if strings.Contains(s, "runs on the phone too") || !strings.Contains(s, "minimal export: the first") {
		t.Errorf("document not minimal")
	}
}
