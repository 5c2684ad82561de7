package vault

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
// A secret in s is redacted first: no name carries one. Names are in
// Unicode NFC, so "résumé" typed with a combining accent is the same entry
// as with a precomposed one. Windows' reserved device names (con, nul,
// com1, aux.txt…) are refused: a vault holding one cannot be checked out
// on Windows.
func NormalizeName(s string) (string, error) {
	n, err := normalizeAnyName(s)
	if err != nil {
		return "", err
	}
	for _, seg := range strings.Split(n, "/") {
		if reservedOnWindows(seg) {
			return "", fmt.Errorf("%w %q: %q is a device name that Windows reserves", ErrBadName, s, seg)
		}
	}
	return n, nil
}

// normalizeAnyName is NormalizeName without the refusal of Windows'
// device names, so that an entry a person made under such a name can still
// be found, renamed and removed.
func normalizeAnyName(s string) (string, error) {
	redacted, _ := Redact(s)
	n, err := normalizeName(s, redacted)
	if err != nil {
		return "", err
	}
	// Lowercasing can give a secret its shape (GLPAT-… becomes glpat-…).
	if again, _ := Redact(n); again != n {
		return normalizeName(s, again)
	}
	return n, nil
}

// RedactName is name with the secrets it carries redacted, normalized as
// NormalizeName would make it; name itself, as it is, when it carries
// none. An export with redaction names its files with it, for entries a
// person named before ctx0 redacted names.
func RedactName(name string) string {
	plain, err := normalizeName(name, name)
	if err != nil {
		return name
	}
	if n, err := normalizeAnyName(name); err == nil && n != plain {
		return n
	}
	return name
}

// normalizeName normalizes s, typed as orig.
func normalizeName(orig, s string) (string, error) {
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
	for _, r := range norm.NFC.String(strings.ToLower(s)) {
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
	// Dropping a character can leave a combining mark next to the letter
	// it belongs to: compose again.
	out := strings.Trim(norm.NFC.String(b.String()), "-.")
	for len(out) > maxSegment {
		_, size := utf8.DecodeLastRuneInString(out)
		out = strings.TrimRight(out[:len(out)-size], "-.")
	}
	return out
}

// reservedOnWindows reports whether a normalized segment is one of the
// device names Windows reserves in every folder, alone or before any
// extension: con, prn, aux, nul, com0-9, lpt0-9 (nul.md, aux.tar.gz).
func reservedOnWindows(seg string) bool {
	base, _, _ := strings.Cut(seg, ".")
	switch base {
	case "con", "prn", "aux", "nul":
		return true
	}
	// COM¹ to COM³ are reserved too, but a name keeps no superscripts.
	return len(base) == 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) &&
		base[3] >= '0' && base[3] <= '9'
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
