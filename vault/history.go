package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/ctx0/ctx0/vault/entry"
)

// LogEntry is one commit as history and log show it.
type LogEntry struct {
	Hash    string    `json:"commit"`
	Author  string    `json:"author"`
	Email   string    `json:"email"`
	When    time.Time `json:"date"`
	Subject string    `json:"subject"`
	Path    string    `json:"path,omitempty"` // the entry's file at that commit, for history
}

func logEntry(c *object.Commit) LogEntry {
	subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
	return LogEntry{Hash: c.Hash.String(), Author: c.Author.Name, Email: c.Author.Email, When: c.Author.When, Subject: subject}
}

// Log returns the last n commits on the current branch, newest first (all
// of them when n <= 0).
func (v *Vault) Log(ctx context.Context, n int) ([]LogEntry, error) {
	out := []LogEntry{}
	err := v.walkCommits(ctx, func(c *object.Commit) error {
		out = append(out, logEntry(c))
		if n > 0 && len(out) >= n {
			return storer.ErrStop
		}
		return nil
	})
	return out, err
}

// History returns the commits that changed an entry, newest first,
// following it back through renames (ctx0's own and git's).
func (v *Vault) History(ctx context.Context, ref string) ([]LogEntry, error) {
	name, err := v.Resolve(ctx, ref)
	if errors.Is(err, ErrNotFound) {
		// A purged entry still has a history.
		if n, nerr := NormalizeName(ref); nerr == nil {
			name, err = n, nil
		}
	}
	if err != nil {
		return nil, err
	}
	out := []LogEntry{}
	err = v.followEntry(ctx, entryPath(name), func(c *object.Commit, p string, changed bool) error {
		if changed {
			e := logEntry(c)
			e.Path = p
			if line := groupSubject(c.Message, p); line != "" {
				e.Subject = line
			}
			out = append(out, e)
		}
		return nil
	})
	if len(out) == 0 && err == nil {
		return nil, fmt.Errorf("history %s: no commit has touched %s", name, entryPath(name))
	}
	return out, err
}

// followEntry visits the first-parent history of HEAD, newest first, with
// the path the entry had at each commit (p, the path it has at HEAD, or had
// when it was last seen) and whether that commit changed it. The path goes
// back through renames, and the walk ends at the commit that created it.
func (v *Vault) followEntry(ctx context.Context, p string, fn func(c *object.Commit, p string, changed bool) error) error {
	return v.walkCommits(ctx, func(c *object.Commit) error {
		if p == "" {
			return storer.ErrStop
		}
		cur, err := blobAt(c, p)
		if err != nil {
			return err
		}
		var parent *object.Commit
		if c.NumParents() > 0 {
			if parent, err = c.Parent(0); err != nil {
				return fmt.Errorf("read parent of %s: %w", c.Hash, err)
			}
		}
		var prev plumbing.Hash
		if parent != nil {
			if prev, err = blobAt(parent, p); err != nil {
				return err
			}
		}
		if err := fn(c, p, cur != prev); err != nil {
			return err
		}
		if cur != prev && prev.IsZero() && !cur.IsZero() && parent != nil {
			// Added here: if it came from a rename, keep following the old path.
			from, err := renamedFrom(ctx, parent, c, p)
			if err != nil {
				return err
			}
			p = from
		}
		return nil
	})
}

// walkCommits visits the first-parent history of HEAD, newest first.
func (v *Vault) walkCommits(ctx context.Context, fn func(*object.Commit) error) error {
	head, err := v.head()
	if err != nil {
		return err
	}
	if head.hash.IsZero() {
		return nil
	}
	c, err := object.GetCommit(v.repo.Storer, head.hash)
	for ; err == nil; c, err = c.Parent(0) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(c); errors.Is(err, storer.ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
		if c.NumParents() == 0 {
			return nil
		}
	}
	return fmt.Errorf("read history: %w", err)
}

// blobAt is the blob of path in commit c, zero if absent.
func blobAt(c *object.Commit, p string) (plumbing.Hash, error) {
	t, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read tree of %s: %w", c.Hash, err)
	}
	e, err := t.FindEntry(p)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read %s at %s: %w", p, c.Hash, err)
	}
	return e.Hash, nil
}

// renamedFrom is the path that p was renamed from between parent and c, or
// "" if p was new. git's rename detection (similar content) finds renames
// made with plain git; ctx0's own renames also leave the old name as an
// alias, which settles cases where the content changed a lot.
func renamedFrom(ctx context.Context, parent, c *object.Commit, p string) (string, error) {
	from, to, err := parentTrees(parent, c)
	if err != nil {
		return "", err
	}
	changes, err := object.DiffTreeWithOptions(ctx, from, to, &object.DiffTreeOptions{DetectRenames: true, RenameScore: 50})
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", c.Hash, err)
	}
	for _, ch := range changes {
		if ch.To.Name == p && ch.From.Name != "" && ch.From.Name != p {
			return ch.From.Name, nil
		}
	}
	// Fall back to the aliases: a ctx0 rename records the old name there.
	f, err := c.File(p)
	if err != nil {
		return "", nil
	}
	text, err := f.Contents()
	if err != nil {
		return "", nil
	}
	e, err := entry.Parse([]byte(text))
	if err != nil {
		return "", nil
	}
	for _, ch := range changes {
		if ch.To.Name != "" || ch.From.Name == "" {
			continue
		}
		if old, ok := nameOf(ch.From.Name); ok && ownsAlias(e, old) {
			return ch.From.Name, nil
		}
	}
	return "", nil
}

func parentTrees(parent, c *object.Commit) (*object.Tree, *object.Tree, error) {
	from, err := parent.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("read tree of %s: %w", parent.Hash, err)
	}
	to, err := c.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("read tree of %s: %w", c.Hash, err)
	}
	return from, to, nil
}

// GetAt reads an entry as it was at revision rev (a commit hash, branch, tag
// or expression such as HEAD~2). ref is first taken as a full name as it was
// at rev, so an old name given with an old revision reads that file; else it
// is resolved as of now (name, slug, title or alias) and followed back
// through the entry's renames to the path it had at rev.
func (v *Vault) GetAt(ctx context.Context, ref, rev string) (Doc, error) {
	c, err := v.commitAt(ctx, rev)
	if err != nil {
		return Doc{}, err
	}
	if norm, err := NormalizeName(ref); err == nil {
		if d, ok, err := docAt(c, norm, rev); ok || err != nil {
			return d, err
		}
	}
	name, err := v.Resolve(ctx, ref)
	if errors.Is(err, ErrNotFound) {
		// No entry answers to it now (renamed away, purged): a unique slug
		// among the entries of that revision.
		return slugAt(ctx, c, ref, rev)
	}
	if err != nil {
		return Doc{}, err
	}
	then := ""
	err = v.followEntry(ctx, entryPath(name), func(at *object.Commit, p string, _ bool) error {
		if at.Hash == c.Hash {
			then = p
			return storer.ErrStop
		}
		return nil
	})
	if err != nil {
		return Doc{}, err
	}
	if old, ok := nameOf(then); ok {
		name = old
	}
	// A revision off the first-parent line (a merged branch) is read by the
	// current name.
	d, ok, err := docAt(c, name, rev)
	if err == nil && !ok {
		err = fmt.Errorf("%w %q at %s", ErrNotFound, name, rev)
	}
	return d, err
}

// slugAt reads the entry of commit c whose slug is ref (its name without
// the folder), if exactly one has it.
func slugAt(ctx context.Context, c *object.Commit, ref, rev string) (Doc, error) {
	slug, err := NormalizeName(ref)
	if err != nil {
		return Doc{}, err
	}
	t, err := c.Tree()
	if err != nil {
		return Doc{}, fmt.Errorf("read tree of %s: %w", rev, err)
	}
	var names []string
	if err := walkFiles(ctx, t, func(p string, _ object.TreeEntry) {
		if n, ok := nameOf(p); ok && strings.EqualFold(Slug(n), slug) {
			names = append(names, n)
		}
	}); err != nil {
		return Doc{}, fmt.Errorf("read tree of %s: %w", rev, err)
	}
	switch len(names) {
	case 0:
		return Doc{}, fmt.Errorf("%w %q at %s", ErrNotFound, ref, rev)
	case 1:
		d, _, err := docAt(c, names[0], rev)
		return d, err
	}
	return Doc{}, &AmbiguousError{Ref: ref, Candidates: names}
}

// docAt reads entry name from commit c (rev names it in errors); ok is false
// when c has no such file.
func docAt(c *object.Commit, name, rev string) (Doc, bool, error) {
	f, err := c.File(entryPath(name))
	if errors.Is(err, object.ErrFileNotFound) {
		return Doc{}, false, nil
	}
	if err != nil {
		return Doc{}, false, fmt.Errorf("read %s at %s: %w", entryPath(name), rev, err)
	}
	text, err := f.Contents()
	if err != nil {
		return Doc{}, false, fmt.Errorf("read %s at %s: %w", entryPath(name), rev, err)
	}
	e, err := entry.Parse([]byte(text))
	if err != nil {
		return Doc{}, false, fmt.Errorf("read %s at %s: %w", entryPath(name), rev, err)
	}
	return Doc{Name: name, Entry: e}, true, nil
}
