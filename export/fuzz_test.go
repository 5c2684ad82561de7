package export

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/ctx0/ctx0/vault/entry"
)

// FuzzRewrite: rewriting the links of any body, into links or into text,
// cuts only at the links it finds and keeps text valid UTF-8.
func FuzzRewrite(f *testing.F) {
	f.Add("")
	f.Add("See [[a]], [[a#H|label]], ![[a]], [x](../x/a.md#h \"t\"), [y](<gone.md>) and [r][ref].\n\n[ref]: a.md\n")
	f.Add("[a [nested] label](a.md) `[[code]]` [[a")
	a := &doc{name: "x/a", file: "x/a.md", e: entry.New()}
	s := &set{
		byName:   map[string]*doc{"x/a": a},
		inVault:  map[string]bool{"x/a": true},
		resolved: map[string]resolution{},
		resolve:  func(context.Context, string) (string, error) { return "x/a", nil },
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, href := range []hrefFunc{fileHref("y"), nil} {
			var counts LinkCounts
			out, err := s.rewrite(t.Context(), "x/b", body, href, &counts)
			if err != nil {
				t.Fatal(err)
			}
			if utf8.ValidString(body) && !utf8.ValidString(out) {
				t.Errorf("rewrite(%q) = %q: invalid UTF-8", body, out)
			}
			if counts.Rewritten+counts.Broken == 0 && href != nil && out != body {
				t.Errorf("rewrite(%q) changed a body without links: %q", body, out)
			}
		}
	})
}
