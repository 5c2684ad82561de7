package vault

import (
	"bytes"
	"maps"
	"strings"

	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/vault/entry"
)

// Redact is the one redactor as the vault applies it to text that it
// stores or makes a name of: s with its secrets replaced by
// [REDACTED:kind], and how many of each kind were replaced.
func Redact(s string) (string, map[string]int) { return redact.Report(s) }

// redactFile returns an entry file with the secrets in its body and
// frontmatter values replaced, adding what it replaced to counts. Only the
// fields that held a secret are rewritten, so the YAML stays valid (a
// marker is quoted where it would read as a list). A file that does not
// parse as an entry is redacted as plain text.
func redactFile(p string, data []byte, counts map[string]int) []byte {
	if data == nil || !strings.HasSuffix(p, ".md") {
		return data
	}
	count := func(s string) string {
		out, n := Redact(s)
		for k, c := range n {
			counts[k] += c
		}
		return out
	}
	e, err := entry.Parse(data)
	if err != nil {
		return []byte(count(string(data)))
	}
	before := maps.Clone(counts)
	if changed, err := e.MapText(count); err != nil || !changed {
		if err != nil {
			// The frontmatter could not be rewritten field by field:
			// redact the file as text rather than store the secret.
			clear(counts)
			maps.Copy(counts, before)
			return []byte(count(string(data)))
		}
		return data
	}
	return e.Bytes()
}

// redactText is data, a text file, with its secrets replaced, adding what
// it replaced to counts.
func redactText(data []byte, counts map[string]int) []byte {
	out, n := Redact(string(data))
	if len(n) == 0 {
		return data
	}
	for k, c := range n {
		counts[k] += c
	}
	return []byte(out)
}

// redactChanges redacts every entry file and plain text file a write puts
// in the vault, and its commit message: nothing ctx0 commits holds a secret
// the redactor knows.
// It returns what it replaced, by kind; nil if nothing.
func redactChanges(msg string, changes []change) (string, map[string]int) {
	counts := map[string]int{}
	for i := range changes {
		if changes[i].redacted {
			for k, c := range changes[i].counts {
				counts[k] += c
			}
			continue
		}
		data := redactFile(changes[i].path, changes[i].data, counts)
		if changes[i].plain && data != nil {
			data = redactText(data, counts)
		}
		if !bytes.Equal(data, changes[i].data) {
			changes[i].disk = nil // the file must be written: it holds the secret
		}
		changes[i].data = data
	}
	// The message repeats what the files say (a title): redacted, not
	// counted again.
	msg, _ = Redact(msg)
	if len(counts) == 0 {
		return msg, nil
	}
	return msg, counts
}

// Withheld is a file edited with other tools that ctx0 did not commit
// because it holds a secret; Reason reads after the path ("holds 1 secret
// (github-token 1)").
type Withheld struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// withholdSecrets takes out of an external-edits commit every file other
// than markdown that holds a secret, and says why. An entry (.md) is
// ctx0's own format and is redacted in place like any text ctx0 stores;
// any other file (a script, a .env, a config, an image) is the person's,
// and rewriting it would break it and lose the only copy of the secret,
// so it is left as it is, uncommitted, and reported until the person
// removes the secret or ignores the file. A deletion is never withheld.
func withholdSecrets(changes []change) ([]change, []Withheld) {
	var kept []change
	var held []Withheld
	for _, c := range changes {
		if c.data == nil || strings.HasSuffix(c.path, ".md") {
			kept = append(kept, c)
			continue
		}
		_, counts := Redact(string(c.data))
		if len(counts) == 0 {
			kept = append(kept, c)
			continue
		}
		what := "holds " + redact.Summary(counts)
		if isBinary(c.data) {
			what = "is a binary file holding what looks like " + redact.Summary(counts)
		}
		held = append(held, Withheld{Path: c.path, Reason: what})
	}
	return kept, held
}

// isBinary tells binary data as git does: a NUL byte in its first 8000
// bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}
