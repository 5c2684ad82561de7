package vault

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrBadName is returned for a name that is empty after normalization or
// that would escape the vault.
var ErrBadName = errors.New("invalid entry name")

// maxSegment caps one path segment in bytes, well under the 255 bytes most
// file systems allow, so that suffixes like "-2" and ".md.tmp-…" still fit.
const maxSegment = 120

// NormalizeName turns what a person or agent typed into an entry name, the
// path of the entry's file relative to the vault root without ".md".
//
// The rule, applied to each "/"-separated segment: lowercase; spaces and
// underscores become hyphens; only letters, digits, "-" and "." are kept;
// runs of hyphens collapse to one; hyphens and dots at either end are
// trimmed. A trailing ".md" and surrounding slashes are dropped first.
// Names that would leave the vault or reach into its machinery ("..",
// absolute paths, ".git/", ".ctx0/", any hidden segment) are refused.
// A secret in s is redacted first: no name carries one.
func NormalizeName(s string) (string, error) {
	orig := s
	s, _ = Redact(s)
	s = strings.TrimSpace(strings.ReplaceAll(s, "\\", "/"))
	if strings.HasPrefix(s, "/") || (len(s) > 1 && s[1] == ':') {
		return "", fmt.Errorf("%w %q: absolute paths are not allowed", ErrBadName, orig)
	}
	s = strings.TrimSuffix(strings.Trim(s, "/"), ".md")
	if s == "" {
		return "", fmt.Errorf("%w %q: empty", ErrBadName, orig)
	}
	parts := strings.Split(s, "/")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == ".." || p == "." {
			return "", fmt.Errorf("%w %q: %q would leave the vault", ErrBadName, orig, p)
		}
		if strings.HasPrefix(p, ".") {
			return "", fmt.Errorf("%w %q: hidden folders such as %q are not entries", ErrBadName, orig, p)
		}
		n := normalizeSegment(p)
		if n == "" {
			return "", fmt.Errorf("%w %q: segment %q has no letters or digits", ErrBadName, orig, p)
		}
		parts[i] = n
	}
	return strings.Join(parts, "/"), nil
}

func normalizeSegment(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ' || r == '_' || r == '-' || unicode.IsSpace(r):
			hyphen = true
			continue
		case r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
		default:
			continue
		}
		if hyphen && b.Len() > 0 {
			b.WriteByte('-')
		}
		hyphen = false
		b.WriteRune(r)
	}
	out := strings.Trim(b.String(), "-.")
	for len(out) > maxSegment {
		_, size := utf8.DecodeLastRuneInString(out)
		out = strings.TrimRight(out[:len(out)-size], "-.")
	}
	return out
}

// Slug is the last segment of a name: "sarah-chen" for "contacts/sarah-chen".
func Slug(name string) string { return path.Base(name) }

// Folder is the folder part of a name, "" for a name at the vault root.
func Folder(name string) string {
	if d := path.Dir(name); d != "." {
		return d
	}
	return ""
}

// guideFile is the vault's CONTEXT.md: documentation for agents, not an entry.
const guideFile = "CONTEXT.md"

// entryPath is the file of a name, relative to the vault root.
func entryPath(name string) string { return name + ".md" }

// nameOf is the inverse of entryPath for a slash-separated relative path; ok
// is false for paths that are not entries: other files, and anything in a
// hidden folder such as .git/ or .ctx0/.
func nameOf(rel string) (name string, ok bool) {
	if !strings.HasSuffix(rel, ".md") || rel == guideFile {
		return "", false
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return "", false
		}
	}
	return strings.TrimSuffix(rel, ".md"), true
}
