package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// conflictsDir holds one file per true merge conflict kept aside. They are
// committed, so every clone sees them until someone resolves them, and
// concurrent merges never edit the same file.
const conflictsDir = ".ctx0/conflicts"

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

// Conflicts lists the conflicts waiting to be resolved, oldest first.
func (v *Vault) Conflicts(ctx context.Context) ([]ConflictRecord, error) {
	dir := filepath.Join(v.root, filepath.FromSlash(conflictsDir))
	files, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return []ConflictRecord{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list conflicts: %w", err)
	}
	out := []ConflictRecord{}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			return nil, fmt.Errorf("read conflict %s: %w", f.Name(), err)
		}
		var r ConflictRecord
		if err := yaml.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("read conflict %s/%s: %w", conflictsDir, f.Name(), err)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].When.Before(out[j].When) })
	return out, ctx.Err()
}

// ResolveConflicts marks conflicts resolved: the one whose id is ref, or
// every one in the entry ref names. It returns how many it resolved.
func (v *Vault) ResolveConflicts(ctx context.Context, ref string) (int, Commit, error) {
	var n int
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
		for _, r := range all {
			if r.ID == ref || r.Entry == name {
				changes = append(changes, change{path: conflictsDir + "/" + r.ID + ".yaml"})
			}
		}
		if len(changes) == 0 {
			return "", nil, fmt.Errorf("no open conflict matches %q (see ctx0 conflicts)", ref)
		}
		n = len(changes)
		return fmt.Sprintf("resolve %d conflict(s) in %s", n, name), changes, nil
	})
	return n, c, err
}

// RecordConflicts writes conflict records into the work tree without
// committing them, for a merge that git itself is making (the merge
// driver); the next ctx0 sync commits them with the other external edits.
func (v *Vault) RecordConflicts(cs []PathConflict, ours, theirs string) error {
	files, err := conflictFiles(cs, ours, theirs, v.now())
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(v.root, filepath.FromSlash(f.path)), f.data); err != nil {
			return fmt.Errorf("record conflict: %w", err)
		}
	}
	return nil
}
