package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ctx0/ctx0/vault/entry"
)

// ImportFile is one entry file to bring into the vault.
type ImportFile struct {
	Name string
	Data []byte
}

// Imported says what Import did.
type Imported struct {
	Added     int    `json:"added"`
	Merged    int    `json:"merged"`
	Unchanged int    `json:"unchanged"`
	Conflicts int    `json:"conflicts"`
	Commit    Commit `json:"commit,omitzero"`
}

// Import writes files into the vault as entries, in one commit. A new name
// is added as is, byte for byte; an entry that exists merges with the
// incoming version field by field (as if both had added it), and true
// conflicts are kept aside for ctx0 conflicts. Every file is checked first:
// one bad name or unparseable file and nothing is written.
func (v *Vault) Import(ctx context.Context, files []ImportFile, label string) (Imported, error) {
	seen := map[string]bool{}
	// Redacted before the comparison with what the vault holds, so that a
	// backup imported again finds its entries unchanged.
	files = slices.Clone(files)
	redacted := map[string]int{}
	for i, f := range files {
		n, err := NormalizeName(f.Name)
		if err != nil {
			return Imported{}, fmt.Errorf("import: %w", err)
		}
		if n != f.Name {
			return Imported{}, fmt.Errorf("import: entry name %q is not normalized (it would be %q)", f.Name, n)
		}
		if seen[n] {
			return Imported{}, fmt.Errorf("import: entry %s appears twice", n)
		}
		seen[n] = true
		if _, err := entry.Parse(f.Data); err != nil {
			return Imported{}, fmt.Errorf("import: entry %s: %w", n, err)
		}
		files[i].Data = redactFile(entryPath(n), f.Data, redacted)
	}
	var res Imported
	c, err := v.update(ctx, func() (string, []change, error) {
		var changes []change
		var conflicts []PathConflict
		var first *object.Commit // the init commit, read when first needed
		for _, f := range files {
			p := entryPath(f.Name)
			old, err := ReadFile(v.root, p)
			switch {
			case errors.Is(err, os.ErrNotExist):
				res.Added++
				changes = append(changes, change{path: p, data: f.Data})
				continue
			case err != nil:
				return "", nil, fmt.Errorf("import: read %s: %w", p, err)
			case string(old) == string(f.Data):
				res.Unchanged++
				continue
			}
			// The version init wrote is the common base, so a file nobody
			// has touched since (me.md in a new vault) takes the backup's
			// version whole instead of holding both texts.
			if first == nil {
				if first, err = v.firstCommit(ctx); err != nil {
					return "", nil, err
				}
			}
			base, err := v.blobAtCommit(first, p)
			if err != nil {
				return "", nil, err
			}
			merged, cs, err := v.MergeEntry(p, base, old, f.Data, [2]string{"vault", label})
			if err != nil {
				return "", nil, err
			}
			res.Merged++
			conflicts = append(conflicts, cs...)
			changes = append(changes, change{path: p, data: merged})
		}
		records, err := conflictFiles(conflicts, "HEAD", label, v.now())
		if err != nil {
			return "", nil, err
		}
		res.Conflicts = len(records)
		changes = append(changes, records...)
		msg := fmt.Sprintf("import %s: %d added, %d merged", label, res.Added, res.Merged)
		return msg, changes, nil
	})
	if c.Hash != "" && len(redacted) > 0 {
		c.Redacted = redacted
	}
	res.Commit = c
	return res, err
}

// firstCommit is the root of the branch's first-parent history.
func (v *Vault) firstCommit(ctx context.Context) (*object.Commit, error) {
	var first *object.Commit
	err := v.walkCommits(ctx, func(c *object.Commit) error {
		first = c
		return nil
	})
	if err == nil && first == nil {
		err = errors.New("the branch has no commits")
	}
	return first, err
}

// blobAtCommit is the content of path p in commit c, nil if absent.
func (v *Vault) blobAtCommit(c *object.Commit, p string) ([]byte, error) {
	h, err := blobAt(c, p)
	if err != nil || h.IsZero() {
		return nil, err
	}
	return v.blob(h)
}
