package vault

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data so that a reader or a crash sees
// the old file or the new one, never a mix (see writeFile), then fsyncs the
// folder so the rename itself survives a power cut.
func writeFileAtomic(path string, data []byte) error {
	if _, err := writeFile(path, data); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeFile writes data to a temporary file in path's folder (hidden, so
// nothing mistakes it for an entry), fsyncs it and renames it over path.
// The caller syncs the folder. It returns the new file's stat.
func writeFile(path string, data []byte) (_ os.FileInfo, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return nil, err
	}
	return os.Lstat(path)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
