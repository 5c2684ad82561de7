// Package export turns a vault into what an agent without ctx0 can use: a
// folder to crawl with read, glob and grep (CONTEXT.md, the entries with
// their links made relative, an _index.md in every folder, statistics), one
// JSON backup that ctx0 import brings back byte for byte, or one markdown
// document to read.
//
// A folder export is incremental and atomic: the new tree is built beside
// the old one, with the files that did not change hard-linked from it, and
// swapped in with one rename, so a reader sees the old export or the new one
// and an export with nothing new writes nothing (see tree.go).
package export

import (
	"context"
	"fmt"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// Options say what to export and how. The zero value exports every live
// entry in full.
type Options struct {
	// Scope lists folders or entries (names such as contacts or
	// projects/bot0), or types (decision); only what they hold is
	// exported. Empty: all.
	Scope []string
	// Exclude lists folders, entries or types to leave out.
	Exclude []string
	// Since keeps only the entries about what happened at or after it
	// (vault.Happened: the session an entry was learned in, else the day
	// it is filed under, else its last update; an entry that says no time,
	// by its file's mtime), as search --since. Zero: all.
	Since time.Time
	// ChangedSince keeps only the entries that changed at or after it, by
	// git history and uncommitted edits: an incremental export or backup.
	// Zero: all.
	ChangedSince time.Time
	// All keeps archived and superseded entries, which are otherwise left
	// out. A JSON backup always keeps them.
	All bool
	// Minimal keeps the frontmatter and the first MinimalChars characters
	// of each body.
	Minimal bool
	// Versions adds each entry's earlier versions under .versions/.
	Versions bool
	// Flatten puts every entry in the export's root folder.
	Flatten bool
	// Redact replaces secrets with [REDACTED:kind].
	Redact bool
	// Force replaces a folder that is not a ctx0 export.
	Force bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Progress, if set, hears how far each stage ("reading", "writing")
	// has come.
	Progress func(stage string, done, total int)
}

// MinimalChars is how much of a body a minimal export keeps.
const MinimalChars = 500

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC().Truncate(time.Second)
	}
	return time.Now().UTC().Truncate(time.Second)
}

func (o Options) progress(stage string) func(done, total int) {
	if o.Progress == nil {
		return func(int, int) {}
	}
	return func(done, total int) { o.Progress(stage, done, total) }
}

// Result says what an export did.
type Result struct {
	Output    string         `json:"output,omitempty"`
	Commit    string         `json:"commit"`
	Entries   int            `json:"entries"`
	Versions  int            `json:"versions,omitempty"`
	Written   int            `json:"written"`   // files created or rewritten
	Unchanged int            `json:"unchanged"` // files kept as they were
	Removed   int            `json:"removed"`   // files of the previous export that are gone
	Links     LinkCounts     `json:"links"`
	Redacted  map[string]int `json:"redacted,omitempty"` // secrets replaced, by kind
	Skipped   []Skipped      `json:"skipped,omitempty"`  // entries that could not be read
	// Unparsed are files that are not valid entries, which a JSON backup
	// keeps byte for byte rather than skipping.
	Unparsed []Skipped `json:"unparsed,omitempty"`
}

// Skipped is an entry file left out because it could not be read.
type Skipped struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Folder exports the vault into the folder out. It refuses a folder in or
// around the vault, and a folder that is neither empty nor a ctx0 export
// unless o.Force.
func Folder(ctx context.Context, v *vault.Vault, out string, o Options) (Result, error) {
	out, err := realPath(out)
	if err != nil {
		return Result{}, fmt.Errorf("export to %s: %w", out, err)
	}
	if err := checkOutput(v.Root(), out, o.Force); err != nil {
		return Result{}, err
	}
	unlock, err := lockOutput(ctx, out)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	s, err := load(ctx, v, o, o.All, false)
	if err != nil {
		return Result{}, err
	}
	if o.Versions {
		if err := s.loadVersions(ctx, o.Redact); err != nil {
			return Result{}, err
		}
	}
	s.place(o.Flatten)
	prev, err := previousStats(out)
	if err != nil {
		return Result{}, err
	}
	files, st, err := s.render(ctx, o)
	if err != nil {
		return Result{}, err
	}
	// CONTEXT.md and stats.json carry the export's time. Render them with
	// the previous export's time first: if nothing else changed, nothing
	// is written, and the time stays that of the last export that changed
	// something.
	now := o.now()
	when := now
	if !prev.ExportedAt.IsZero() {
		when = prev.ExportedAt
	}
	meta, err := s.meta(ctx, o, st, when)
	if err != nil {
		return Result{}, err
	}
	p, err := compare(ctx, out, append(files, meta...))
	if err != nil {
		return Result{}, err
	}
	if p.changes() > 0 && !when.Equal(now) {
		if meta, err = s.meta(ctx, o, st, now); err != nil {
			return Result{}, err
		}
		p.replace(meta)
	}
	if err := p.apply(ctx, o.progress("writing")); err != nil {
		return Result{}, err
	}
	res := st.result()
	res.Output = out
	res.Written, res.Unchanged, res.Removed = p.counts()
	return res, nil
}
