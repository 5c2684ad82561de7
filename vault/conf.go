package vault

import (
	"os"
	"path/filepath"
	"time"

	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/internal/inode"
)

// configState is the vault's config file as read at one moment, with this
// machine's approval of its guarded settings applied.
type configState struct {
	// stamps are the config file's and the approval record's, taken
	// before they were read: a later change of either shows as a
	// different stamp.
	stamps [2]fileStamp
	// settings is the file without the guarded settings not approved.
	settings *config.File
	// trust is which guarded settings apply (see Trust).
	trust Trust
	// cfg is the vault's own sections, decoded; the defaults when the
	// file did not read or decode.
	cfg Config
	// err is why the file did not read or decode (see ConfigError).
	err error
}

// fileStamp tells one version of a file from another without reading it.
type fileStamp struct {
	exists bool
	size   int64
	mtime  time.Time
	ino    uint64
}

func stampFile(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: fi.Size(), mtime: fi.ModTime(), ino: inode.Of(fi)}
}

func (v *Vault) configStamps() [2]fileStamp {
	return [2]fileStamp{stampFile(filepath.Join(v.root, filepath.FromSlash(ConfigFile))), stampFile(v.trustPath())}
}

// config is the vault's settings as the file holds them now. The file is
// read again when it or the approval changed since it was last read, so a
// process that runs for long (a watcher taking other processes' writes, an
// MCP server, the daemon) applies a person's edit of the config as a new
// process would, rather than the config it started with.
func (v *Vault) config() *configState {
	s := v.conf.Load()
	if s != nil && s.stamps == v.configStamps() {
		return s
	}
	v.confMu.Lock()
	defer v.confMu.Unlock()
	if s = v.conf.Load(); s != nil && s.stamps == v.configStamps() {
		return s
	}
	_ = v.readConfig()
	return v.conf.Load()
}
