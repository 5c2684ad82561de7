package export

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/vault"
)

// ToFile writes an export made by write (JSON or Markdown) to the file
// path, whole or not at all: built in memory, then swapped in atomically,
// so a failed export leaves the file as it was. A path inside the vault is
// refused, as for a folder: the file would be taken for an edit to commit.
func ToFile(ctx context.Context, v *vault.Vault, path string, o Options,
	write func(context.Context, *vault.Vault, io.Writer, Options) (Result, error)) (Result, error) {
	out, err := realPath(path)
	if err != nil {
		return Result{}, fmt.Errorf("export to %s: %w", path, err)
	}
	root, err := realPath(v.Root())
	if err != nil {
		return Result{}, fmt.Errorf("export: %w", err)
	}
	if within(out, root) {
		return Result{}, fmt.Errorf("export: %s: %w at %s; choose a file outside it", path, ErrIntoVault, root)
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return Result{}, fmt.Errorf("export: %s is a folder; --format json and md write a file", path)
	}
	var buf bytes.Buffer
	res, err := write(ctx, v, &buf, o)
	if err != nil {
		return res, err
	}
	if err := atomicfile.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return res, fmt.Errorf("export to %s: %w", filepath.Clean(path), err)
	}
	return res, nil
}
