package extractor

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

var investorQuery = Query{
	Name:        "investor-updates",
	Description: "What investors said lately",
	Phrases:     []string{"investor updates", "what did investors say in the last {days} days"},
	Params:      []Param{{Name: "days", Default: "14"}},
	Steps: []Step{
		{Glob: "contacts/*"},
		{Filter: "tags has investor"},
		{Links: "both"},
		{Filter: "updated since -{days}d"},
		{Read: 3},
	},
}

// TestQueryRoundTrip saves, loads, replaces and removes learned queries,
// keeping what a person wrote in the file, each change a commit.
func TestQueryRoundTrip(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t, vault.WithClock(now))
	root := v.Root()
	p := filepath.Join(root, filepath.FromSlash(QueriesFile))
	hand := "# Queries we keep.\nqueries:\n  # Written by hand.\n  - name: pinned-notes\n    steps:\n      - glob: knowledge/*\n      - filter: pinned is true\n"
	if err := writeFile(p, []byte(hand)); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveQuery(ctx, v, investorQuery); err != nil {
		t.Fatal(err)
	}
	// The person's uncommitted file went in with the save.
	if out := gittest.Run(t, root, "status", "--porcelain"); out != "" {
		t.Errorf("git status after a save:\n%s", out)
	}
	if out := gittest.Run(t, root, "log", "-1", "--format=%s", "--", QueriesFile); out != "query: save investor-updates" {
		t.Errorf("last commit of %s: %q", QueriesFile, out)
	}
	qs, err := LoadQueries(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Name != "pinned-notes" || !reflect.DeepEqual(qs[1], investorQuery) {
		t.Fatalf("loaded %+v", qs)
	}
	data, _ := os.ReadFile(p)
	for _, want := range []string{"# Queries we keep.", "# Written by hand."} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the comment %q was lost:\n%s", want, data)
		}
	}
	changed := investorQuery
	changed.Params = []Param{{Name: "days", Default: "30"}}
	if _, err := SaveQuery(ctx, v, changed); err != nil {
		t.Fatal(err)
	}
	if qs, _ = LoadQueries(root); len(qs) != 2 || qs[1].Params[0].Default != "30" {
		t.Errorf("after replacing: %+v", qs)
	}
	if _, err := RemoveQuery(ctx, v, "pinned-notes"); err != nil {
		t.Fatal(err)
	}
	if qs, _ = LoadQueries(root); len(qs) != 1 || qs[0].Name != "investor-updates" {
		t.Errorf("after removing: %+v", qs)
	}
	if _, err := RemoveQuery(ctx, v, "pinned-notes"); !errors.Is(err, ErrNoQuery) {
		t.Errorf("removing it again: %v, want ErrNoQuery", err)
	}
	if out := gittest.Run(t, root, "log", "--format=%s", "--", QueriesFile); out != "query: remove pinned-notes\nquery: save investor-updates\nquery: save investor-updates" {
		t.Errorf("history of %s:\n%s", QueriesFile, out)
	}
	if out := gittest.Run(t, root, "status", "--porcelain"); out != "" {
		t.Errorf("git status at the end:\n%s", out)
	}
}

func TestQueryMatch(t *testing.T) {
	qs := Queries{investorQuery}
	for _, c := range []struct {
		q    string
		ok   bool
		args map[string]string
	}{
		{"What did investors say in the last 30 days?", true, map[string]string{"days": "30"}},
		{"investor updates", true, map[string]string{}},
		{"Updates, investor!", true, map[string]string{}},
		{"what did investors say in the last days", false, nil},
		{"investor updates from Sarah", false, nil},
	} {
		q, args, ok := qs.Match(c.q)
		if ok != c.ok || ok && (q.Name != investorQuery.Name || !reflect.DeepEqual(args, c.args)) {
			t.Errorf("Match(%q) = %s, %v, %v", c.q, q.Name, args, ok)
		}
	}
}

func TestQueryCheck(t *testing.T) {
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Query{Name: "list", Steps: []Step{{Read: 1}}}, "not list, save or rm"},
		{Query{Name: "Bad Name", Steps: []Step{{Read: 1}}}, "a name is lowercase"},
		{Query{Name: "empty"}, "no steps"},
		{Query{Name: "two", Steps: []Step{{Search: "x", Glob: "y"}}}, "exactly one of"},
		{Query{Name: "scope", Steps: []Step{{Glob: "x", Scope: "contacts"}}}, "go with search"},
		{Query{Name: "dir", Steps: []Step{{Links: "sideways"}}}, "want out, in or both"},
		{Query{Name: "op", Steps: []Step{{Filter: "tags like x"}}}, "want is, not, has, since or before"},
		{Query{Name: "when", Steps: []Step{{Filter: "updated since yesterday"}}}, "RFC 3339"},
		{Query{Name: "param", Steps: []Step{{Search: "{who}"}}}, "{who} is not a parameter"},
	} {
		err := c.q.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%s) = %v, want %q", c.q.Name, err, c.want)
		}
	}
}

// TestRunQuery runs a learned query of every kind of step over the fixture
// vault and compares its bundle with testdata/bundles/query.txt.
func TestRunQuery(t *testing.T) {
	m := fixture(t)
	if _, err := SaveQuery(t.Context(), m.Vault, investorQuery); err != nil {
		t.Fatal(err)
	}
	b, err := RunQuery(t.Context(), m, "investor-updates", map[string]string{"days": "30"}, 0, "github.com/me/bot0")
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, b)
	golden.Check(t, filepath.Join("testdata", "bundles/query.txt"), []byte(b.Text()), *update)
	if b.Plan.By != "query:investor-updates" || len(b.Items) != 3 {
		t.Errorf("plan %+v, %d items", b.Plan, len(b.Items))
	}
	// The default of days (14) leaves out what changed before 2026-01-18.
	b, err = RunQuery(t.Context(), m, "investor-updates", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range b.Items {
		if it.Date.Before(clock.AddDate(0, 0, -14)) {
			t.Errorf("%s of %s is older than 14 days", it.Name, it.Date)
		}
	}
	if _, err := RunQuery(t.Context(), m, "investor-updates", map[string]string{"weeks": "2"}, 0, ""); !errors.Is(err, ErrParam) {
		t.Errorf("an unknown parameter: %v, want ErrParam", err)
	}
	if _, err := RunQuery(t.Context(), m, "nope", nil, 0, ""); !errors.Is(err, ErrNoQuery) {
		t.Errorf("an unknown query: %v, want ErrNoQuery", err)
	}
	usage, err := QueryUsage(m.Vault.Root())
	if err != nil {
		t.Fatal(err)
	}
	if u := usage["investor-updates"]; u.Uses != 2 || u.LastUsed != clock || u.AvgLatencyMS() <= 0 {
		t.Errorf("usage %+v", u)
	}
}

// TestRunQueryProjectParam checks the {project} parameter and a search
// step with its narrowing fields.
func TestRunQueryProjectParam(t *testing.T) {
	m := fixture(t)
	q := Query{Name: "project-decisions", Steps: []Step{
		{Search: "SQLite OR Bun OR Drizzle", Limit: 10},
		{Filter: "project is {project}"},
		{Filter: "type not fact"},
	}}
	if _, err := SaveQuery(t.Context(), m.Vault, q); err != nil {
		t.Fatal(err)
	}
	b, err := RunQuery(t.Context(), m, q.Name, nil, 0, "bot0")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range b.Items {
		names = append(names, it.Name)
	}
	want := []string{"decisions/use-sqlite-fts5", "milestones/memory-spec-final", "projects/bot0"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("items %v, want %v", names, want)
	}
}
