package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/vault/merge"
)

// conflictsDir holds one file per true merge conflict kept aside. They are
// committed, so every clone sees them until someone resolves them, and
// concurrent merges never edit the same file.
const conflictsDir = ".ctx0/conflicts"

// pendingConflictsDir holds the records of conflicts kept aside by a merge
// that git made (a plain git pull or git merge, through the merge driver).
// git commits that merge itself, so its records cannot be in it; until ctx0
// next commits the edits other tools made (sync, an agent run), which moves
// them into conflictsDir, they are local state, ignored with the rest of
// .ctx0/state/, so git status stays clean after the pull.
const pendingConflictsDir = ".ctx0/state/conflicts"

// ConflictRecord is a true conflict a merge kept aside: the version that
// stayed in the entry and the one that did not, with where each came from.
type ConflictRecord struct {
	ID           string    `yaml:"id" json:"id"`
	Entry        string    `yaml:"entry" json:"entry"`
	Path         string    `yaml:"path" json:"path"`
	Field        string    `yaml:"field,omitempty" json:"field,omitempty"`
	Hunk         string    `yaml:"hunk,omitempty" json:"hunk,omitempty"`
	Base         string    `yaml:"base" json:"base"`
	Ours         string    `yaml:"ours" json:"ours"`
	Theirs       string    `yaml:"theirs" json:"theirs"`
	Kept         string    `yaml:"kept" json:"kept"`
	OursCommit   string    `yaml:"ours_commit" json:"ours_commit"`
	TheirsCommit string    `yaml:"theirs_commit" json:"theirs_commit"`
	When         time.Time `yaml:"when" json:"when"`
}

// conflictFiles renders the records of a merge as files to commit with it.
func conflictFiles(cs []PathConflict, ours, theirs string, when time.Time) ([]change, error) {
	var out []change
	for _, c := range cs {
		r := ConflictRecord{
			Path: c.Path, Field: c.Field, Hunk: c.Hunk, Base: c.Base, Ours: c.Ours, Theirs: c.Theirs,
			Kept: string(c.Kept), OursCommit: ours, TheirsCommit: theirs, When: when.UTC(),
		}
		r.Entry, _ = nameOf(c.Path)
		sum := sha256.Sum256([]byte(strings.Join([]string{r.Path, r.Field, r.Hunk, r.Ours, r.Theirs, ours, theirs}, "\x00")))
		r.ID = hex.EncodeToString(sum[:])[:12]
		data, err := yaml.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("record conflict in %s: %w", c.Path, err)
		}
		out = append(out, change{path: conflictsDir + "/" + r.ID + ".yaml", data: data})
	}
	return out, nil
}

// Conflicts lists the conflicts waiting to be resolved, oldest first: those
// committed and those a git merge recorded since the last sync.
func (v *Vault) Conflicts(ctx context.Context) ([]ConflictRecord, error) {
	out := []ConflictRecord{}
	seen := map[string]bool{}
	for _, dir := range []string{conflictsDir, pendingConflictsDir} {
		files, err := readConflictFiles(v.root, dir)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			var r ConflictRecord
			if err := yaml.Unmarshal(f.data, &r); err != nil {
				return nil, fmt.Errorf("read conflict %s: %w", f.path, err)
			}
			if !seen[r.ID] {
				seen[r.ID] = true
				out = append(out, r)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].When.Before(out[j].When) })
	return out, ctx.Err()
}

// readConflictFiles reads the records in dir (slash-separated, relative to
// root), in name order; none when dir does not exist.
func readConflictFiles(root, dir string) ([]change, error) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list conflicts in %s: %w", dir, err)
	}
	var out []change
	for _, f := range entries {
		if !strings.HasSuffix(f.Name(), ".yaml") || atomicfile.IsTemp(f.Name()) {
			continue
		}
		rel := dir + "/" + f.Name()
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("read conflict %s: %w", rel, err)
		}
		out = append(out, change{path: rel, data: data})
	}
	return out, nil
}

// pendingConflicts are the changes that commit the records a git merge left
// in pendingConflictsDir, and the pending files to remove once they are
// committed. A record already committed is not committed again.
func (v *Vault) pendingConflicts() (changes []change, done []string, err error) {
	files, err := readConflictFiles(v.root, pendingConflictsDir)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		done = append(done, f.path)
		to := conflictsDir + "/" + path.Base(f.path)
		if _, err := os.Stat(filepath.Join(v.root, filepath.FromSlash(to))); err == nil {
			continue
		}
		changes = append(changes, change{path: to, data: f.data})
	}
	return changes, done, nil
}

// removePending deletes pending conflict records, once committed or
// resolved.
func (v *Vault) removePending(paths []string) error {
	for _, p := range paths {
		if err := os.Remove(filepath.Join(v.root, filepath.FromSlash(p))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove conflict record %s: %w", p, err)
		}
	}
	return nil
}

// ResolveConflicts marks conflicts resolved: the one whose id is ref, or
// every one in the entry ref names. It returns how many it resolved. A
// conflict in the body is resolved by editing the entry and deleting its
// block, so while the entry still holds a conflict block (any, when ref
// names the entry; the conflict's own, when ref is its id) it refuses,
// saying which, unless force.
func (v *Vault) ResolveConflicts(ctx context.Context, ref string, force bool) (int, Commit, error) {
	var n int
	var pending []string
	c, err := v.update(ctx, func() (string, []change, error) {
		all, err := v.Conflicts(ctx)
		if err != nil {
			return "", nil, err
		}
		name := ref
		if r, err := v.Resolve(ctx, ref); err == nil {
			name = r
		}
		var changes []change
		var matched []ConflictRecord
		for _, r := range all {
			if r.ID != ref && r.Entry != name {
				continue
			}
			matched = append(matched, r)
			file := r.ID + ".yaml"
			pending = append(pending, pendingConflictsDir+"/"+file)
			if _, err := os.Stat(filepath.Join(v.root, filepath.FromSlash(conflictsDir), file)); err == nil {
				changes = append(changes, change{path: conflictsDir + "/" + file})
			}
		}
		if len(matched) == 0 {
			return "", nil, fmt.Errorf("no open conflict matches %q (see ctx0 conflicts)", ref)
		}
		if !force {
			if err := v.blocksLeft(matched, name); err != nil {
				return "", nil, err
			}
		}
		n = len(matched)
		return fmt.Sprintf("resolve %d conflict(s) in %s", n, name), changes, nil
	})
	if err != nil {
		return 0, c, err
	}
	return n, c, v.removePending(pending)
}

// blocksLeft says which conflict blocks are still in the entries of rs:
// every block of the entry name, and of the others the block quoting the
// version each conflict kept aside.
func (v *Vault) blocksLeft(rs []ConflictRecord, name string) error {
	for _, r := range rs {
		if r.Field != "" {
			continue // a field's conflict leaves nothing in the entry to find
		}
		e, err := v.read(r.Entry)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var left []merge.Block
		for _, b := range merge.Blocks(e.Body()) {
			if r.Entry == name || strings.TrimSpace(b.Text) == strings.TrimSpace(r.aside()) {
				left = append(left, b)
			}
		}
		if len(left) == 0 {
			continue
		}
		more := ""
		if len(left) > 1 {
			more = fmt.Sprintf(" and %d more", len(left)-1)
		}
		return fmt.Errorf("%s still holds a conflict block (%q%s): keep the text you want, delete the block, then resolve; or resolve --force", entryPath(r.Entry), left[0].Title, more)
	}
	return nil
}

// aside is the version the merge did not keep in place.
func (r ConflictRecord) aside() string {
	_, aside := r.Sides()
	return aside.Text
}

// ConflictSide is one version of a conflict: its text and the commit it
// came from.
type ConflictSide struct {
	Text   string `json:"text"`
	Commit string `json:"commit"`
}

// Sides are the version the merge kept in place and the one it set aside,
// each with its commit. Said so, a record reads the same on every clone:
// "ours" is the side of whichever machine merged, which on the other
// machine is the other's text.
func (r ConflictRecord) Sides() (kept, aside ConflictSide) {
	ours, theirs := ConflictSide{r.Ours, r.OursCommit}, ConflictSide{r.Theirs, r.TheirsCommit}
	if r.Kept == string(merge.Theirs) {
		return theirs, ours
	}
	return ours, theirs
}

// RecordConflicts writes conflict records for a merge that git itself is
// making (the merge driver) into pendingConflictsDir, uncommitted; the next
// commit of external edits commits them.
func (v *Vault) RecordConflicts(cs []PathConflict, ours, theirs string) error {
	files, err := conflictFiles(cs, ours, theirs, v.now())
	if err != nil {
		return err
	}
	dir := filepath.Join(v.root, filepath.FromSlash(pendingConflictsDir))
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(dir, path.Base(f.path)), f.data); err != nil {
			return fmt.Errorf("record conflict: %w", err)
		}
	}
	return nil
}
