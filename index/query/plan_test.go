package query

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index/query/when"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		q        string
		natural  bool
		words    []string
		excluded []string
		sought   string
	}{
		{"how does Sarah like to be contacted", true, []string{"sarah", "contacted"}, nil, "how does Sarah like to be contacted"},
		{"what does Sarah prefer for scheduling", true, []string{"sarah", "prefer", "scheduling"}, nil, "what does Sarah prefer for scheduling"},
		{"What is this?", true, []string{"what", "is", "this"}, nil, "What is this?"},
		{"Deploying deploys", true, []string{"deploying"}, nil, "Deploying deploys"},
		{"Sarah's e-mail", true, []string{"sarah", "mail"}, nil, "Sarah's e-mail"},
		{"東京のユーザー会", true, []string{"東京のユーザー会"}, nil, "東京のユーザー会"},
		{"(a c) b", true, []string{"a", "c", "b"}, nil, "(a c) b"},
		{"deploy AND staging", false, []string{"deploy", "staging"}, nil, "deploy staging"},
		{`"the plan" for Q3`, false, []string{"plan", "q3"}, nil, "the plan for Q3"},
		{"deploy NOT friday", false, []string{"deploy"}, []string{"friday"}, "deploy"},
		{"deploy -staging -prod", false, []string{"deploy"}, []string{"staging", "prod"}, "deploy"},
		{"title:sarah email", false, []string{"sarah", "email"}, nil, "sarah email"},
		{"depl*", false, []string{"depl"}, nil, "depl"},
		{"a OR b", false, []string{"a", "b"}, nil, "a b"},
		{"", true, nil, nil, ""},
		{"?!", true, nil, nil, "?!"},
	} {
		p := Plain(tc.q)
		if p.Natural() != tc.natural || !slices.Equal(p.Words(), tc.words) || !slices.Equal(p.Excluded(), tc.excluded) || p.Sought() != tc.sought {
			t.Errorf("Parse(%q): natural %v, words %q, excluded %q, sought %q; want %v, %q, %q, %q",
				tc.q, p.Natural(), p.Words(), p.Excluded(), p.Sought(), tc.natural, tc.words, tc.excluded, tc.sought)
		}
		if p.Text() != tc.q || p.Empty() != (len(tc.words) == 0) {
			t.Errorf("Parse(%q): text %q, empty %v", tc.q, p.Text(), p.Empty())
		}
	}
}

func TestCover(t *testing.T) {
	const text = "Sarah prefers email over phone calls for scheduling. Long after, other words follow here and there, then a phone. [[contacts/sarah-chen|Her]]"
	for _, tc := range []struct {
		q    string
		want Cover
	}{
		{"what does Sarah prefer for scheduling", Cover{Held: 3, Of: 3, Span: 8}},
		{"how does Sarah like to be contacted", Cover{Held: 1, Of: 2, Span: 1}},
		{"sarah phone", Cover{Held: 2, Of: 2, Span: 2}}, // "a phone. [[contacts/sarah-chen"
		{"phone", Cover{Held: 1, Of: 1, Span: 1}},
		{"kafka", Cover{Of: 1}},
		{`"phone calls" email`, Cover{Held: 2, Of: 2, Span: 4}},
		{"contacts of sarah", Cover{Held: 1, Of: 2, Span: 1}}, // not the folder of [[contacts/sarah-chen]]
	} {
		if got := NewMarker(tc.q).Cover(Segment(text)); got != tc.want {
			t.Errorf("Cover(%q) = %+v, want %+v", tc.q, got, tc.want)
		}
	}
	// Boost: more of the query, then closer together, ranks higher.
	for _, tc := range []struct{ more, less Cover }{
		{Cover{Held: 3, Of: 3, Span: 40}, Cover{Held: 2, Of: 3, Span: 2}},
		{Cover{Held: 2, Of: 3, Span: 3}, Cover{Held: 2, Of: 3, Span: 200}},
		{Cover{Held: 1, Of: 3, Span: 1}, Cover{Held: 0, Of: 3}},
	} {
		if tc.more.Boost() <= tc.less.Boost() {
			t.Errorf("Boost(%+v) = %v, not above Boost(%+v) = %v", tc.more, tc.more.Boost(), tc.less, tc.less.Boost())
		}
	}
	if b := (Cover{Held: 1, Of: 1, Span: 1}).Boost(); b != 1 {
		t.Errorf("a query of one term boosts %v, want 1", b)
	}
}

// FuzzParse checks what every plan promises: a natural query only ORs; a
// plan with words is not empty; a cover holds at most the query's terms.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "how does Sarah like to be contacted", `"a b"* OR c NOT (d -e) title:"x y" f*`, "what is this", "東京のユーザー会 café", "x-ray c++ it's", "(((a", "who is coming on the 4th of April, and on the 4th?"} {
		f.Add(s)
	}
	db := ftsTable(f)
	f.Fuzz(func(t *testing.T, q string) {
		p := Plain(q)
		expr := p.Expr()
		if p.Empty() != (expr == "") || p.Empty() != (len(p.Words()) == 0) {
			t.Fatalf("Parse(%q): empty %v, expr %q, words %q", q, p.Empty(), expr, p.Words())
		}
		if p.Natural() && (strings.Contains(expr, " AND ") || strings.Contains(expr, " NOT ")) {
			t.Fatalf("Parse(%q) is natural but requires or excludes: %q", q, expr)
		}
		if expr != "" {
			if _, err := match(t, db, expr); err != nil {
				t.Fatalf("query %q → %q: %v", q, expr, err)
			}
		}
		c := p.Marker().Cover(Segment(q))
		if c.Held > c.Of || c.Held > 0 && c.Span < 1 {
			t.Fatalf("Cover of %q in itself: %+v", q, c)
		}
		// Read with its time: the same search (with a day's number in
		// its other form, for a natural question naming a day), well
		// formed, and a window only with the words of a natural question
		// left to search for in it; a cover holding the day holds at
		// most the query's terms too.
		tp := Parse(q, time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC))
		if !strings.HasPrefix(tp.Expr(), expr) || tp.Text() != q || len(tp.Days()) == 0 && tp.Expr() != expr {
			t.Fatalf("Parse(%q) searches %q, Plain %q", q, tp.Expr(), expr)
		}
		if tp.Expr() != expr {
			if _, err := match(t, db, tp.Expr()); err != nil {
				t.Fatalf("query %q → %q: %v", q, tp.Expr(), err)
			}
		}
		if c := tp.Marker().Cover(Segment(q)); c.Held > c.Of || c.Held > 0 && c.Span < 1 {
			t.Fatalf("Cover of %q in itself, read with its time: %+v", q, c)
		}
		if !tp.Window().IsZero() && !tp.Natural() {
			t.Fatalf("Parse(%q): a window %v for a strict query", q, tp.Window())
		}
		if rest, w, ok := tp.Timed(time.Time{}, time.Time{}); ok && (rest.Empty() || w.IsZero()) || !ok && rest != tp {
			t.Fatalf("Parse(%q).Timed = %q, %v, %v", q, rest.Text(), w, ok)
		}
	})
}

// TestParseTime: Parse reads what a natural question says of time once,
// with its words: the window its words ask about, and what to search for
// in it.
func TestParseTime(t *testing.T) {
	now := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC) // a Wednesday
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		q      string
		window when.Window
		rest   string // Rest().Text()
		timed  bool
		events int
	}{
		{"what did we decide last week about billing", when.Window{Since: day(1, 19), Until: day(1, 26)}, "what did we decide about billing", true, 0},
		{"billing", when.Window{}, "billing", false, 0},
		{"what happened last week", when.Window{Since: day(1, 19), Until: day(1, 26)}, "what happened", true, 0},
		{"last week", when.Window{Since: day(1, 19), Until: day(1, 26)}, "", false, 0},
		{"who came to the party on 26 March", when.Window{}, "who came to the party on 26 March", false, 0},
		{"what changed since the launch", when.Window{}, "what changed", false, 1},
		{"billing AND \"last week\"", when.Window{}, "billing AND \"last week\"", false, 0},
	} {
		p := Parse(tc.q, now)
		if p.Window() != tc.window || p.Rest().Text() != tc.rest || len(p.When().Events()) != tc.events {
			t.Errorf("Parse(%q): window %v, rest %q, %d events; want %v, %q, %d", tc.q, p.Window(), p.Rest().Text(), len(p.When().Events()), tc.window, tc.rest, tc.events)
		}
		// The query's own expression; a day named is searched in its other
		// form too (TestExprFindsTheDayInEitherForm).
		if p.Text() != tc.q || !strings.HasPrefix(p.Expr(), Plain(tc.q).Expr()) {
			t.Errorf("Parse(%q): text %q, expr %q; want the query's own", tc.q, p.Text(), p.Expr())
		}
		rest, w, ok := p.Timed(time.Time{}, day(1, 22))
		if ok != tc.timed {
			t.Errorf("Parse(%q).Timed: ok %v, want %v", tc.q, ok, tc.timed)
		}
		if ok && (rest != p.Rest() || w != (when.Window{Since: tc.window.Since, Until: day(1, 22)})) {
			t.Errorf("Parse(%q).Timed = %q, %v: want the rest within until", tc.q, rest.Text(), w)
		}
		if !ok && rest != p {
			t.Errorf("Parse(%q).Timed = %q, want the question as typed", tc.q, rest.Text())
		}
	}
}

// TestInBody: whether a query limits a word to the body, from its plan.
func TestInBody(t *testing.T) {
	for q, want := range map[string]bool{
		"body:deploy":         true,
		"staging NOT body:x":  true,
		"title:sarah":         false,
		"{body} deploy":       false,
		`"{body}" AND deploy`: false,
	} {
		if got := Plain(q).InBody(); got != want {
			t.Errorf("Plain(%q).InBody() = %v, want %v", q, got, want)
		}
	}
}
