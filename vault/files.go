package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/vault/entry"
)

// FileEdit is one file a write puts in the vault or takes out of it, under
// exactly its path.
type FileEdit struct {
	Path string // slash-separated, relative to the vault root, as given
	Data []byte // nil removes the file
}

// ErrHidden is a path in a hidden folder (.git, .ctx0) or a hidden file at
// the vault's root (.gitattributes): the vault's machinery, never written
// by path.
var ErrHidden = errors.New("is hidden (a part starts with '.')")

// EditFiles is the write path for a caller that addresses files by their
// exact path rather than by entry name, such as the MCP memory tool: under
// the vault lock, fn reads what it needs (ReadFile) and returns the commit
// message and the files to put or take out, which are committed as one
// commit. Paths are not normalized, so two paths are never one file. Each
// passes CheckFilePath. A .md file must read as an
// entry; any other file is plain text, checked and redacted as text. If a
// file changes between fn's read and the write, fn runs again on what is
// there now. An error from fn is returned as it is, and nothing is written.
func (v *Vault) EditFiles(ctx context.Context, fn func() (msg string, edits []FileEdit, err error)) (Commit, error) {
	return v.update(ctx, func() (string, []change, error) {
		msg, edits, err := fn()
		if err != nil {
			return "", nil, err
		}
		changes := make([]change, 0, len(edits))
		for _, e := range edits {
			if err := CheckFilePath(v.root, e.Path); err != nil {
				return "", nil, err
			}
			md := strings.HasSuffix(e.Path, ".md")
			if md && e.Data != nil {
				if _, err := entry.Parse(e.Data); err != nil {
					return "", nil, fmt.Errorf("write %s: %w", e.Path, err)
				}
			}
			changes = append(changes, change{path: e.Path, data: e.Data, plain: !md})
		}
		return msg, changes, nil
	})
}

// CheckFilePath is CheckPath for a file addressed by its exact path: rel
// must name a file below the vault root, already clean (no "." or ".."
// parts, no empty ones), in no hidden folder (.git, .ctx0), and not be a
// hidden file at the root (.gitattributes). A hidden file in a folder, such
// as its .gitkeep, moves and goes with the folder.
func CheckFilePath(root, rel string) error {
	if rel == "" {
		return fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return fmt.Errorf("%s: %w", rel, ErrOutside)
		case strings.HasPrefix(seg, ".") && (i < len(segs)-1 || len(segs) == 1):
			return fmt.Errorf("%s %w", rel, ErrHidden)
		}
	}
	return CheckPath(root, rel)
}

// MaxSegment is the longest part of a path ctx0 writes, in bytes.
const MaxSegment = maxSegment

// ReservedOnWindows tells whether a file or folder name is one of the
// device names Windows reserves in every folder (con, nul, aux.txt, com1),
// in any case: a vault holding one cannot be checked out there.
func ReservedOnWindows(seg string) bool { return reservedOnWindows(strings.ToLower(seg)) }
