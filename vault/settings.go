package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/internal/lazy"
)

// settingsName is what a shared settings file under .ctx0/ may be called:
// config.yaml, queries.yaml. Subfolders (state/, conflicts/) are ctx0's
// own bookkeeping and are never edited this way.
var settingsName = lazy.Regexp(`^[a-z0-9][a-z0-9-]*\.yaml$`)

// EditSettings changes the shared settings file .ctx0/<name>, such as
// queries.yaml, and commits it like any other write: under the vault lock
// edit gets the file as it is in the work tree (nil when there is none,
// with any uncommitted edit of a person's in it) and returns what it
// should hold. Returning the same bytes commits nothing.
func (v *Vault) EditSettings(ctx context.Context, name, msg string, edit func(old []byte) ([]byte, error)) (_ Commit, err error) {
	if !settingsName().MatchString(name) {
		return Commit{}, fmt.Errorf("edit settings %q: want a file name such as queries.yaml", name)
	}
	rel := ".ctx0/" + name
	if rel == ConfigFile {
		// The config was read once, when the vault was opened: the
		// vault's own edit of it takes effect at once.
		defer func() {
			if err == nil {
				err = v.readConfig()
			}
		}()
	}
	return v.update(ctx, func() (string, []change, error) {
		old, err := ReadFile(v.root, rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("read %s: %w", rel, err)
		}
		data, err := edit(old)
		if err != nil || string(data) == string(old) && old != nil {
			return "", nil, err
		}
		if data == nil {
			data = []byte{}
		}
		return msg, []change{{path: rel, data: data}}, nil
	})
}

// readConfig reads the vault's config file, withholds the guarded
// settings this machine has not approved (see applyTrust), and decodes the
// vault's sections of it. A file that does not read or decode leaves the
// defaults in place and its error in ConfigError, which it returns: only
// the commands that need the settings fail, and sync can still pull a fix.
func (v *Vault) readConfig() error {
	s := &configState{stamps: v.configStamps()}
	raw, err := ReadConfig(v.root)
	if err != nil {
		s.settings, _ = config.Parse(filepath.Join(v.root, filepath.FromSlash(ConfigFile)), nil)
		_, s.trust = v.applyTrust(s.settings)
		s.cfg, s.err = DefaultConfig(), err
		v.conf.Store(s)
		return err
	}
	s.settings, s.trust = v.applyTrust(raw)
	s.cfg, s.err = ParseConfig(s.settings)
	if s.err != nil {
		s.cfg = DefaultConfig()
	}
	v.conf.Store(s)
	return s.err
}

// ConfigError is why the vault's config file did not read or decode when
// the vault last read it, or nil; the vault then uses its defaults.
func (v *Vault) ConfigError() error { return v.config().err }
