package curator

import (
	"strings"
	"testing"
)

// FuzzPlainLinks: whatever the text, it does not fail, text without
// links stays as it is, and plain links come out as their text.
func FuzzPlainLinks(f *testing.F) {
	f.Add("")
	f.Add("See [[contacts/sarah-chen|Sarah]] and [notes](../knowledge/a.md#x), ![[img]].")
	f.Fuzz(func(t *testing.T, s string) {
		out := plainLinks(s)
		if !strings.Contains(s, "[") && out != s {
			t.Errorf("%q without links became %q", s, out)
		}
	})
}

func TestPlainLinks(t *testing.T) {
	got := plainLinks("See [[contacts/sarah-chen|Sarah]], [[projects/bot0]], [[a#b]] and [notes](../knowledge/a.md#x); [web](https://x.org).")
	want := "See Sarah, projects/bot0, a and notes; [web](https://x.org)."
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
