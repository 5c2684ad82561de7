package query

import (
	"database/sql"
	"strings"
	"testing"
)

// ftsSnippets returns FTS5's snippet of each text that expr matches, by
// the text's index in texts.
func ftsSnippets(t testing.TB, db *sql.DB, expr string) map[int]string {
	t.Helper()
	rows, err := db.Query(`SELECT rowid, snippet(t, 1, '«', '»', '…', 16) FROM t WHERE t MATCH ?`, expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var id int
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		out[id-1] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// chunks cuts texts into pieces of about 4 KB, the size of an entry.
func chunks(texts []string) []string {
	var out []string
	for _, s := range texts {
		for len(s) > 4096 {
			i := strings.LastIndexAny(s[:4096], " \n")
			if i <= 0 {
				i = 4096
			}
			out = append(out, strings.ToValidUTF8(s[:i], ""))
			s = s[i:]
		}
		out = append(out, strings.ToValidUTF8(s, ""))
	}
	return out
}

// TestSnippetsMatchFTS5 checks that a Marker's snippets are FTS5's, word
// for word and mark for mark, over the samples cut to the size of entries
// and queries of every kind.
func TestSnippetsMatchFTS5(t *testing.T) {
	all := chunks(texts(t))
	db := vocabTable(t, all)
	queries := []string{
		"the", "file", "files", "running", "error", "tests", "deploy", "configuration",
		"read file", "git commit", "test passes", `"the file"`, `"git status"`, `"no such file"`,
		"conf*", "test*", "re*", `"git c"*`, "error OR warning", "file NOT test", "-json file",
		"title:file body", "body:error", "(read OR write) file", "café", "ΑΘΗΝΑ", "東京", "数据库", "Straße",
	}
	compared := 0
	for _, q := range queries {
		m := NewMarker(q)
		for i, want := range ftsSnippets(t, db, Translate(q)) {
			compared++
			if got := m.Snippet(Segment(all[i]), 16, "«", "»", "…"); got != want {
				t.Errorf("query %q, text %d:\n got %q\nwant %q", q, i, got, want)
			}
		}
	}
	if compared < 1000 {
		t.Errorf("compared %d snippets, want at least 1000", compared)
	}
}

// FuzzSnippetsMatchFTS5 checks a Marker against FTS5 on any text and
// query, in the Basic Multilingual Plane (see texts).
func FuzzSnippetsMatchFTS5(f *testing.F) {
	f.Add("We are deploying the staging server. Deploy: friday", "deploy staging")
	f.Add("Rendez-vous au café près de la gare", `"la gare" OR café`)
	f.Add("我们使用数据库来存储记忆。今日は東京で会議があります。", "東京 数据*")
	f.Add("a b a b a b a b a b a b a b a b a b a b a b a b a b a b a b a b", `"b a" b`)
	f.Fuzz(func(t *testing.T, text, q string) {
		bmp := func(r rune) rune {
			if r > 0xFFFF {
				return ' '
			}
			return r
		}
		text = strings.Map(bmp, strings.ToValidUTF8(text, ""))
		expr := Translate(q)
		if expr == "" || strings.ContainsRune(text, 0) {
			return
		}
		db := vocabTable(t, []string{text})
		want, ok := ftsSnippets(t, db, expr)[0]
		if !ok {
			return
		}
		if got := NewMarker(q).Snippet(Segment(text), 16, "«", "»", "…"); got != want {
			t.Errorf("query %q in %q:\n got %q\nwant %q", q, text, got, want)
		}
	})
}

func TestMarkerMarksWhatTheBodyMatches(t *testing.T) {
	for _, tc := range []struct{ q, text, want string }{
		{"title:deploy staging NOT friday", "Deploy staging on friday.", "Deploy «staging» on friday."},
		{"body:deploying", "We deployed it.", "We «deployed» it."},
		{`"staging deploy" OR key*`, "The staging deploy keys", "The «staging deploy» «keys»"},
		{"数据库", "我们使用数据库", "我们使用«数据库»"},
		{"absent", "Nothing here matches.", "Nothing here matches."},
	} {
		got := Unsegment(NewMarker(tc.q).Snippet(Segment(tc.text), 16, "«", "»", "…"))
		if got != tc.want {
			t.Errorf("%q in %q: %q, want %q", tc.q, tc.text, got, tc.want)
		}
	}
}

func TestMarkerHead(t *testing.T) {
	m := NewMarker("how is login AND handled")
	text := "Device keys. Authentication uses keys bound to the device. A lost laptop is revoked and the login is refused."
	if got, want := m.Head(text, 8, "«", "»", "…"), "Device keys. Authentication uses keys bound to the…"; got != want {
		t.Errorf("Head = %q, want %q", got, want)
	}
	if got, want := m.Head(text, 100, "«", "»", "…"), "Device keys. Authentication uses keys bound to the device. A lost laptop «is» revoked and the «login» «is» refused."; got != want {
		t.Errorf("Head = %q, want %q", got, want)
	}
}

func TestExcludes(t *testing.T) {
	for q, want := range map[string]bool{
		"deploy": false, "deploy NOT friday": true, "deploy -friday": true, "(a OR (b NOT c)) d": true,
		`"do NOT merge"`: false, "NOT friday": false, "": false,
	} {
		if got := Plain(q).Excludes(); got != want {
			t.Errorf("Excludes(%q) = %v, want %v", q, got, want)
		}
	}
}
