package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/ctx0/ctx0/templates"
)

// machineLocal is what under .ctx0/ belongs to one machine: the index and
// SQLite's files beside it, the vault lock, and the state and tmp folders
// (the session store, journals, locks, logs, runs, the last sync). The
// .gitignore that ctx0 init writes lists the same; a file that lists them
// can be edited or replaced by a pull, so the rule lives here too.
var machineLocal = []struct {
	path   string
	prefix bool // path is a prefix of the names it covers (a folder: ends in /)
}{
	{".ctx0/index.db", false},
	{".ctx0/index.db-", true},
	{".ctx0/lock", false},
	{".ctx0/state/", true},
	{".ctx0/tmp/", true},
}

// IsMachineLocal tells whether rel, slash-separated and relative to the
// vault root, is machine-local state: it is never committed by ctx0, never
// taken from another clone's commits, and a tracked one is untracked (the
// file kept). Case is ignored, since on a case-insensitive file system
// .CTX0/State/x is the same file as .ctx0/state/x.
func IsMachineLocal(rel string) bool {
	low := strings.ToLower(rel)
	for _, m := range machineLocal {
		if low == m.path || (m.prefix && strings.HasPrefix(low, m.path)) || low+"/" == m.path {
			return true
		}
	}
	return false
}

// errNotTakeable is a path or file that ctx0 cannot take into the vault's
// tree from a commit or from the work tree.
var errNotTakeable = errors.New("not taken into the vault")

// checkTakeable tells whether ctx0 can hold the file rel, with git mode
// mode, in the vault's tree and work tree: not machine-local state, a path
// git's own checks accept (no .git component in any spelling a file system
// may fold to it, no control characters), and a plain file, not a
// submodule's commit (gitlink) or a symbolic link. The error says why.
func checkTakeable(rel string, mode filemode.FileMode) error {
	if err := gitPathError(rel); err != nil {
		return fmt.Errorf("%w: git refuses the path %q: %v", errNotTakeable, rel, err)
	}
	if IsMachineLocal(rel) {
		return fmt.Errorf("%w: %s is machine-local state, which is never shared through git", errNotTakeable, rel)
	}
	switch mode {
	case filemode.Submodule:
		return fmt.Errorf("%w: %s is another git repository (a submodule), which ctx0 keeps out of the vault", errNotTakeable, rel)
	case filemode.Symlink:
		return fmt.Errorf("%w: %s is a symbolic link, which ctx0 does not follow", errNotTakeable, rel)
	}
	return nil
}

// gitPathError applies the path rules of git's verify_path and of go-git's
// tree walker: a relative path of non-empty components, none of them ".",
// ".." or .git as any file system may spell it (".GIT", ".git.", "git~1",
// ".git::$INDEX_ALLOCATION"), with no control characters or backslashes. A
// tree that breaks them cannot be walked, staged or checked out.
func gitPathError(rel string) error {
	if rel == "" {
		return errors.New("empty path")
	}
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return fmt.Errorf("character %q", c)
		}
	}
	for _, comp := range strings.Split(rel, "/") {
		switch {
		case comp == "":
			return errors.New("empty path component")
		case comp == "." || comp == "..":
			return fmt.Errorf("%q path component", comp)
		case isDotGit(comp):
			return errors.New(".git path component")
		}
	}
	return nil
}

// isDotGit tells whether a path component names a .git folder on some file
// system: case folded, with the characters HFS+ ignores removed, and the
// dots, spaces and stream suffix NTFS ignores trimmed.
func isDotGit(comp string) bool {
	s := strings.ToLower(comp)
	// Zero-width characters HFS+ drops when it compares names.
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, s)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, ". ")
	return s == ".git" || s == "git~1"
}

// machineLocalProbes are paths of each kind of machine-local state, to ask
// the vault's ignore rules about.
var machineLocalProbes = []string{".ctx0/index.db", ".ctx0/index.db-wal", ".ctx0/lock", ".ctx0/state/ingest.db", ".ctx0/tmp/x"}

// unignoredLocal lists the machine-local paths git does not ignore here (a
// .gitignore edited, or replaced by a pull): ctx0 never commits them, but
// git status shows them and a person's git add -A would commit them.
func (v *Vault) unignoredLocal() ([]string, error) {
	ignore, err := v.ignoreMatcher()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range machineLocalProbes {
		if !ignore.Match(strings.Split(p, "/"), false) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ignoreLocalLocked adds to .gitignore the lines of ctx0 init's that it
// lacks, when git does not ignore machine-local state, and commits it.
// It returns what it did, "" for nothing.
func (v *Vault) ignoreLocalLocked(ctx context.Context) (string, error) {
	missing, err := v.unignoredLocal()
	if err != nil || len(missing) == 0 {
		return "", err
	}
	var lines []byte
	for _, f := range templates.Vault() {
		if f.Path == ".gitignore" {
			lines = f.Data
		}
	}
	old, err := os.ReadFile(filepath.Join(v.root, ".gitignore"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read .gitignore: %w", err)
	}
	merged, changed := appendMissingLines(old, lines)
	if !changed {
		return "", nil
	}
	if _, err := v.applyLocked(ctx, "doctor: .gitignore ignores machine-local state again", []change{{path: ".gitignore", data: merged}}); err != nil {
		return "", err
	}
	return "added ctx0's machine-local lines to .gitignore", nil
}
