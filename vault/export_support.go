package vault

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// What export needs of the vault beyond Get and History: it visits every
// entry by the exact name Walk reports, asks about history for the whole
// vault at once (one History call per entry would walk the commits once per
// entry), and resolves markdown links by the vault's rule.

// Read reads the entry whose name is exactly name, as Walk reports it,
// without resolving it: a file added by hand under a name that is not
// normalized is read as it is.
func (v *Vault) Read(ctx context.Context, name string) (Doc, error) {
	if err := ctx.Err(); err != nil {
		return Doc{}, err
	}
	e, err := v.read(name)
	if err != nil {
		return Doc{}, err
	}
	return Doc{Name: name, Entry: e}, nil
}

// ChangedSince returns the names of the entries that changed at or after t:
// those whose file a commit on the current branch (first parent, committed
// at or after t) added or modified, and those edited in the work tree and
// not committed yet. Like git log --since, it stops at the first commit older
// than t.
func (v *Vault) ChangedSince(ctx context.Context, t time.Time) (map[string]bool, error) {
	out := map[string]bool{}
	err := v.walkCommits(ctx, func(c *object.Commit) error {
		if c.Committer.When.Before(t) {
			return storer.ErrStop
		}
		return v.commitChanges(ctx, c, func(ch *object.Change) error {
			if n, ok := nameOf(ch.To.Name); ok {
				out[n] = true
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("changes since %s: %w", t.Format(time.RFC3339), err)
	}
	edits, _, err := v.externalChanges(ctx)
	if err != nil {
		return nil, fmt.Errorf("changes since %s: %w", t.Format(time.RFC3339), err)
	}
	for _, ch := range edits {
		if n, ok := nameOf(ch.path); ok && ch.data != nil {
			out[n] = true
		}
	}
	return out, nil
}

// Version is an entry's file as one commit left it.
type Version struct {
	LogEntry        // the commit; Path is the entry's file in it
	Data     []byte // the file's content
}

// Versions returns the committed versions of the entries names, newest
// first, following each back through renames as History does. It walks the
// history once for all of them.
func (v *Vault) Versions(ctx context.Context, names []string) (map[string][]Version, error) {
	out := make(map[string][]Version, len(names))
	track := make(map[string]string, len(names)) // a path in the commit being visited → the entry it became
	for _, n := range names {
		track[entryPath(n)] = n
	}
	err := v.walkCommits(ctx, func(c *object.Commit) error {
		if len(track) == 0 {
			return storer.ErrStop
		}
		var added []string
		err := v.commitChanges(ctx, c, func(ch *object.Change) error {
			p := ch.To.Name
			n, ok := track[p]
			if !ok {
				return nil
			}
			data, err := v.blob(ch.To.TreeEntry.Hash)
			if err != nil {
				return err
			}
			e := logEntry(c)
			e.Path = p
			out[n] = append(out[n], Version{LogEntry: e, Data: data})
			if ch.From.Name == "" {
				added = append(added, p)
			}
			return nil
		})
		if err != nil {
			return err
		}
		// An entry added here may have been renamed from an older path;
		// its history continues there.
		for _, p := range added {
			n := track[p]
			delete(track, p)
			if c.NumParents() == 0 {
				continue
			}
			parent, err := c.Parent(0)
			if err != nil {
				return fmt.Errorf("read parent of %s: %w", c.Hash, err)
			}
			from, err := renamedFrom(ctx, parent, c, p)
			if err != nil {
				return err
			}
			if from != "" {
				track[from] = n
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("versions: %w", err)
	}
	return out, nil
}

// commitChanges calls fn for each file that commit c changed against its
// first parent (every file, for a root commit). Renames are not detected:
// a renamed file is a deletion and an addition.
func (v *Vault) commitChanges(ctx context.Context, c *object.Commit, fn func(*object.Change) error) error {
	to, err := c.Tree()
	if err != nil {
		return fmt.Errorf("read tree of %s: %w", c.Hash, err)
	}
	var from *object.Tree
	if c.NumParents() > 0 {
		parent, err := c.Parent(0)
		if err != nil {
			return fmt.Errorf("read parent of %s: %w", c.Hash, err)
		}
		if from, err = parent.Tree(); err != nil {
			return fmt.Errorf("read tree of %s: %w", parent.Hash, err)
		}
	}
	changes, err := object.DiffTreeWithOptions(ctx, from, to, nil)
	if err != nil {
		return fmt.Errorf("diff %s: %w", c.Hash, err)
	}
	for _, ch := range changes {
		if ch.To.Name == "" || ch.To.TreeEntry.Hash == plumbing.ZeroHash {
			continue // a deletion
		}
		if err := fn(ch); err != nil {
			return err
		}
	}
	return nil
}

// MarkdownTarget is the name of the entry that a markdown link's target, as
// written in the entry from, leads to: a path relative to from's folder,
// with markdown's backslash escapes and percent-encoding undone. ok is false
// for a path that leaves the vault or is not an entry file.
func MarkdownTarget(from, target string) (name string, ok bool) {
	p := path.Join(Folder(from), unescapeDestination(target))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return nameOf(p)
}

// unescapeDestination undoes what markdown allows in a link destination:
// backslash escapes of punctuation, and percent-encoding.
func unescapeDestination(s string) string {
	if strings.Contains(s, `\`) {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0 {
				i++
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}
