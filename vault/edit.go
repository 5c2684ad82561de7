package vault

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ctx0/ctx0/vault/entry"
)

// EditBody changes an entry's body with fn, which is given the body as it is
// on disk and returns the new one, all under the vault lock: two writers that
// edit the same entry at once each see the other's change, and neither is
// lost. The frontmatter is kept and updated is bumped; a body fn leaves as it
// was makes no commit. verb starts the commit message ("<verb> <name>").
// An error from fn is returned as it is, and nothing is written.
func (v *Vault) EditBody(ctx context.Context, ref, verb string, fn func(body string) (string, error)) (string, Commit, error) {
	return v.edit(ctx, ref, verb, func(_ string, e *entry.Entry) error {
		body, err := fn(e.Body())
		if err != nil {
			return err
		}
		if err := checkText(verb+" "+ref, "the new body", body); err != nil {
			return err
		}
		e.SetBody(withNewline(body))
		return nil
	})
}

// Create adds an entry file under exactly name, byte for byte, in one
// commit: for a caller that builds the file itself and must not have it
// moved to its type's folder as Add does. name must be normalized and
// unused (ErrExists), and data must parse as an entry.
func (v *Vault) Create(ctx context.Context, name string, data []byte) (Commit, error) {
	n, err := NormalizeName(name)
	if err != nil {
		return Commit{}, err
	}
	if n != name {
		return Commit{}, fmt.Errorf("create: entry name %q is not normalized (it would be %q)", name, n)
	}
	if _, err := entry.Parse(data); err != nil {
		return Commit{}, fmt.Errorf("create %s: %w", name, err)
	}
	return v.update(ctx, func() (string, []change, error) {
		if _, err := os.Lstat(v.path(name)); !errors.Is(err, os.ErrNotExist) {
			if err == nil {
				err = ErrExists
			}
			return "", nil, fmt.Errorf("create %s: %w", name, err)
		}
		return "add " + name, []change{{path: entryPath(name), data: data, based: true}}, nil
	})
}
