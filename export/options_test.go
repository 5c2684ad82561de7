package export

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault/entry"
)

// TestOptions checks what each option keeps, leaves out and changes, on
// the fixture vault.
func TestOptions(t *testing.T) {
	v := fixture(t)
	writeFile(t, v, "knowledge/creds.md", "---\ntitle: Creds\ntype: fact\npassword: hunter22hunter\n---\nThe token is ghp_abcdefghijklmnopqrstuvwxyz0123456789AB.\n")
	commit(t, v, clock, "creds")
	tests := []struct {
		name     string
		o        Options
		has      []string
		hasNot   []string
		contains map[string][]string
		lacks    map[string][]string
	}{
		{
			name:   "live entries only by default",
			has:    []string{"me.md", "contacts/sam.md", "knowledge/new-fact.md", "inbox/scratch-idea.md", ".ctx0/queries.yaml"},
			hasNot: []string{"archive/contacts/old-friend.md", "knowledge/old-fact.md", "archive/_index.md"},
			contains: map[string][]string{
				"contacts/sam.md":       {"Introduced by [[contacts/old-friend]];"},
				"knowledge/new-fact.md": {"**Links:** knowledge/old-fact (not in this export)"},
			},
		},
		{
			name: "all keeps archived and superseded entries, and links reach them",
			o:    Options{All: true},
			has:  []string{"archive/contacts/old-friend.md", "knowledge/old-fact.md", "archive/contacts/_index.md"},
			contains: map[string][]string{
				"contacts/sam.md":       {"Introduced by [contacts/old-friend](../archive/contacts/old-friend.md);"},
				"knowledge/new-fact.md": {"**Links:** [Bot Zero runs on Postgres](old-fact.md)"},
				"CONTEXT.md":            {"| [archive/](archive/_index.md) | 1 |"},
			},
			lacks: map[string][]string{"CONTEXT.md": {"Without archived"}},
		},
		{
			name:   "scope keeps the subtrees and leaves links out of them as text",
			o:      Options{Scope: []string{"contacts", "projects/bot0"}},
			has:    []string{"contacts/sam.md", "contacts/sarah-chen.md", "projects/bot0.md", "projects/bot0/architecture.md", "projects/_index.md"},
			hasNot: []string{"me.md", "decisions/index-storage.md", "knowledge/long-note.md", "inbox/_index.md"},
			contains: map[string][]string{
				"projects/bot0.md":              {"Storage: see the decision and", "[architecture][arch]", "[arch]: bot0/architecture.md"},
				"projects/bot0/architecture.md": {"The classifier's facts are in [[knowledge/long-note]].", "Owner: [Sarah](../../contacts/sarah-chen.md)"},
				"CONTEXT.md":                    {"Only the entries in `contacts`, `projects/bot0`", "There is no `me.md` in this export"},
			},
		},
		{
			name:   "exclude leaves out folders and entries",
			o:      Options{Exclude: []string{"inbox", "knowledge/long-note"}},
			has:    []string{"knowledge/new-fact.md", "projects/bot0/architecture.md"},
			hasNot: []string{"inbox/scratch-idea.md", "inbox/_index.md", "knowledge/long-note.md"},
			contains: map[string][]string{
				"projects/bot0/architecture.md": {"The classifier's facts are in [[knowledge/long-note]]."},
				"CONTEXT.md":                    {"Without the entries in `inbox`, `knowledge/long-note`."},
			},
		},
		{
			name:   "scope and exclude take types too",
			o:      Options{Scope: []string{"decision", "contacts"}, Exclude: []string{"scratch", "contacts/sam"}},
			has:    []string{"decisions/index-storage.md", "contacts/sarah-chen.md"},
			hasNot: []string{"inbox/scratch-idea.md", "contacts/sam.md", "projects/bot0.md", "me.md"},
		},
		{
			name: "minimal cuts long bodies and keeps frontmatter",
			o:    Options{Minimal: true},
			contains: map[string][]string{
				"knowledge/long-note.md": {"title: How the classifier works\n", "asks [Me](../me.md)", "…\n\n_(minimal export: the first"},
				"contacts/sam.md":        {"reports to [Sarah](sarah-chen.md).\n"},
				"CONTEXT.md":             {"Minimal: each body is cut to its first 500 characters"},
			},
			lacks: map[string][]string{"knowledge/long-note.md": {"runs on the phone too"}, "contacts/sam.md": {"minimal export"}},
		},
		{
			name: "redact replaces secrets everywhere, frontmatter included",
			o:    Options{Redact: true},
			contains: map[string][]string{
				"decisions/index-storage.md": {"[REDACTED:openai-key]", "password=[REDACTED:password]"},
				"knowledge/creds.md":         {"password: [REDACTED:password]", "The token is [REDACTED:github-token]."},
				"knowledge/_index.md":        {"The token is [REDACTED:github-token]."},
				"CONTEXT.md":                 {"Redacted: secrets (API keys, tokens, passwords, private keys) read `[REDACTED:kind]` (4 secrets)."},
			},
			lacks: map[string][]string{
				"decisions/index-storage.md": {"sk-proj-", "hunter22"},
				"knowledge/creds.md":         {"hunter22", "ghp_"},
				"knowledge/_index.md":        {"ghp_"},
			},
		},
		{
			name:   "flatten puts every entry in one folder",
			o:      Options{Flatten: true},
			has:    []string{"me.md", "sam.md", "sarah-chen.md", "bot0.md", "architecture.md", "long-note.md", "_index.md"},
			hasNot: []string{"contacts/sam.md", "contacts/_index.md"},
			contains: map[string][]string{
				"architecture.md": {"Owner: [Sarah](sarah-chen.md); reviewed by\n[Sam](sam.md)."},
				"_index.md":       {"| [contacts/sam](sam.md) | Sam Ortiz |"},
				"CONTEXT.md":      {"This export is **flattened**", "| `contacts/` | 2 |"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res := exportTo(t, v, tt.o)
			files := readTree(t, out)
			for _, p := range tt.has {
				if _, ok := files[p]; !ok {
					t.Errorf("no %s in the export; it has %v", p, slices.Sorted(maps.Keys(files)))
				}
			}
			for _, p := range tt.hasNot {
				if _, ok := files[p]; ok {
					t.Errorf("%s is in the export", p)
				}
			}
			for p, subs := range tt.contains {
				for _, s := range subs {
					if !strings.Contains(files[p], s) {
						t.Errorf("%s lacks %q:\n%s", p, s, files[p])
					}
				}
			}
			for p, subs := range tt.lacks {
				for _, s := range subs {
					if strings.Contains(files[p], s) {
						t.Errorf("%s holds %q", p, s)
					}
				}
			}
			for p, data := range files {
				if strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, indexFile) && p != guideFile {
					if _, err := entry.Parse([]byte(data)); err != nil {
						t.Errorf("%s does not parse: %v", p, err)
					}
				}
			}
			if tt.o.Redact && (res.Redacted["password"] != 2 || res.Redacted["openai-key"] != 1 || res.Redacted["github-token"] != 1) {
				t.Errorf("redacted %v, want 2 passwords, 1 openai-key, 1 github-token", res.Redacted)
			}
		})
	}
}

// TestScopeMustHoldEntries: a scope that names nothing is a mistake, said
// as such, not an empty export.
func TestScopeMustHoldEntries(t *testing.T) {
	v := fixture(t)
	_, err := Folder(t.Context(), v, filepath.Join(t.TempDir(), "out"), Options{Scope: []string{"contcts"}})
	if err == nil || !strings.Contains(err.Error(), "--scope contcts: no entry of the vault is in it") {
		t.Fatalf("err = %v", err)
	}
}

// TestChangedSince keeps the entries that commits changed since the date,
// and those edited and not yet committed.
func TestChangedSince(t *testing.T) {
	v := fixture(t)
	later := clock.Add(24 * time.Hour)
	writeFile(t, v, "contacts/sam.md", strings.Replace(readFile(t, v.Root(), "contacts/sam.md"), "Analyst", "Partner", 1))
	commit(t, v, later, "promote sam")
	writeFile(t, v, "decisions/index-storage.md", readFile(t, v.Root(), "decisions/index-storage.md")+"\nRevisited.\n")
	out, res := exportTo(t, v, Options{ChangedSince: clock.Add(time.Hour)})
	var got []string
	for p := range readTree(t, out) {
		if strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, indexFile) && p != guideFile {
			got = append(got, p)
		}
	}
	slices.Sort(got)
	if want := []string{"contacts/sam.md", "decisions/index-storage.md"}; !slices.Equal(got, want) {
		t.Errorf("since: exported %v, want %v", got, want)
	}
	if res.Entries != 2 {
		t.Errorf("since: %d entries, want 2", res.Entries)
	}
	if s := readFile(t, out, "contacts/sam.md"); !strings.Contains(s, "reports to Sarah.") {
		t.Errorf("a link to an entry left out by --since is not text:\n%s", s)
	}
}

// TestSince keeps the entries about what happened since the date
// (vault.Happened), whenever they were filed: a fact learned in a session
// of July and filed today is not in last week, an episode filed under a
// day is in that day, and an entry that says no time is dated by its file.
func TestSince(t *testing.T) {
	v := fixture(t)
	writeFile(t, v, "knowledge/queues.md", "---\ntitle: One queue\nconversation: \"abc@2025-07-22T09:15:00Z\"\ncreated: 2026-01-28T10:00:00Z\nupdated: 2026-01-28T10:00:00Z\n---\nOne queue.\n")
	writeFile(t, v, "episodes/2026-01/2026-01-27.md", "---\ntitle: Tuesday\ntype: episode\n---\nWe met.\n")
	writeFile(t, v, "inbox/undated.md", "---\ntitle: Undated\n---\nNo time said.\n")
	commit(t, v, clock, "file")
	exported := func(o Options) []string {
		t.Helper()
		out, _ := exportTo(t, v, o)
		var got []string
		for p := range readTree(t, out) {
			if strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, indexFile) && p != guideFile {
				got = append(got, p)
			}
		}
		slices.Sort(got)
		return got
	}
	// Of the fixture, only the scratch idea happened on 2026-01-27 or
	// later; the undated entry's file was written then.
	if err := os.Chtimes(filepath.Join(v.Root(), "inbox", "undated.md"), clock, clock); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 1, 27, 0, 0, 0, 0, time.UTC)
	if got, want := exported(Options{Since: day}), []string{"episodes/2026-01/2026-01-27.md", "inbox/scratch-idea.md", "inbox/undated.md"}; !slices.Equal(got, want) {
		t.Errorf("since 2026-01-27: exported %v, want %v", got, want)
	}
	got := exported(Options{Since: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)})
	if !slices.Contains(got, "knowledge/queues.md") || !slices.Contains(got, "contacts/sam.md") {
		t.Errorf("since July 2025: exported %v, want the queues fact and the rest", got)
	}
	out, _ := exportTo(t, v, Options{Since: day})
	if s := readFile(t, out, guideFile); !strings.Contains(s, "Only the entries about what happened since 2026-01-27T00:00:00Z") {
		t.Errorf("CONTEXT.md does not say what --since kept:\n%s", s)
	}
	if s := readFile(t, out, "episodes/2026-01/_index.md"); !strings.Contains(s, "| happened |") || !strings.Contains(s, "| 2026-01-27 |") {
		t.Errorf("episodes/2026-01/_index.md does not date the episode by its day:\n%s", s)
	}
}

// TestVersions: each earlier version under .versions/, through a rename,
// one per content, linked from the entry.
func TestVersions(t *testing.T) {
	v := fixture(t)
	sam := readFile(t, v.Root(), "contacts/sam.md")
	edited := strings.Replace(sam, "Analyst", "Senior analyst", 1)
	writeFile(t, v, "contacts/sam.md", edited)
	commit(t, v, clock.Add(time.Hour), "promote sam")
	runGit(t, v, clock, "mv", "contacts/sam.md", "contacts/sam-ortiz.md")
	commit(t, v, clock.Add(2*time.Hour), "rename sam")
	writeFile(t, v, "contacts/sam-ortiz.md", strings.Replace(edited, "Senior analyst", "Partner", 1))
	commit(t, v, clock.Add(3*time.Hour), "promote sam again")

	out, res := exportTo(t, v, Options{Versions: true})
	files := readTree(t, out)
	var versions []string
	for p := range files {
		if strings.HasPrefix(p, ".versions/contacts/sam-ortiz/") {
			versions = append(versions, p)
		}
	}
	slices.Sort(versions)
	if len(versions) != 2 || !strings.Contains(versions[0], "/20260128T100000Z-") || !strings.Contains(versions[1], "/20260128T110000Z-") {
		t.Fatalf("versions of contacts/sam-ortiz: %v", versions)
	}
	if got := files[versions[0]]; !strings.Contains(got, "\nAnalyst at Example Ventures.") || !strings.Contains(got, "reports to [Sarah](../../../contacts/sarah-chen.md)") {
		t.Errorf("the first version:\n%s", got)
	}
	if got := files[versions[1]]; !strings.Contains(got, "Senior analyst") {
		t.Errorf("the second version:\n%s", got)
	}
	if e := files["contacts/sam-ortiz.md"]; !strings.Contains(e, "**Earlier versions:** [2026-01-28 11:00 ") || !strings.Contains(e, "(../.versions/contacts/sam-ortiz/20260128T100000Z-") {
		t.Errorf("the entry does not link its versions:\n%s", e)
	}
	if res.Versions != 2+1 { // sam's two, and me.md's template before the fixture
		t.Errorf("%d versions, want 3", res.Versions)
	}
}
