package vault

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
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
