package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/atomicfile"
)

// setAsideDir holds a record of each change a merge could not take (a
// submodule, a symbolic link, a path git refuses, machine-local state, a
// file where this clone has a folder): machine-local, beside the pending
// conflicts, since it is this clone's merge that left the change out. The
// change itself stays in the history, in the merged commit.
const setAsideDir = ".ctx0/state/set-aside"

// SetAside is a change a merge did not take, and why. Everything else in
// the merge was taken; the merged commit still holds it, so `git show
// Commit:Path` shows it.
type SetAside struct {
	ID     string    `json:"id"`
	Path   string    `json:"path"`
	Reason string    `json:"reason"`
	From   string    `json:"from"`   // what was merged, e.g. origin/main
	Commit string    `json:"commit"` // the commit that holds the change
	When   time.Time `json:"when"`
}

// Show is the git command that shows the change set aside.
func (s SetAside) Show() string {
	short := s.Commit
	if len(short) > 10 {
		short = short[:10]
	}
	arg := short + ":" + s.Path
	if strings.ContainsAny(arg, " \t'\"$`\\!*?[]{}()<>|&;#~") {
		arg = "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
	}
	return "git show " + arg
}

// newSetAside makes the record of path from commit, not taken for err.
func newSetAside(p string, err error, from, commit string, when time.Time) SetAside {
	reason := strings.TrimPrefix(err.Error(), errNotTakeable.Error()+": ")
	sum := sha256.Sum256([]byte(p + "\x00" + commit + "\x00" + reason))
	return SetAside{ID: hex.EncodeToString(sum[:])[:12], Path: p, Reason: reason, From: from, Commit: commit, When: when.UTC()}
}

// recordSetAside keeps the records of changes a merge set aside.
func (v *Vault) recordSetAside(rs []SetAside) error {
	dir := filepath.Join(v.root, filepath.FromSlash(setAsideDir))
	for _, r := range rs {
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return fmt.Errorf("record the change set aside at %s: %w", r.Path, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("record the change set aside at %s: %w", r.Path, err)
		}
		if err := writeFileAtomic(filepath.Join(dir, r.ID+".json"), data); err != nil {
			return fmt.Errorf("record the change set aside at %s: %w", r.Path, err)
		}
	}
	return nil
}

// SetAsides lists the changes merges set aside on this clone, oldest
// first. A record that cannot be read is returned as bad, by file, and
// does not hide the others.
func (v *Vault) SetAsides(ctx context.Context) (out []SetAside, bad []string, err error) {
	out = []SetAside{}
	dir := filepath.Join(v.root, filepath.FromSlash(setAsideDir))
	files, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list changes set aside in %s: %w", setAsideDir, err)
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !strings.HasSuffix(f.Name(), ".json") || atomicfile.IsTemp(f.Name()) {
			continue
		}
		rel := setAsideDir + "/" + f.Name()
		data, err := os.ReadFile(filepath.Join(dir, f.Name()))
		var r SetAside
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		if err != nil || r.ID+".json" != f.Name() {
			bad = append(bad, rel)
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].When.Before(out[j].When) })
	return out, bad, nil
}

// DismissSetAside forgets the record of the change set aside with id, once
// a person has seen it (and taken what they wanted of it by hand). It
// tells whether there was one.
func (v *Vault) DismissSetAside(id string) (bool, error) {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return false, nil
	}
	p := filepath.Join(v.root, filepath.FromSlash(setAsideDir), id+".json")
	err := os.Remove(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("dismiss the change set aside %s: %w", id, err)
	}
	return true, nil
}
