package vault

import (
	"context"
	"errors"
	"io"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// walkFiles calls fn with the slash-separated path and entry of every
// regular file under t, recursively, in git's order, paths git refuses
// included (see checkTakeable), and stops early
// with ctx's error. A tree that cannot be read is returned unwrapped, for
// the caller to name.
func walkFiles(ctx context.Context, t *object.Tree, fn func(path string, e object.TreeEntry)) error {
	w := object.NewTreeWalker(t, true, nil)
	// A path git refuses (a .git component an older ctx0 committed) is
	// the caller's to skip: stopping the walk there would hide the rest.
	w.SkipPathValidation()
	defer w.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if e.Mode.IsFile() {
			fn(name, e)
		}
	}
}
