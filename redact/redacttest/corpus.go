// Package redacttest gives tests the redactor's corpus, in
// redact/testdata/corpus.txtar: realistic secrets that must never be stored,
// named, exported or sent, and near-misses that must come through unchanged.
// Every path that takes text in is tested against it.
package redacttest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Case is one text of the corpus.
type Case struct {
	Name string // secret/… or keep/…
	Text string // the text, without the marks
	// Secrets are the values the text holds, in order; none for a
	// near-miss.
	Secrets []string
	// Want is the text with each secret replaced by a marker.
	Want *regexp.Regexp
}

// Corpus reads the corpus: the texts that hold secrets and the near-misses.
func Corpus(t testing.TB) (secrets, keeps []Case) {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("redacttest: cannot locate the corpus")
	}
	p := filepath.Join(filepath.Dir(file), "..", "testdata", "corpus.txtar")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("redacttest: %v", err)
	}
	secrets, keeps, err = Parse(data)
	if err != nil {
		t.Fatalf("redacttest: %v", err)
	}
	return secrets, keeps
}

// Parse reads a corpus in the txtar form of redact/testdata/corpus.txtar.
func Parse(data []byte) (secrets, keeps []Case, err error) {
	for _, f := range txtar.Parse(data).Files {
		c := parse(f.Name, strings.TrimSuffix(string(f.Data), "\n"))
		switch {
		case strings.HasPrefix(f.Name, "secret/"):
			if len(c.Secrets) == 0 {
				return nil, nil, fmt.Errorf("%s marks no secret", f.Name)
			}
			secrets = append(secrets, c)
		case strings.HasPrefix(f.Name, "keep/"):
			if len(c.Secrets) != 0 {
				return nil, nil, fmt.Errorf("near-miss %s marks a secret", f.Name)
			}
			keeps = append(keeps, c)
		default:
			return nil, nil, fmt.Errorf("%s is neither secret/ nor keep/", f.Name)
		}
	}
	return secrets, keeps, nil
}

// parse takes the «marks» out of marked.
func parse(name, marked string) Case {
	c := Case{Name: name}
	var text, want strings.Builder
	want.WriteString(`\A`)
	rest := marked
	for {
		i := strings.Index(rest, "«")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "»")
		if j < 0 {
			break
		}
		secret := rest[i+len("«") : i+j]
		text.WriteString(rest[:i])
		want.WriteString(regexp.QuoteMeta(rest[:i]))
		text.WriteString(secret)
		want.WriteString(`\[REDACTED:[a-z0-9-]+\]`)
		c.Secrets = append(c.Secrets, secret)
		rest = rest[i+j+len("»"):]
	}
	text.WriteString(rest)
	want.WriteString(regexp.QuoteMeta(rest) + `\z`)
	c.Text = text.String()
	c.Want = regexp.MustCompile(want.String())
	return c
}

// Leaks returns the first of c's secrets that out still holds, in any case
// (a name made of a secret is in lower case), or "". A secret shorter
// than 8 bytes is looked for as it is, so that it is not found by chance.
func (c Case) Leaks(out string) string {
	lower := strings.ToLower(out)
	for _, s := range c.Secrets {
		if strings.Contains(out, s) || len(s) >= 8 && strings.Contains(lower, strings.ToLower(s)) {
			return s
		}
		// The slug of a secret: what is left of it in a name.
		if slug := slugish(s); len(slug) >= 12 && strings.Contains(lower, slug) {
			return s
		}
	}
	return ""
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// slugish is s as a name made from it would carry it: lower case, runs of
// other characters as one hyphen.
func slugish(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
