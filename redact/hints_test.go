package redact

import (
	"strings"
	"testing"
)

// TestHintSet: the automaton finds every hint that occurs, in any ASCII
// case, overlapping or inside another, and no other.
func TestHintSet(t *testing.T) {
	hints := []string{"key", "api", "apikey", "sk-", "s.", "ghp_", "Q~", "-----begin"}
	h := newHintSet(hints)
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
	for _, tt := range tests {
		found := make([]bool, len(hints))
		h.find(tt.text, found)
		var got []string
		for i, f := range found {
			if f {
				got = append(got, hints[i])
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("find(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// FuzzHintSet: the automaton agrees with strings.Contains on lower-cased
// text.
func FuzzHintSet(f *testing.F) {
	f.Add("key", "a monkey's KEY")
	f.Add("ab", "aab")
	f.Fuzz(func(t *testing.T, hint, text string) {
		if hint == "" {
			return
		}
		h := newHintSet([]string{hint, "key"})
		found := make([]bool, 2)
		h.find(text, found)
		want := strings.Contains(asciiLower(text), asciiLower(hint))
		if found[0] != want {
			t.Fatalf("find(%q) for %q = %v, want %v", text, hint, found[0], want)
		}
	})
}
