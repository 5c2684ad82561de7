package query

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"
)

func TestTranslate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"deploy", `"deploy"`},
		{"deploy staging", `("deploy" OR "staging")`},
		{"deploy AND staging", `"deploy" AND "staging"`},
		{`"staging deploy"`, `"staging deploy"`},
		{"deploy OR release", `("deploy" OR "release")`},
		{"a b OR c", `"a" AND ("b" OR "c")`},
		{"deploy NOT staging", `"deploy" NOT "staging"`},
		{"deploy -staging -prod", `"deploy" NOT ("staging" OR "prod")`},
		{"a b NOT c", `("a" AND "b") NOT "c"`},
		{"depl*", `"depl"*`},
		{`"staging dep"*`, `"staging dep"*`},
		{"title:sarah", `{title} : "sarah"`},
		{`tag:"key people"`, `{tags} : "key people"`},
		{"foo:bar", `"foo bar"`},
		{"foo:bar -x", `"foo:bar" NOT "x"`},
		{"(a OR b) c", `("a" OR "b") AND "c"`},
		{"(a c) OR b", `(("a" AND "c") OR "b")`},
		{"x-ray c++", `"x ray"`},
		{"x-ray AND c++", `"x-ray" AND "c++"`},
		{"", ""},
		{"   ", ""},
		{"*", ""},
		{`"`, ""},
		{`""`, ""},
		{"-", ""},
		{"--", ""},
		{"NOT", ""},
		{"OR", ""},
		{"a OR", `"a"`},
		{"OR a", `"a"`},
		{"NOT a", `"a"`},
		{"-staging", `"staging"`},
		{"a (", `"a"`},
		{"a ) b", `("a" OR "b")`},
		{"a ) AND b", `"a" AND "b"`},
		{`unclosed "quote here`, `"unclosed" AND "quote here"`},
		{`say "hi"" there`, `"say" AND "hi" AND " there"`},
		{`it's`, `"it s"`},
		{`Sarah's e-mail?`, `("sarah" OR "e mail")`},
		{"how does Sarah like to be contacted", `("sarah" OR "contacted")`},
		{"what is this", `("what" OR "is" OR "this")`},
		{"deploy deploying", `"deploy"`},
		{`he said "a ""b"`, `"he" AND "said" AND "a " AND "b"`},
		{"NEAR(a b)", `("near" OR "a" OR "b")`},
		{"NEAR(a AND b)", `"NEAR" AND ("a" AND "b")`},
		{"and or not", `("and" OR "or" OR "not")`},
		{"a AND b", `"a" AND "b"`},
		{"数据库", "(\"\u200b数\u200b据\u200b\" OR \"\u200b据\u200b库\u200b\")"},
		{`"数据库"`, "\"\u200b数\u200b据\u200b库\u200b\""},
		{"café", `"café"`},
	} {
		if got := Translate(tc.in); got != tc.want {
			t.Errorf("Translate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSegment(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"数据库", "\u200b数\u200b据\u200b库\u200b"},
		{"API设计 done", "API\u200b设\u200b计\u200b done"},
		{"カタカナー", "\u200bカ\u200bタ\u200bカ\u200bナ\u200bー\u200b"},
		{"한국어 텍스트", "\u200b한\u200b국\u200b어\u200b \u200b텍\u200b스\u200b트\u200b"},
	} {
		got := Segment(tc.in)
		if got != tc.want {
			t.Errorf("Segment(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if Unsegment(got) != tc.in {
			t.Errorf("Unsegment(Segment(%q)) = %q", tc.in, Unsegment(got))
		}
	}
}

// ftsTable is an in-memory FTS5 table with the index's tokenizer and
// columns, to check that translations are valid FTS5 and mean what they say.
func ftsTable(t testing.TB) *sql.DB {
	t.Helper()
	db := memDB(t, `CREATE VIRTUAL TABLE fts USING fts5(name, title, tags, body, tokenize = 'porter unicode61 remove_diacritics 2')`)
	docs := [][4]string{
		{"staging", "Deploy to staging", "ops", "We are deploying the staging server on Friday."},
		{"release", "Release notes", "ops", "The release went out; deploy key rotated."},
		{"sarah", "Sarah Chen", "contact investor", "Partner at Example Ventures; prefers email."},
		{"cafe", "Café visit", "", "Rendez-vous au café près de la gare."},
		{"db", "数据库设计", "", "我们使用数据库来存储记忆。今日は東京で会議があります。"},
	}
	for i, d := range docs {
		if _, err := db.Exec(`INSERT INTO fts(rowid, name, title, tags, body) VALUES (?, ?, ?, ?, ?)`,
			i+1, Segment(d[0]), Segment(d[1]), Segment(d[2]), Segment(d[3])); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// memDB is an in-memory database, on one connection, made by stmts.
func memDB(t testing.TB, stmts ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func match(t testing.TB, db *sql.DB, expr string) ([]string, error) {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM fts WHERE fts MATCH ? ORDER BY rowid`, expr)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func TestTranslationsMatch(t *testing.T) {
	db := ftsTable(t)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"deploy", []string{"staging", "release"}},
		{"deploying", []string{"staging", "release"}},
		{"deploy AND staging", []string{"staging"}},
		{"deploy staging", []string{"staging", "release"}},
		{`"deploy key"`, []string{"release"}},
		{`"key deploy"`, nil},
		{"deploy NOT staging", []string{"release"}},
		{"deploy -friday", []string{"release"}},
		{"sarah OR cafe", []string{"sarah", "cafe"}},
		{"invest*", []string{"sarah"}},
		{"title:staging", []string{"staging"}},
		{"tag:investor", []string{"sarah"}},
		{"cafe", []string{"cafe"}},
		{"CAFÉ", []string{"cafe"}},
		{"pres", []string{"cafe"}},
		{"数据库", []string{"db"}},
		{"数据", []string{"db"}},
		{"记忆", []string{"db"}},
		{"東京", []string{"db"}},
		{"会議", []string{"db"}},
		{"京東", nil},
		{"a-b c:d ^e", nil},
	} {
		expr := Translate(tc.q)
		got, err := match(t, db, expr)
		if err != nil {
			t.Errorf("query %q → %q: %v", tc.q, expr, err)
			continue
		}
		if !equal(got, tc.want) {
			t.Errorf("query %q → %q matched %q, want %q", tc.q, expr, got, tc.want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzTranslate checks that no query makes FTS5 report an error.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{"", "deploy staging", `"a b"* OR c NOT (d -e) title:"x y" f*`, `((((`, `"`, "数据库 OR café", "NEAR(a b, 2) ^c {title}: d"} {
		f.Add(s)
	}
	db := ftsTable(f)
	f.Fuzz(func(t *testing.T, q string) {
		p := Plain(q)
		for _, expr := range []string{p.Expr(), p.Unfielded()} {
			if expr == "" {
				continue
			}
			if _, err := match(t, db, expr); err != nil {
				t.Fatalf("query %q → %q: %v", q, expr, err)
			}
		}
	})
}
