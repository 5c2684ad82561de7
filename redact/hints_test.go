package redact

import (
	"strings"
	"testing"
)

// TestHintSet: the automaton and the search hint by hint both find every
// hint that occurs, in any ASCII case, overlapping or inside another, and
// no other; a text too long to search hint by hint builds the automaton.
func TestHintSet(t *testing.T) {
	hints := []string{"key", "api", "apikey", "sk-", "s.", "ghp_", "Q~", "-----begin"}
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"nothing here", nil},
		{"my APIKEY", []string{"key", "api", "apikey"}},
		{"tests. ok", []string{"s."}},
		{"ask-me", []string{"sk-"}},
		{"ghP_x and 8q~y", []string{"ghp_", "Q~"}},
		{"-----BEGIN RSA", []string{"-----begin"}},
		{"é key ü", []string{"key"}},
	}
	long := strings.Repeat("x", scanMax+1)
	for _, tt := range tests {
		for _, how := range []struct {
			name string
			find func(string, []bool)
		}{
			{"hint by hint", newHintSet(hints).find},
			{"automaton", newAutomaton(hints).find},
			{"long text", func(s string, found []bool) { newHintSet(hints).find(long+s, found) }},
		} {
			found := make([]bool, len(hints))
			how.find(tt.text, found)
			var got []string
			for i, f := range found {
				if f {
					got = append(got, hints[i])
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("%s: find(%q) = %v, want %v", how.name, tt.text, got, tt.want)
			}
		}
	}
	h := newHintSet(hints)
	h.find(long, make([]bool, len(hints)))
	if !h.built.Load() {
		t.Errorf("a text of %d bytes did not build the automaton", len(long))
	}
}

// FuzzHintSet: the automaton and the search hint by hint agree with
// strings.Contains on lower-cased text.
func FuzzHintSet(f *testing.F) {
	f.Add("key", "a monkey's KEY")
	f.Add("ab", "aab")
	f.Fuzz(func(t *testing.T, hint, text string) {
		if hint == "" {
			return
		}
		want := strings.Contains(asciiLower(text), asciiLower(hint))
		for _, find := range []func(string, []bool){newHintSet([]string{hint, "key"}).find, newAutomaton([]string{hint, "key"}).find} {
			found := make([]bool, 2)
			find(text, found)
			if found[0] != want {
				t.Fatalf("find(%q) for %q = %v, want %v", text, hint, found[0], want)
			}
		}
	})
}
