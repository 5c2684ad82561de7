// Package merge combines concurrent edits of vault entries: a three-way
// merge of one entry file's base, ours and theirs versions.
//
// Frontmatter merges field by field, the body by the entry type's
// strategy. Nothing either side wrote is dropped: where both sides changed
// the same thing differently, one version stays in place and the other is
// returned as a Conflict, and for the body it is also kept in the file, in
// a marked block at the end (see the format below). The result never holds
// git's conflict markers, which agents would read as content.
//
// A conflict block is an Obsidian callout of the type "conflict", one per
// conflicting passage, after the rest of the body and separated from it by
// a blank line:
//
//	> [!conflict] Merge conflict: theirs had a different version of lines 12–14 (under "## Notes")
//	> the other side's first line
//	> the other side's second line
//
// The title names the side the text comes from (Options.TheirsLabel or
// OursLabel) and where the version that stayed in place stands, as line
// numbers of the merged file. A person or a curator resolves it by editing
// the text above and deleting the block.
//
// The package is pure: it reads no files and no clock, and calls no git.
package merge

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/vault/entry"
)

// Strategy is how the bodies of an entry type's versions combine, as
// configured per type (vault.TypeInfo.Merge).
type Strategy string

const (
	// FieldMerge merges the body line by line: edits in different places
	// both apply, and of overlapping edits the winner's stays in place and
	// the other is kept in a conflict block. The default.
	FieldMerge Strategy = "field-merge"
	// AppendOnly is for episodes and logs: what both sides added is kept,
	// and sections under dated headings (## 2026-01-28, ## 2026-01-28 10:30)
	// are put in date order.
	AppendOnly Strategy = "append-only"
	// LastWriteWins is for scratch entries: the version with the later
	// updated field wins whole, frontmatter and body.
	LastWriteWins Strategy = "last-write-wins"
	// Rebuilt is for entries a program makes from other entries, such as
	// the curator's summaries: the version with the later updated field
	// wins whole, as with LastWriteWins, but the other is not kept as a
	// conflict. Nothing is lost, since the entries it was made from are
	// still there and the program makes again what only it covered; a
	// conflict would ask a person to choose between two machine outputs.
	Rebuilt Strategy = "rebuilt"
)

// Side is one of the two versions being merged.
type Side string

const (
	// Ours is the version being merged into: the current branch, or the
	// file in the work tree (git's %A).
	Ours Side = "ours"
	// Theirs is the version being merged in (git's %B).
	Theirs Side = "theirs"
)

func (s Side) other() Side {
	if s == Ours {
		return Theirs
	}
	return Ours
}

// Conflict is a change that could not be combined with the other side's:
// the Kept side's version is in the merged file, and the other one is
// here (and, for the body, in a conflict block too). A conflict is never
// dropped silently; it waits in the vault's report until someone resolves
// it.
type Conflict struct {
	// Field is the frontmatter field, as a path for a field inside a map
	// ("meta.owner"); "" for the body or the whole file.
	Field string `json:"field,omitempty"`
	// Hunk says which part of the body or file, for conflicts outside the
	// frontmatter: "lines 12–14 (under \"## Notes\")", "whole entry
	// (last-write-wins)".
	Hunk string `json:"hunk,omitempty"`
	// Base, Ours and Theirs are the three versions: a field's value in
	// YAML, or text. An absent field or a deleted passage is "".
	Base   string `json:"base"`
	Ours   string `json:"ours"`
	Theirs string `json:"theirs"`
	// Kept is the side whose version is in the merged file.
	Kept Side `json:"kept"`
}

// Options tune a merge. The zero value merges with FieldMerge, and ours
// wins conflicts.
type Options struct {
	// Strategy is for the body; the caller looks it up from the entry's
	// type. Frontmatter is merged by field unless it is LastWriteWins.
	Strategy Strategy
	// Winner is the side whose version stays in place when both changed
	// the same thing differently, and whose additions go first where both
	// added at the same place; Ours if empty.
	Winner Side
	// OursLabel and TheirsLabel name the sides in conflict blocks, which
	// stay in the file after the merge, where "ours" means little: a
	// branch and a short commit hash, a machine, "run 01J9Z…". Empty
	// labels read "ours" and "theirs".
	OursLabel, TheirsLabel string
}

// Entry merges three versions of one entry file: base, their last common
// version, and ours and theirs. A nil or empty base means the file was
// added on both sides; it merges as if it had been empty. The result and
// the conflicts kept aside are returned. The only error is an invalid
// Options.
//
// When one side did not change the file, or both made it the same, the
// result is the other (that) version byte for byte. When ours or theirs
// does not parse as an entry, the files are merged line by line instead,
// and a conflict says so.
func Entry(base, ours, theirs []byte, opt Options) ([]byte, []Conflict, error) {
	if err := opt.check(); err != nil {
		return nil, nil, err
	}
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return bytes.Clone(ours), nil, nil
	case bytes.Equal(base, ours):
		return bytes.Clone(theirs), nil, nil
	}
	// Both sides changed the file. Texts whose line breaks differ from
	// ours' are converted, or every line would differ.
	m := &merger{opt: opt, eol: eolFor(ours, theirs)}
	texts := [3]string{withEOL(string(base), m.eol), string(ours), withEOL(string(theirs), m.eol)}
	var es [3]*entry.Entry
	var errs [3]error
	for i, text := range texts {
		es[i], errs[i] = entry.Parse([]byte(text))
	}
	switch {
	case errs[0] != nil || errs[1] != nil || errs[2] != nil:
		return m.fallback(texts, errs), m.conflicts, nil
	case opt.Strategy == LastWriteWins:
		return bytes.Clone(m.lastWriteWins(base, ours, theirs, es[1], es[2])), m.conflicts, nil
	case opt.Strategy == Rebuilt:
		if m.later(es[1], es[2]) == Ours {
			return bytes.Clone(ours), nil, nil
		}
		return bytes.Clone(theirs), nil, nil
	}
	return m.entries(es[0], es[1], es[2]), m.conflicts, nil
}

// eolFor is the line break of the merged file: ours', unless ours is one
// line.
func eolFor(ours, theirs []byte) string {
	if bytes.IndexByte(ours, '\n') >= 0 {
		return eolOf(string(ours))
	}
	return eolOf(string(theirs))
}

func (opt *Options) check() error {
	switch opt.Strategy {
	case "":
		opt.Strategy = FieldMerge
	case FieldMerge, AppendOnly, LastWriteWins, Rebuilt:
	default:
		return fmt.Errorf("merge: strategy %q: want %s, %s, %s or %s", opt.Strategy, FieldMerge, AppendOnly, LastWriteWins, Rebuilt)
	}
	switch opt.Winner {
	case "":
		opt.Winner = Ours
	case Ours, Theirs:
	default:
		return fmt.Errorf("merge: winner %q: want %s or %s", opt.Winner, Ours, Theirs)
	}
	if opt.OursLabel == "" {
		opt.OursLabel = string(Ours)
	}
	if opt.TheirsLabel == "" {
		opt.TheirsLabel = string(Theirs)
	}
	return nil
}

// merger holds what one merge collects along the way.
type merger struct {
	opt       Options
	eol       string // of the merged file (see eolFor)
	conflicts []Conflict
	canons    map[*yaml.Node]string // see canon
}

// entries merges three parsed versions: the frontmatter by field, the body
// by the strategy.
func (m *merger) entries(b, o, t *entry.Entry) []byte {
	e := m.front(b, o, t)
	var lines []string
	var aside []pending
	if m.opt.Strategy == AppendOnly {
		lines, aside = m.appendBody(b.Body(), o.Body(), t.Body())
	} else {
		lines, aside = m.lines3(b.Body(), o.Body(), t.Body())
	}
	body := strings.Join(lines, "")
	if m.open(b.Body(), o.Body(), t.Body()) {
		body = unterminate(body, m.eol)
	}
	if len(aside) > 0 {
		body = m.setAside(lines, aside, headerLines(e, body))
	}
	e.SetBody(body)
	return e.Bytes()
}

// open merges whether texts end without a line break: a side's change of
// it is taken.
func (m *merger) open(base, ours, theirs string) bool {
	b, o, t := endsOpen(base), endsOpen(ours), endsOpen(theirs)
	if o != t && b == o {
		return t
	}
	return o
}

// sides orders ours and theirs as the winner, then the other.
func sides[T any](m *merger, ours, theirs T) (win, lose T) {
	if m.opt.Winner == Theirs {
		return theirs, ours
	}
	return ours, theirs
}

// conflict records a conflict given the winner's and the other's
// versions, with the side kept.
func (m *merger) conflict(field, hunk, base, win, lose string, kept Side) {
	c := Conflict{Field: field, Hunk: hunk, Base: base, Ours: win, Theirs: lose, Kept: kept}
	if m.opt.Winner == Theirs {
		c.Ours, c.Theirs = lose, win
	}
	m.conflicts = append(m.conflicts, c)
}

func (m *merger) label(s Side) string {
	if s == Ours {
		return m.opt.OursLabel
	}
	return m.opt.TheirsLabel
}
