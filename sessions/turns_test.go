package sessions

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/internal/words"
)

// FuzzCutAround: whatever the text and query, a cut is on one line, holds
// at most n tokens besides the marks of where it was cut, and starts with
// (the start of) a word of the text.
func FuzzCutAround(f *testing.F) {
	f.Add("Implemented the CLI.\n- Tests: `PYTHONPATH=. pytest -q` → 4 passed.\n- Done.", "how many tests passed", 8)
	f.Add("One. Two? Three! four", "three", 2)
	f.Add("", "x", 1)
	f.Add(strings.Repeat("word ", 200), "word", 16)
	f.Fuzz(func(t *testing.T, text, q string, n int) {
		if n < 1 || n > 400 || !utf8.ValidString(text) {
			return // a transcript's text is decoded JSON: valid UTF-8
		}
		out := cutAround(text, query.Plain(q).Marker(), n)
		if strings.Contains(out, "\n") {
			t.Fatalf("cut %q of %q is not on one line", out, text)
		}
		body := strings.TrimSuffix(strings.TrimPrefix(out, "…"), "…")
		if c := count(body); c > n && count(words.OneLine(text)) > n {
			t.Fatalf("cut %q of %q holds %d tokens, want at most %d", out, text, c, n)
		}
		if first := strings.Fields(body); len(first) > 0 && !strings.Contains(" "+words.OneLine(text), " "+first[0]) {
			t.Fatalf("cut %q does not start with a word of %q", out, text)
		}
	})
}

// TestSentences: a line is a sentence, and a stop before a word in lower
// case does not end one.
func TestSentences(t *testing.T) {
	got := sentences("Verification\n- Tests: `PYTHONPATH=. pytest -q` → 4 passed.\nDone. Next one? yes")
	want := []string{"Verification", "- Tests: `PYTHONPATH=. pytest -q` → 4 passed.", "Done.", "Next one? yes"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sentences: %q, want %q", got, want)
	}
	if !asks("Here are a few ideas.\nDo any of these sound interesting to you?") || asks("No question here.") {
		t.Error("asks does not tell a question")
	}
}
