package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
	"github.com/ctx0/ctx0/vaulttest"
)

// billionLaughs is a YAML bomb: nine aliases deep, it expands to 9^9
// strings if a parser follows them.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, k := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(k + ": &" + k + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n")
		prev = k
	}
	b.WriteString("---\nbody\n")
	return b.String()
}

// A JSON backup keeps every file byte for byte, also those that are not
// valid entries: kept as their text (or in base64 when they are not UTF-8)
// with the reason, never dropped with only a warning.
func TestJSONKeepsUnparsedFiles(t *testing.T) {
	v := fixture(t)
	bad := map[string]string{
		"knowledge/bad-yaml":   "---\ntitle: [unclosed\n\ttab: x\n---\nbody\n",
		"knowledge/too-large":  "---\ntitle: big\n---\n" + strings.Repeat("all work and no play\n", entry.MaxSize/20+10),
		"knowledge/latin1":     "---\ntitle: caf\xe9\n---\nna\xefve\n",
		"knowledge/binary":     "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\xff\xfe",
		"knowledge/nul":        "---\ntitle: nul\n---\na\x00b\n",
		"knowledge/bomb":       billionLaughs(),
		"knowledge/deep":       "---\nx: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n---\n",
		"knowledge/not-a-map":  "---\n- a\n- b\n---\nlist frontmatter\n",
		"knowledge/empty-file": "",
	}
	for name, text := range bad {
		writeFile(t, v, vault.EntryPath(name), text)
	}
	commit(t, v, clock, "files that are not entries")
	var out bytes.Buffer
	res, err := JSON(t.Context(), v, &out, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var b Backup
	if err := json.Unmarshal(out.Bytes(), &b); err != nil {
		t.Fatalf("the backup is not JSON: %v", err)
	}
	got := map[string]BackupEntry{}
	for _, e := range b.Entries {
		got[e.Name] = e
	}
	unparsed := map[string]bool{}
	for _, u := range res.Unparsed {
		unparsed[u.Path] = true
	}
	for name, want := range bad {
		t.Run(name, func(t *testing.T) {
			e, ok := got[name]
			if !ok {
				t.Fatal("not in the backup")
			}
			data := []byte(e.Text)
			if e.Encoding == encodingBase64 {
				if data, err = base64.StdEncoding.DecodeString(e.Text); err != nil {
					t.Fatal(err)
				}
			} else if e.Encoding != "" {
				t.Fatalf("encoding %q", e.Encoding)
			}
			if !bytes.Equal(data, []byte(want)) {
				t.Errorf("the backup's bytes differ from the file's (%d bytes, want %d)", len(data), len(want))
			}
			isText := !strings.ContainsAny(want, "\xe9\xff")
			if isText != (e.Encoding == "") {
				t.Errorf("encoding %q for a file that is text: %v", e.Encoding, isText)
			}
			// The empty file is a valid entry, with nothing in it.
			if name != "knowledge/empty-file" && (e.Unparsed == "" || !unparsed[vault.EntryPath(name)]) {
				t.Errorf("not marked as unparsed: %q; result %v", e.Unparsed, res.Unparsed)
			}
		})
	}
	if len(res.Skipped) > 0 {
		t.Errorf("skipped: %v", res.Skipped)
	}
	if e := got["me"]; e.Unparsed != "" || e.Encoding != "" || e.Title == "" {
		t.Errorf("a valid entry is kept as one: %+v", e)
	}
}

// Import takes a file back from base64 as it was.
func TestImportBase64(t *testing.T) {
	text := "---\ntitle: From base64\ntype: note\n---\nbytes \xc3\xa9 kept\n"
	backup, err := json.Marshal(Backup{BackupHead: BackupHead{Format: backupFormat, Version: 1},
		Entries: []BackupEntry{{Summary: vault.Summary{Name: "knowledge/b64"}, Text: base64.StdEncoding.EncodeToString([]byte(text)), Encoding: encodingBase64}}})
	if err != nil {
		t.Fatal(err)
	}
	v := vaulttest.New(t, vault.WithClock(now))
	if _, err := Import(t.Context(), v, bytes.NewReader(backup), "b64.json"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, v.Root(), "knowledge/b64.md"); got != text {
		t.Errorf("imported %q, want %q", got, text)
	}
	bad := bytes.Replace(backup, []byte(`"base64"`), []byte(`"rot13"`), 1)
	if _, err := Import(t.Context(), vaulttest.New(t, vault.WithClock(now)), bytes.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), `unknown encoding "rot13"`) {
		t.Errorf("unknown encoding: %v", err)
	}
}
