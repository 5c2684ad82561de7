package query

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/internal/words"
)

// texts are the samples that the Go reading of text is checked against
// FTS5's: real transcripts (English prose, code, paths, JSON) and text in
// other scripts, with accents and case. Characters outside the Basic
// Multilingual Plane are taken out: FTS5's tables predate most emoji and
// class those it does not know as letters, where Go's tables class them
// as symbols. A snippet may not mark a word written with one.
func texts(t testing.TB) []string {
	t.Helper()
	out := []string{
		"Rendez-vous au CAFÉ près de la gare; Ångström naïve façade Œuvre",
		"Straße GROẞE Ärger über Öl — Ελληνικά κείμενα, ΑΘΗΝΑ; русский ТЕКСТ",
		"我们使用数据库来存储记忆。今日は東京で会議があります。한국어 텍스트",
		"x1 2nd v3.2.1 foo_bar foo-bar e-mail O'Reilly ½ ⅷ ٣ 𝔘𝔫𝔦 \uE000private",
		"caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate rate cease controll roll",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaing aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaing ab abs",
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "transcript", "testdata", "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no real transcripts under transcript/testdata")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Map(func(r rune) rune {
			if r > 0xFFFF {
				return ' '
			}
			return r
		}, string(b)))
	}
	return out
}

// vocabTable is an FTS5 table of the index's tokenizer over texts, as
// bodies with their first line as title, and an fts5vocab table that lists
// each token's term and position.
func vocabTable(t testing.TB, texts []string) *sql.DB {
	t.Helper()
	db := memDB(t,
		`CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)`)
	for i, s := range texts {
		title, _, _ := strings.Cut(s, "\n")
		if _, err := db.Exec(`INSERT INTO t(rowid, title, body) VALUES (?, ?, ?)`, i+1, Segment(title), Segment(s)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestTokensMatchFTS5 checks that words.Tokens and words.Term read every
// sample as FTS5 does: the same tokens, at the same positions, to the same
// terms.
func TestTokensMatchFTS5(t *testing.T) {
	all := texts(t)
	db := vocabTable(t, all)
	want := make([]map[int]string, len(all))
	for i := range want {
		want[i] = map[int]string{}
	}
	rows, err := db.Query(`SELECT doc, offset, term FROM v WHERE col = 'body'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var doc, off int
		var term string
		if err := rows.Scan(&doc, &off, &term); err != nil {
			t.Fatal(err)
		}
		want[doc-1][off] = term
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for i, s := range all {
		s = Segment(s)
		toks := words.Tokens(s)
		if len(toks) != len(want[i]) {
			t.Errorf("text %d: %d tokens, FTS5 reads %d", i, len(toks), len(want[i]))
		}
		bad := 0
		for p, sp := range toks {
			if got := words.Term(s[sp.Start:sp.End]); got != want[i][p] && bad < 10 {
				bad++
				t.Errorf("text %d, token %d %q: term %q, FTS5 reads %q", i, p, s[sp.Start:sp.End], got, want[i][p])
			}
		}
	}
}
