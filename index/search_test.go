package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// searchVault is a vault with entries written as plain files, and its index.
func searchVault(t *testing.T, files map[string]string) (*vault.Vault, *Index) {
	t.Helper()
	v := vaulttest.New(t)
	for rel, content := range files {
		writeFile(t, v, rel, content)
	}
	return v, openIndex(t, v, nil)
}

func TestSearchRanking(t *testing.T) {
	_, ix := searchVault(t, map[string]string{
		"knowledge/a.md":          "---\ntitle: Notes\n---\nWe talked about the kubernetes cluster at length, kubernetes again.\n",
		"knowledge/b.md":          "---\ntitle: Kubernetes\n---\nA short note.\n",
		"knowledge/kubernetes.md": "---\ntitle: Something\n---\nNothing here.\n",
		"knowledge/c.md":          "---\ntitle: Other\ntags: [kubernetes]\n---\nNothing here either.\n",
	})
	got := names(find(t, ix, Query{Text: "kubernetes"}))
	if len(got) != 4 || got[0] != "knowledge/b" || got[len(got)-1] != "knowledge/a" {
		t.Fatalf("ranking = %q, want the title match first and the body-only match last", got)
	}
	rs := find(t, ix, Query{Text: "kubernetes"})
	for i := 1; i < len(rs); i++ {
		if rs[i].Score > rs[i-1].Score {
			t.Fatalf("scores not descending: %v", rs)
		}
	}
	if !strings.Contains(rs[len(rs)-1].Snippet, "«kubernetes»") {
		t.Errorf("snippet %q does not mark the term", rs[len(rs)-1].Snippet)
	}
}

func TestSearchFiltersKeepTheLimit(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("contacts/c%02d.md", i)] = fmt.Sprintf("---\ntitle: Contact %d\ntype: contact\ntags: [deploy-team]\nproject: bot0\nupdated: 2026-01-%02dT10:00:00Z\n---\nAsks about the deploy.\n", i, i%28+1)
		files[fmt.Sprintf("knowledge/n%02d.md", i)] = fmt.Sprintf("---\ntitle: Note %d\ntype: note\n---\nThe deploy deploy deploy went fine.\n", i)
	}
	_, ix := searchVault(t, files)
	for _, tc := range []struct {
		q    Query
		want int
	}{
		{Query{Text: "deploy", Limit: 10, Type: "contact"}, 10},
		{Query{Text: "deploy", Limit: 50, Type: "contact"}, 30},
		{Query{Text: "deploy", Limit: 10, Tag: "deploy-team"}, 10},
		{Query{Text: "deploy", Limit: 10, Project: "bot0"}, 10},
		{Query{Text: "deploy", Limit: 50, Scope: "contacts/"}, 30},
		{Query{Text: "deploy", Limit: 50, Scope: "contact"}, 0},
		{Query{Text: "deploy", Limit: 50, Since: time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC), Type: "contact"}, 9},
		{Query{Text: "deploy", Limit: 50, Until: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), Type: "contact"}, 6},
		{Query{Text: "deploy", Limit: 50, Since: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)}, 2},
		{Query{Text: "deploy", Limit: 3}, 3},
		{Query{Text: "deploy"}, DefaultLimit},
	} {
		rs := find(t, ix, tc.q)
		if len(rs) != tc.want {
			t.Errorf("%+v: %d results, want %d", tc.q, len(rs), tc.want)
		}
		for _, r := range rs {
			if tc.q.Type != "" && r.Type != tc.q.Type {
				t.Errorf("%+v: result %s of type %s", tc.q, r.Name, r.Type)
			}
		}
	}
}

func TestSearchLanguage(t *testing.T) {
	_, ix := searchVault(t, map[string]string{
		"knowledge/deploy.md": "---\ntitle: Deploys\n---\nWe deploy to staging every Friday; the staging deploy key rotates.\n",
		"knowledge/cafe.md":   "---\ntitle: Café\n---\nRendez-vous au café près de la gare. Ñandú señor.\n",
		"knowledge/zh.md":     "---\ntitle: 数据库设计\n---\n我们使用数据库来存储记忆。\n",
		"knowledge/ja.md":     "---\ntitle: 会議\n---\n今日は東京で会議があります。カタカナのテキスト。\n",
		"knowledge/ko.md":     "---\ntitle: 회의\n---\n오늘 서울에서 회의가 있습니다.\n",
	})
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"deploying", []string{"knowledge/deploy"}},
		{"deployed rotated", []string{"knowledge/deploy"}},
		{`"staging deploy"`, []string{"knowledge/deploy"}},
		{`"staging deploy key"`, []string{"knowledge/deploy"}},
		{`"deploy staging"`, nil},
		{`"friday deploy"`, nil},
		{"depl*", []string{"knowledge/deploy"}},
		{"deploy NOT friday", nil},
		{"deploy OR gare", []string{"knowledge/cafe", "knowledge/deploy"}},
		{"cafe", []string{"knowledge/cafe"}},
		{"CAFÉ PRES", []string{"knowledge/cafe"}},
		{"nandu senor", []string{"knowledge/cafe"}},
		{"数据库", []string{"knowledge/zh"}},
		{"记忆", []string{"knowledge/zh"}},
		{"東京", []string{"knowledge/ja"}},
		{"カタカナ", []string{"knowledge/ja"}},
		{"서울", []string{"knowledge/ko"}},
		{"title:会議", []string{"knowledge/ja"}},
		{"京東", nil},
	} {
		got := names(find(t, ix, Query{Text: tc.q}))
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %q, want %q", tc.q, got, tc.want)
		}
	}
	rs := find(t, ix, Query{Text: "東京"})
	if len(rs) != 1 || !strings.Contains(rs[0].Snippet, "«東京»") || strings.ContainsRune(rs[0].Snippet, '\u200b') {
		t.Errorf("results = %+v, want «東京» marked and no zero-width spaces", rs)
	}
}

func TestSearchLeavesOutSupersededAndArchived(t *testing.T) {
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	ctx := t.Context()
	old, _, err := v.Add(ctx, vault.AddOptions{Name: "knowledge/rollout-plan", Meta: vault.Meta{Type: "note"}, Body: ptr("The rollout plan: canary first.\n")})
	if err != nil {
		t.Fatal(err)
	}
	// A summary restates entries: found when asked for, by type or --all.
	summary, _, err := v.Add(ctx, vault.AddOptions{Name: "summaries/week-4", Meta: vault.Meta{Type: "summary"}, Body: ptr("The rollout plan and an old rollout note.\n")})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(find(t, ix, Query{Text: "rollout", Type: "summary"})); !slices.Equal(got, []string{summary}) {
		t.Errorf("search --type summary = %q, want %s", got, summary)
	}
	gone, _, err := v.Add(ctx, vault.AddOptions{Name: "knowledge/old-rollout", Meta: vault.Meta{Type: "note"}, Body: ptr("An old rollout note.\n")})
	if err != nil {
		t.Fatal(err)
	}
	newer, _, err := v.Supersede(ctx, old, "The rollout plan: canary, then everyone.", "")
	if err != nil {
		t.Fatal(err)
	}
	archived, _, err := v.Remove(ctx, gone, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(find(t, ix, Query{Text: "rollout"})); !slices.Equal(got, []string{newer}) {
		t.Errorf("search = %q, want only %s", got, newer)
	}
	got := names(find(t, ix, Query{Text: "rollout", All: true}))
	slices.Sort(got)
	want := []string{archived, old, newer, summary}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("search --all = %q, want %q", got, want)
	}
}

// TestSearchManyMatches covers the bounded ranking of a query that matches
// more entries than rankWindow: an old entry whose title answers is still
// found, and the newest matches are ranked.
func TestSearchManyMatches(t *testing.T) {
	files := map[string]string{"contacts/sarah-chen.md": "---\ntitle: Sarah Chen\n---\nPartner at Example Ventures.\n"}
	for i := range rankWindow + 20 {
		files[fmt.Sprintf("episodes/e%04d.md", i)] = fmt.Sprintf("Met Sarah about item %d.\n", i)
	}
	v, ix := searchVault(t, files)
	// The contact is the oldest change: every episode is newer.
	writeFile(t, v, "episodes/e0000.md", "Met Sarah, and Sarah again, about the roadmap.\n")
	rs := find(t, ix, Query{Text: "sarah", Limit: 5})
	if len(rs) != 5 || rs[0].Name != "contacts/sarah-chen" {
		t.Fatalf("search = %q, want contacts/sarah-chen first", names(rs))
	}
	if got := names(find(t, ix, Query{Text: "roadmap AND sarah"})); !slices.Equal(got, []string{"episodes/e0000"}) {
		t.Fatalf("search = %q", got)
	}
	// As a question, every entry that names Sarah matches; of the
	// episodes, the one that also holds the roadmap ranks first. (The
	// contact, whose title names Sarah, may rank above it or below: the
	// BM25 of a bounded ranking counts the recently changed entries,
	// which depend on the order the files were indexed in.)
	got := names(find(t, ix, Query{Text: "what is the roadmap with Sarah"}))
	if len(got) != DefaultLimit {
		t.Fatalf("search = %q, want %d results", got, DefaultLimit)
	}
	if i := slices.IndexFunc(got, func(n string) bool { return strings.HasPrefix(n, "episodes/") }); got[i] != "episodes/e0000" || i > 1 {
		t.Fatalf("search = %q, want episodes/e0000 first of the episodes, and among the first two", got)
	}
	if rs := find(t, ix, Query{Text: "sarah", Limit: 5, Scope: "contacts"}); len(rs) != 1 {
		t.Fatalf("search with scope = %q", names(rs))
	}
}

func ptr[T any](v T) *T { return &v }

// FuzzSearch checks that no query, however malformed, makes a search fail.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{"", "deploy", `"unclosed`, "a OR", "NOT", "(((", "title:", "x*", `{body} : "a"`, "数据", "-", "NEAR(a b)"} {
		f.Add(s)
	}
	v := vaulttest.New(f)
	writeFileF(f, v, "knowledge/a.md", "---\ntitle: Deploy notes\ntags: [ops]\n---\nWe deploy to staging; 数据库 café.\n")
	ix, err := Open(f.Context(), v)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ix.Close() })
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := ix.Search(t.Context(), Query{Text: q, Limit: 3}); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
	})
}

// TestSearchHidesWithThePartialIndex guards the plan, not the time: the
// entries a search hides come from the partial index entries_hidden, never
// from a scan of every entry, which cost 0.1 s a query at 100k entries.
func TestSearchHidesWithThePartialIndex(t *testing.T) {
	_, ix := searchVault(t, map[string]string{"knowledge/a.md": "Deploy notes.\n"})
	db, err := ix.handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{}, {Type: "summary"}, {Type: "note", Scope: "knowledge"}} {
		_, filter, args := q.filter()
		rows, err := db.QueryContext(t.Context(), `EXPLAIN QUERY PLAN SELECT f.rowid FROM fts f JOIN entries e ON e.id = f.rowid
			WHERE fts MATCH ?`+filter("f"), append([]any{"deploy"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "USING INDEX entries_hidden") || strings.Contains(text, "SCAN entries\n") || strings.HasSuffix(text, "SCAN entries") {
			t.Errorf("query %+v: plan does not read the hidden entries from entries_hidden:\n%s", q, text)
		}
	}
}

// TestSearchFiltersBeyondTheWindows: more than rankWindow matches pass the
// filters, but none of them is among the recent entries or matches by
// title, so the bounded ranking finds too few: the newest rankWindow
// matches are ranked instead, and the limit is still met.
func TestSearchFiltersBeyondTheWindows(t *testing.T) {
	v := vaulttest.New(t)
	old := time.Now().Add(-48 * time.Hour)
	touch := func(rel string, at time.Time) {
		if err := os.Chtimes(filepath.Join(v.Root(), rel), at, at); err != nil {
			t.Fatal(err)
		}
	}
	for i := range rankWindow + 100 {
		rel := fmt.Sprintf("knowledge/n%04d.md", i)
		writeFile(t, v, rel, fmt.Sprintf("---\ntitle: Note %d\ntype: note\n---\nThe alpha rollout, step %d.\n", i, i))
		touch(rel, old.Add(time.Duration(i)*time.Second))
	}
	for i := range recentSize + 100 {
		rel := fmt.Sprintf("facts/f%04d.md", i)
		writeFile(t, v, rel, fmt.Sprintf("---\ntitle: Fact %d\ntype: fact\n---\nAlpha again, %d.\n", i, i))
		touch(rel, old.Add(time.Hour+time.Duration(i)*time.Second))
	}
	ix := openIndex(t, v, nil)
	rs := find(t, ix, Query{Text: "alpha", Type: "note", Limit: 7})
	if len(rs) != 7 {
		t.Fatalf("search = %d results, want 7", len(rs))
	}
	for _, r := range rs {
		if r.Type != "note" {
			t.Errorf("result %s of type %s", r.Name, r.Type)
		}
	}
}

// TestUpdatesKeepSegmentsFew: each update adds a small segment to every
// FTS5 table, and a search looks each term up in every segment; they are
// merged as they come, not left to pile up (FTS5 alone lets sixteen do).
func TestUpdatesKeepSegmentsFew(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("knowledge/n%02d.md", i)] = fmt.Sprintf("Note %d about the deploy.\n", i)
	}
	v, ix := searchVault(t, files)
	for i := range 20 {
		writeFile(t, v, fmt.Sprintf("knowledge/n%02d.md", i), fmt.Sprintf("Note %d, edited, about the rollback.\n", i))
		if _, err := ix.check(t.Context(), CheckFull); err != nil {
			t.Fatal(err)
		}
	}
	db, err := ix.handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range ftsTables {
		var segments int
		if err := db.QueryRow(`SELECT count(DISTINCT segid) FROM ` + table + `_idx`).Scan(&segments); err != nil {
			t.Fatal(err)
		}
		if segments > 3 {
			t.Errorf("%s has %d segments after 20 updates, want at most 3", table, segments)
		}
	}
	if got := names(find(t, ix, Query{Text: "rollback"})); len(got) != 10 {
		t.Errorf("search after the updates = %d results, want 10", len(got))
	}
}

// TestSearchExclusionsBeyondTheWindows: on a vault where a query matches
// more entries than a search ranks exactly, entries whose title holds the
// query's word but whose body holds the excluded one are left out, and the
// limit is still filled from the others.
func TestSearchExclusionsBeyondTheWindows(t *testing.T) {
	v := vaulttest.New(t)
	for i := range rankWindow + 100 {
		writeFile(t, v, fmt.Sprintf("knowledge/n%04d.md", i), fmt.Sprintf("---\ntitle: Note %d\n---\nThe alpha rollout, step %d.\n", i, i))
	}
	for i := range 20 {
		writeFile(t, v, fmt.Sprintf("knowledge/plan%02d.md", i), fmt.Sprintf("---\ntitle: Alpha plan %d\n---\nThe beta test.\n", i))
	}
	ix := openIndex(t, v, nil)
	rs := find(t, ix, Query{Text: "alpha NOT beta", Limit: 5})
	if len(rs) != 5 {
		t.Fatalf("search = %d results, want 5", len(rs))
	}
	for _, r := range rs {
		if strings.HasPrefix(r.Name, "knowledge/plan") {
			t.Errorf("result %s holds the excluded word", r.Name)
		}
	}
	if rs := find(t, ix, Query{Text: "alpha", Limit: 5}); len(rs) != 5 || !strings.HasPrefix(rs[0].Name, "knowledge/plan") {
		t.Errorf("search alpha = %+v, want the plans first", rs)
	}
}

// TestSearchByWhenItHappened: --since and --until keep what happened in
// their time (vault.Happened), not what was filed then: a fact learned in
// a session of July and filed in January is in July.
func TestSearchByWhenItHappened(t *testing.T) {
	_, ix := searchVault(t, map[string]string{
		"knowledge/queues.md":            "---\ntitle: One queue\nconversation: \"abc@2025-07-22T09:15:00Z\"\ncreated: 2026-01-28T10:00:00Z\nupdated: 2026-01-28T10:00:00Z\n---\nThe queue is one.\n",
		"episodes/2025-10/2025-10-21.md": "---\ntitle: Tuesday\ntype: episode\nupdated: 2026-01-28T10:00:00Z\n---\nThe queue again.\n",
		"knowledge/queue-typed-today.md": "---\ntitle: Queue note\nupdated: 2026-01-27T10:00:00Z\n---\nA queue note.\n",
		"knowledge/queue-never-dated.md": "---\ntitle: Undated queue\n---\nA queue with no date.\n",
	})
	day := func(s string) time.Time {
		t.Helper()
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		since, until string
		want         []string
	}{
		{"2026-01-21", "", []string{"knowledge/queue-never-dated", "knowledge/queue-typed-today"}},
		{"2025-07-01", "2025-08-01", []string{"knowledge/queues"}},
		{"2025-10-01", "2025-11-01", []string{"episodes/2025-10/2025-10-21"}},
	} {
		q := Query{Text: "queue", Limit: 50, Since: day(tc.since)}
		if tc.until != "" {
			q.Until = day(tc.until)
		}
		rs := find(t, ix, q)
		got := names(rs)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("since %s until %s: %q, want %q", tc.since, tc.until, got, tc.want)
		}
		l, err := ix.Latest(t.Context(), Listing{Since: q.Since, Until: q.Until, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		got = slices.DeleteFunc(names(l), func(n string) bool { return !strings.Contains(n, "queue") && !strings.HasPrefix(n, "episodes/") })
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Latest since %s until %s: %q, want %q", tc.since, tc.until, got, tc.want)
		}
	}
	rs := find(t, ix, Query{Text: "one queue", Limit: 1})
	if len(rs) != 1 || rs[0].Happened.Format(time.RFC3339) != "2025-07-22T09:15:00Z" || rs[0].Updated.Format(time.RFC3339) != "2026-01-28T10:00:00Z" {
		t.Fatalf("result %+v: want happened 2025-07-22T09:15:00Z beside updated 2026-01-28T10:00:00Z", rs)
	}
}
