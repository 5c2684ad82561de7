package export

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/vault/entry"
)

// markerRE finds the markers redact leaves, to count them by kind.
var markerRE = lazy.Regexp(strings.Replace(regexp.QuoteMeta(redact.Marker("KIND")), "KIND", `([a-z0-9-]+)`, 1))

// redactText returns s with its secrets replaced and adds what was replaced
// to counts. redact.String does not say what it replaced, so the markers
// are counted after and before; redacting is idempotent, so markers that
// were already there cancel out.
func redactText(s string, counts map[string]int) string {
	out := redact.String(s)
	if out == s {
		return s
	}
	for _, m := range markerRE().FindAllStringSubmatch(out, -1) {
		counts[m[1]]++
	}
	for _, m := range markerRE().FindAllStringSubmatch(s, -1) {
		counts[m[1]]--
	}
	for k, n := range counts {
		if n <= 0 {
			delete(counts, k)
		}
	}
	return out
}

// redactError is an entry that no longer parses once redacted. The export
// stops rather than ship the secret or a broken file.
type redactError struct {
	name string
	err  error
}

func (e *redactError) Error() string {
	return fmt.Sprintf("export: redact %s: the redacted file no longer parses (%v); move the secret out of the frontmatter", e.name, e.err)
}

func (e *redactError) Unwrap() error { return e.err }

// redactEntry redacts an entry's whole file, frontmatter included, and
// parses the result.
func redactEntry(name string, raw []byte, counts map[string]int) ([]byte, *entry.Entry, error) {
	out := []byte(redactText(string(raw), counts))
	e, err := entry.Parse(out)
	if err != nil {
		return nil, nil, &redactError{name: name, err: err}
	}
	return out, e, nil
}

// redact returns data redacted when on is set, counting into the set.
func (s *set) redact(data []byte, on bool) []byte {
	if !on {
		return data
	}
	return []byte(redactText(string(data), s.redacted))
}
