package vault

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// recordYAML is a conflict record as conflictFiles writes it, with id,
// entry and path as given.
func recordYAML(t testing.TB, id, entry, p string) []byte {
	t.Helper()
	data, err := yaml.Marshal(ConflictRecord{
		ID: id, Entry: entry, Path: p, Field: "title", Ours: "a", Theirs: "b", Kept: "ours",
		OursCommit: strings.Repeat("a", 40), TheirsCommit: strings.Repeat("b", 40),
		When: time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseConflictRecordRefusesWhatLeadsElsewhere(t *testing.T) {
	const good = "0123456789ab"
	tests := []struct {
		name        string
		file        string
		id, e, p    string
		raw         string // used instead of a record when set
		wantInError string
	}{
		{name: "valid", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "contacts/sarah", p: "contacts/sarah.md"},
		{name: "valid, not an entry", file: ".ctx0/conflicts/" + good + ".yaml", id: good, p: ".ctx0/queries.yaml"},
		{name: "parent", file: ".ctx0/conflicts/x.yaml", id: "../x", e: "contacts/sarah", p: "contacts/sarah.md", wantInError: `id "../x"`},
		{name: "deep parent", file: ".ctx0/conflicts/x.yaml", id: "../../../../victim", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "the config", file: ".ctx0/conflicts/x.yaml", id: "../config", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "absolute", file: ".ctx0/conflicts/x.yaml", id: "/etc/passwd", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "git dir", file: ".ctx0/conflicts/x.yaml", id: ".git/config", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "empty", file: ".ctx0/conflicts/x.yaml", id: "", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "NUL", file: ".ctx0/conflicts/x.yaml", id: "0123456789a\x00", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "very long", file: ".ctx0/conflicts/x.yaml", id: strings.Repeat("a", 5000), e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "fullwidth digits", file: ".ctx0/conflicts/x.yaml", id: "０１２３４５６７８９ａｂ", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "one-dot leader", file: ".ctx0/conflicts/x.yaml", id: "\u2024\u2024/config", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "upper case", file: ".ctx0/conflicts/x.yaml", id: "0123456789AB", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "trailing newline", file: ".ctx0/conflicts/x.yaml", id: good + "\n", e: "a", p: "a.md", wantInError: "not a conflict id"},
		{name: "another file's id", file: ".ctx0/conflicts/ba9876543210.yaml", id: good, e: "a", p: "a.md", wantInError: "does not match the file name"},
		{name: "path leaves", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "", p: "../../victim.md", wantInError: "leads out of the vault"},
		{name: "path absolute", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "", p: "/etc/passwd", wantInError: "leads out of the vault"},
		{name: "path in .git", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "", p: ".git/config", wantInError: "inside .git"},
		{name: "path in .GIT", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "", p: "x/.GIT/hooks/pre-commit", wantInError: "inside .git"},
		{name: "path not clean", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "a", p: "b/../a.md", wantInError: "leads out of the vault"},
		{name: "path backslash", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: `..\a`, p: `..\a.md`, wantInError: "leads out of the vault"},
		{name: "path NUL", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "a\x00", p: "a\x00.md", wantInError: "not plain text"},
		{name: "path empty", file: ".ctx0/conflicts/" + good + ".yaml", id: good, wantInError: "empty"},
		{name: "entry not the path's", file: ".ctx0/conflicts/" + good + ".yaml", id: good, e: "../../victim", p: "contacts/sarah.md", wantInError: "is not the entry of path"},
		{name: "bad YAML", file: ".ctx0/conflicts/x.yaml", raw: "id: [unclosed\n", wantInError: "refuse record .ctx0/conflicts/x.yaml"},
		{name: "empty file", file: ".ctx0/conflicts/x.yaml", raw: "", wantInError: "not a conflict id"},
		{name: "a field of the wrong type", file: ".ctx0/conflicts/x.yaml", raw: "id: [a]\nentry: {x: 1}\n", wantInError: "line 1: cannot unmarshal !!seq into string line 2: cannot unmarshal"},
		{name: "kept neither side", file: ".ctx0/conflicts/" + good + ".yaml", raw: "id: " + good + "\nentry: a\npath: a.md\nkept: both\n", wantInError: "neither ours nor theirs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.raw)
			if tt.raw == "" && tt.name != "empty file" {
				data = recordYAML(t, tt.id, tt.e, tt.p)
			}
			r, err := ParseConflictRecord(tt.file, data)
			if tt.wantInError == "" {
				if err != nil || r.ID != tt.id {
					t.Fatalf("ParseConflictRecord = %+v, %v; want the record", r, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseConflictRecord = %+v; want an error", r)
			}
			if !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), tt.file) || !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("error %q: want ErrBadRecord naming %s and saying %q", err, tt.file, tt.wantInError)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
		})
	}
}

// FuzzParseConflictRecord checks that whatever a record file holds, a
// record that is accepted names only its own file and a path inside the
// vault, and that reading never panics.
func FuzzParseConflictRecord(f *testing.F) {
	f.Add(".ctx0/conflicts/0123456789ab.yaml", string(recordYAML(f, "0123456789ab", "contacts/sarah", "contacts/sarah.md")))
	f.Add(".ctx0/conflicts/x.yaml", string(recordYAML(f, "../config", "a", "a.md")))
	f.Add(".ctx0/conflicts/0123456789ab.yaml", "id: 0123456789ab\npath: ../../x.md\nentry: ../../x\n")
	f.Add(".ctx0/conflicts/x.yaml", "")
	f.Add(".ctx0/conflicts/x.yaml", "id: [")
	f.Fuzz(func(t *testing.T, file, data string) {
		r, err := ParseConflictRecord(file, []byte(data))
		if err != nil {
			if !errors.Is(err, ErrBadRecord) {
				t.Fatalf("error %v is not ErrBadRecord", err)
			}
			if !strings.Contains(file, "\n") && strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line", err)
			}
			return
		}
		if path.Base(file) != r.ID+".yaml" || !conflictID.MatchString(r.ID) {
			t.Fatalf("accepted id %q in %q", r.ID, file)
		}
		if !filepath.IsLocal(r.Path) || strings.ContainsAny(r.Path, "\x00\\") {
			t.Fatalf("accepted path %q", r.Path)
		}
		if r.Entry != "" && (!filepath.IsLocal(entryPath(r.Entry)) || strings.HasPrefix(r.Entry, ".")) {
			t.Fatalf("accepted entry %q", r.Entry)
		}
	})
}

// hostileVault is a vault nested a few folders down a temporary folder,
// so that a record's id climbing out of .ctx0/conflicts lands in the
// test's own folder, where a sentinel file waits. It returns the vault,
// the sentinel's path and its content.
func hostileVault(t *testing.T) (v *Vault, sentinel string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b", "vault")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	testVault(t) // skips without git
	v, _, err := Init(t.Context(), dir, WithClock(func() time.Time { return time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC) }))
	if err != nil {
		t.Fatal(err)
	}
	// .ctx0/conflicts/../../../victim.yaml is the vault's parent's victim.yaml.
	sentinel = filepath.Join(base, "a", "b", "victim.yaml")
	if err := os.WriteFile(sentinel, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return v, sentinel
}

func TestHostileConflictRecordsAreRefused(t *testing.T) {
	ctx := t.Context()
	v, sentinel := hostileVault(t)
	if _, err := v.apply(ctx, "add sarah", []change{{path: "contacts/sarah.md", data: []byte("---\ntitle: Sarah\n---\nHi.\n")}}); err != nil {
		t.Fatal(err)
	}
	config := readWorkFile(t, v, ConfigFile)
	const good = "0123456789ab"
	outside := filepath.Join(filepath.Dir(sentinel), "secret.yaml")
	if err := os.WriteFile(outside, recordYAML(t, "abcdefabcdef", "contacts/sarah", "contacts/sarah.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The bad ones, each refused; beside them one valid record, and a link.
	files := map[string][]byte{
		"climb.yaml":        recordYAML(t, "../../../victim", "contacts/sarah", "contacts/sarah.md"),
		"config.yaml":       recordYAML(t, "../config", "contacts/sarah", "contacts/sarah.md"),
		"broken.yaml":       []byte("id: [\n"),
		"bare.yaml":         []byte("when: 2026-01-28T10:00:00Z\n"),
		"111111111111.yaml": recordYAML(t, "222222222222", "contacts/sarah", "contacts/sarah.md"),
	}
	dir := filepath.Join(v.Root(), filepath.FromSlash(conflictsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, good+".yaml"), recordYAML(t, good, "contacts/sarah", "contacts/sarah.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A link to a record outside the vault: read through, it would pass.
	if err := os.Symlink(outside, filepath.Join(dir, "abcdefabcdef.yaml")); err != nil {
		t.Fatal(err)
	}
	files["abcdefabcdef.yaml"] = nil
	// As a pull would bring them: committed by someone else.
	runGit(t, v, "add", "-A", ".ctx0/conflicts")
	runGit(t, v, "commit", "-q", "-m", "records from a collaborator")

	records, bad, err := v.Conflicts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 1 || records[0].ID != good {
		t.Errorf("Conflicts() records = %+v; want only %s", records, good)
	}
	if len(bad) != len(files) {
		t.Errorf("Conflicts() bad = %q; want %d", bad, len(files))
	}
	for _, b := range bad {
		if !strings.Contains(b.Reason, b.File) || !strings.HasPrefix(b.File, conflictsDir+"/") {
			t.Errorf("bad record %+v: want its file named", b)
		}
	}
	// Resolving by what the hostile ids say finds nothing to resolve.
	for _, ref := range []string{"../../../victim", "../config", "contacts/sarah-nobody"} {
		if _, _, err := v.ResolveConflicts(ctx, ref, true); err == nil || !strings.Contains(err.Error(), "no open conflict") {
			t.Errorf("ResolveConflicts(%q) = %v; want no open conflict", ref, err)
		}
	}
	// Resolving the entry resolves the valid record and nothing else.
	n, _, err := v.ResolveConflicts(ctx, "contacts/sarah", true)
	if err != nil || n != 1 {
		t.Fatalf("ResolveConflicts(contacts/sarah) = %d, %v; want 1", n, err)
	}
	if data, err := os.ReadFile(sentinel); err != nil || string(data) != "mine\n" {
		t.Errorf("the file outside the vault: %q, %v", data, err)
	}
	if got := readWorkFile(t, v, ConfigFile); got != config {
		t.Errorf("%s changed:\n%s", ConfigFile, got)
	}
	checkClean(t, v)

	problems, err := v.CheckGit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reported := map[string]bool{}
	for _, p := range problems {
		if strings.Contains(p.Message, "doctor --fix") && strings.Contains(p.Message, ErrBadRecord.Error()) {
			reported[p.File] = true
		}
	}
	if len(reported) != len(files) {
		t.Errorf("CheckGit reported %v; want each of the %d bad records", problems, len(files))
	}

	done, err := v.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != len(files) {
		t.Errorf("Repair = %q; want %d records set aside", done, len(files))
	}
	checkClean(t, v)
	if out := runGit(t, v, "ls-files", conflictsDir); out != "" {
		t.Errorf("records still committed after doctor --fix:\n%s", out)
	}
	for name := range files {
		if _, err := os.Lstat(filepath.Join(v.Root(), filepath.FromSlash(refusedDir), "conflicts", name)); err != nil {
			t.Errorf("%s not kept aside: %v", name, err)
		}
	}
	if data, err := os.ReadFile(outside); err != nil || !strings.Contains(string(data), "abcdefabcdef") {
		t.Errorf("the link's target outside the vault: %q, %v", data, err)
	}
	if problems, err := v.CheckGit(ctx); err != nil || len(problems) != 0 {
		t.Errorf("CheckGit after Repair = %v, %v", problems, err)
	}
}

// The records a git merge leaves in local state are read the same way:
// a bad one is neither committed by the next sync nor removed.
func TestBadPendingRecordStaysLocal(t *testing.T) {
	ctx := t.Context()
	v, sentinel := hostileVault(t)
	dir := filepath.Join(v.Root(), filepath.FromSlash(pendingConflictsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(bad, recordYAML(t, "../../../../victim", "a", "a.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := v.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = v.commitExternalLocked(ctx)
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("the bad pending record: %v; want it left in place", err)
	}
	if _, err := os.Stat(sentinel); err != nil {
		t.Errorf("the file outside the vault: %v", err)
	}
	if out := runGit(t, v, "ls-files", ".ctx0/conflicts"); out != "" {
		t.Errorf("committed:\n%s", out)
	}
	if done, err := v.Repair(ctx); err != nil || len(done) != 1 {
		t.Errorf("Repair = %q, %v; want the record set aside", done, err)
	}
	aside := filepath.Join(v.Root(), filepath.FromSlash(refusedDir), "state", "conflicts")
	if _, err := os.Stat(filepath.Join(aside, "x.yaml")); err != nil {
		t.Error(err)
	}
	// The same name again: the one set aside before stays.
	if err := os.WriteFile(bad, []byte("id: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if done, err := v.Repair(ctx); err != nil || len(done) != 1 {
		t.Errorf("Repair = %q, %v; want the record set aside", done, err)
	}
	if des, err := os.ReadDir(aside); err != nil || len(des) != 2 {
		t.Errorf("set aside: %v, %v; want both files", des, err)
	}
	checkClean(t, v)
}
