package vault

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault/entry"
)

// Rename moves an entry to a new name. A new name without a folder keeps the
// old folder. The old name becomes an alias, and every [[wikilink]],
// markdown link and links: item that pointed at the old name is rewritten,
// all in one commit.
func (v *Vault) Rename(ctx context.Context, ref, to string) (string, Commit, error) {
	old, err := v.Resolve(ctx, ref)
	if err != nil {
		return "", Commit{}, err
	}
	name, err := NormalizeName(to)
	if err != nil {
		return "", Commit{}, err
	}
	if !strings.Contains(name, "/") && Folder(old) != "" {
		name = Folder(old) + "/" + name
	}
	if name == old {
		return old, Commit{}, nil
	}
	c, err := v.update(ctx, func() (string, []change, error) {
		if _, err := v.read(name); err == nil {
			return "", nil, fmt.Errorf("rename %s to %s: %w", old, name, ErrExists)
		}
		e, err := v.read(old)
		if err != nil {
			return "", nil, err
		}
		if _, err := keepOldName(e, old); err != nil {
			return "", nil, err
		}
		if err := v.touch(e); err != nil {
			return "", nil, err
		}
		changes := []change{{path: entryPath(old)}, {path: entryPath(name), data: e.Bytes()}}
		relinked, err := v.relink(ctx, old, name)
		if err != nil {
			return "", nil, err
		}
		changes = append(changes, relinked...)
		msg := fmt.Sprintf("rename %s to %s", old, name)
		if len(relinked) > 0 {
			msg += "\n\nLinks rewritten in:"
			for _, c := range relinked {
				msg += "\n  " + strings.TrimSuffix(c.path, ".md")
			}
		}
		return msg, changes, nil
	})
	return name, c, err
}

// keepOldName adds old, a name the entry e leaves, to its aliases (unless
// it already answers to it), so links and people using it still find it.
// It reports whether e changed.
func keepOldName(e *entry.Entry, old string) (bool, error) {
	if ownsAlias(e, old) {
		return false, nil
	}
	return true, e.Set(entry.FieldAliases, append(e.Aliases(), old))
}

// relink rewrites the links to old in every other entry so they point at
// name. Links by title or alias still resolve and are left alone.
func (v *Vault) relink(ctx context.Context, old, name string) ([]change, error) {
	names, err := v.linking(ctx, old)
	if err != nil {
		return nil, err
	}
	var out []change
	for _, n := range names {
		if n == old {
			continue
		}
		e, err := v.read(n)
		if err != nil {
			continue // an unparseable file is doctor's to report, not ours to rewrite
		}
		changed, err := RelinkEntry(e, n, old, name)
		if err != nil {
			return nil, err
		}
		if !changed {
			continue
		}
		out = append(out, change{path: entryPath(n), data: e.Bytes()})
	}
	return out, nil
}

// RelinkEntry rewrites the links of e, the entry named from, that lead to
// old so that they lead to name: wikilinks by name or slug, markdown
// links, and the links field (where a link to itself or a repeat is
// dropped). Links by title or alias still resolve and are left alone. It
// reports whether e changed.
func RelinkEntry(e *entry.Entry, from, old, name string) (bool, error) {
	changed := false
	body := entry.RewriteLinks([]byte(e.Body()), func(l entry.Link) (string, bool) {
		switch l.Kind {
		case entry.Wiki:
			if t, err := NormalizeName(l.Target); err == nil && (t == old || t == Slug(old)) {
				changed = true
				return name, true
			}
		case entry.Markdown:
			if target, ok := MarkdownTarget(from, l.Target); ok && target == old {
				changed = true
				return relPath(Folder(from), entryPath(name)), true
			}
		}
		return "", false
	})
	if changed {
		e.SetBody(string(body))
	}
	var links []string
	linksChanged := false
	for _, l := range e.LinkNames() {
		if t, err := NormalizeName(l); err == nil && t == old {
			l, linksChanged = name, true
		}
		if l == from || slices.Contains(links, l) {
			linksChanged = true
			continue
		}
		links = append(links, l)
	}
	if linksChanged {
		if err := e.Set(entry.FieldLinks, links); err != nil {
			return false, fmt.Errorf("relink %s: %w", from, err)
		}
	}
	return changed || linksChanged, nil
}

// linking returns, by name, the entries that may link to old by its name
// or slug: those the catalog names if it is a LinkFinder, else every entry.
func (v *Vault) linking(ctx context.Context, old string) ([]string, error) {
	if lf, ok := v.catalog.(LinkFinder); ok {
		names, err := lf.LinkingTo(ctx, []string{old, Slug(old)})
		if err != nil {
			return nil, fmt.Errorf("find links to %s: %w", old, err)
		}
		slices.Sort(names)
		return names, nil
	}
	var names []string
	err := v.Walk(ctx, func(n string, _ fs.FileInfo) error {
		names = append(names, n)
		return nil
	})
	slices.Sort(names)
	return names, err
}

// relPath is the relative path from folder dir to file target, both
// relative to the vault root.
func relPath(dir, target string) string {
	if dir == "" {
		return target
	}
	up := strings.Repeat("../", strings.Count(dir, "/")+1)
	return up + target
}

// Remove archives an entry: it moves to archive/<name>, gets archived: now,
// and keeps its old name as an alias so links to it still resolve. With
// purge it is deleted instead; git keeps its history either way.
func (v *Vault) Remove(ctx context.Context, ref string, purge bool) (string, Commit, error) {
	old, err := v.Resolve(ctx, ref)
	if err != nil {
		return "", Commit{}, err
	}
	if purge {
		c, err := v.update(ctx, func() (string, []change, error) {
			return "purge " + old, []change{{path: entryPath(old)}}, nil
		})
		return "", c, err
	}
	if strings.HasPrefix(old, "archive/") {
		return "", Commit{}, fmt.Errorf("rm %s: already archived; use --purge to delete it", old)
	}
	var name string
	c, err := v.update(ctx, func() (string, []change, error) {
		e, err := v.read(old)
		if err != nil {
			return "", nil, err
		}
		if name, err = v.freeName("archive/" + old); err != nil {
			return "", nil, err
		}
		if err := e.Set(entry.FieldArchived, v.now().UTC().Truncate(time.Second)); err != nil {
			return "", nil, err
		}
		if _, err := keepOldName(e, old); err != nil {
			return "", nil, err
		}
		if err := v.touch(e); err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("archive %s to %s", old, name), []change{{path: entryPath(old)}, {path: entryPath(name), data: e.Bytes()}}, nil
	})
	return name, c, err
}

// Supersede records text as a new entry that replaces ref: the new entry
// takes the old one's type, tags, project and pin, and the old one gets
// superseded_by, so history stays and searches prefer the new version.
func (v *Vault) Supersede(ctx context.Context, ref, text, source string) (string, Commit, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", Commit{}, fmt.Errorf("supersede %s: the new text is empty", ref)
	}
	if source == "" {
		source = "user"
	}
	old, err := v.Resolve(ctx, ref)
	if err != nil {
		return "", Commit{}, err
	}
	// Redacted before the name and the title are made of it.
	text, counts := Redact(text)
	var name string
	c, err := v.update(ctx, func() (string, []change, error) {
		oe, err := v.read(old)
		if err != nil {
			return "", nil, err
		}
		if s := oe.SupersededBy(); s != "" {
			return "", nil, fmt.Errorf("supersede %s: already superseded by %s; supersede that one", old, s)
		}
		meta := Meta{Title: titleFromText(text), Type: oe.Type(), Tags: oe.Tags(), Project: oe.Project(), Pinned: oe.Pinned(), Source: source, Links: []string{old}}
		if _, ok := v.Config().Type(meta.Type); !ok {
			meta.Type = "note"
		}
		if name, err = v.freeName(path.Join(Folder(old), cmp.Or(SlugFromTitle(meta.Title), "memory"))); err != nil {
			return "", nil, err
		}
		ne, err := v.newEntryChange(name, meta, text+"\n", counts)
		if err != nil {
			return "", nil, err
		}
		ne.based = false // a file made there meanwhile fails the write
		if err := oe.Set(entry.FieldSupersededBy, name); err != nil {
			return "", nil, err
		}
		if err := v.touch(oe); err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("supersede %s with %s", old, name),
			[]change{ne, {path: entryPath(old), data: oe.Bytes()}}, nil
	})
	return name, c, err
}
