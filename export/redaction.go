package export

import (
	"fmt"

	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/vault/entry"
)

// redactText returns s with its secrets replaced and adds what was replaced
// to counts.
func redactText(s string, counts map[string]int) string {
	out, n := redact.Report(s)
	for k, c := range n {
		counts[k] += c
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
