// Package vault is the store: a folder of markdown entries in a git work
// tree. It owns names and their resolution, the vault's config, the write
// path (lock, atomic files, one commit per change), and history. Git lives
// here, behind the vault's own API.
package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/templates"
	"github.com/ctx0/ctx0/vault/entry"
	"github.com/ctx0/ctx0/vault/gitindex"
)

// ErrNotVault is returned by Open for a folder without .ctx0/.
var ErrNotVault = errors.New("not a ctx0 vault")

// Vault is an open vault. Its methods are safe to call from several
// processes at once: writes queue on the vault lock.
type Vault struct {
	root   string
	gitDir string
	repo   *git.Repository
	// conf is the config file as last read (see conf.go): a process that
	// runs for long reads it again once the file or this machine's
	// approval changes.
	conf    atomic.Pointer[configState]
	confMu  sync.Mutex // one reader of a changed config at a time
	now     func() time.Time
	catalog Catalog
	// gitLockWait is how long a write waits for a git command that holds
	// one of git's lock files to finish (defaultGitLockWait).
	gitLockWait time.Duration
	// afterReplaceRead, when set, runs between replaceFile's read of the
	// file it replaces and its check: tests write to the file there.
	afterReplaceRead func()
	// onCommit is told of each commit this process's writes made.
	onCommit func(*Vault)
	// onWait is told when a lock is held by another process and this one
	// waits for it (WithOnWait).
	onWait func(what string)
	// taker, when set, is asked to make this process's writes (HandOff).
	taker QueueTaker

	sem       chan struct{} // one lock holder per process at a time (see takeLock)
	held      *held         // the vault lock, while this process holds it
	writes    writeQueue    // writes waiting for the next group commit
	recovered []string      // what taking the lock repaired (recoverLocked), for doctor

	// gitIndex keeps git's staging area as this process last wrote it,
	// for a process that writes again (see gitindex.Cache).
	gitIndex gitindex.Cache
	// warm keeps the trees and commits this process wrote (warmTrees).
	warm warmTrees

	// group is the view of the group commit being decided (groupView):
	// set and read only by the goroutine that runs the writes.
	group *groupView
}

// Option adjusts an opened vault.
type Option func(*Vault)

// WithClock makes the vault read the time from now, for tests.
func WithClock(now func() time.Time) Option { return func(v *Vault) { v.now = now } }

// WithOnCommit calls fn after each commit the vault's write path makes:
// how automatic sync learns that there is something to push.
func WithOnCommit(fn func(*Vault)) Option { return func(v *Vault) { v.onCommit = fn } }

// WithOnWait calls fn, once per wait, when the vault waits for a lock
// another process holds: a write, or a fetch from a remote, can wait
// minutes behind a slow network, and a person at a terminal should know
// why nothing happens. what says which lock, for a person.
func WithOnWait(fn func(what string)) Option { return func(v *Vault) { v.onWait = fn } }

// WithCatalog answers whole-vault questions (name resolution, alias
// uniqueness, duplicate content) from c instead of reading every entry.
func WithCatalog(c Catalog) Option { return func(v *Vault) { v.catalog = c } }

// Open opens the vault whose root is dir.
func Open(ctx context.Context, dir string, opts ...Option) (*Vault, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", dir, err)
	}
	if fi, err := os.Stat(filepath.Join(root, ".ctx0")); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("open vault %s: %w (run `ctx0 init %s` to create one)", root, ErrNotVault, dir)
	}
	gitDir := filepath.Join(root, ".git")
	repo, err := openRepo(root, gitDir)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: git repository: %w", root, err)
	}
	v := &Vault{root: root, gitDir: gitDir, repo: repo, now: time.Now, gitLockWait: defaultGitLockWait, sem: make(chan struct{}, 1)}
	// A config that does not decode is kept in ConfigError, not fatal:
	// a vault whose remote pushed a broken or newer config must still
	// open, to sync the fix.
	_ = v.readConfig()
	for _, o := range opts {
		o(v)
	}
	if v.catalog == nil {
		v.catalog = &scanCatalog{v: v}
	}
	if err := v.recoverPending(ctx); err != nil {
		return nil, fmt.Errorf("open vault %s: %w", root, err)
	}
	return v, nil
}

// Root is the vault's folder.
func (v *Vault) Root() string { return v.root }

// GitDir is the vault's git folder, which holds its remotes in config.
func (v *Vault) GitDir() string { return v.gitDir }

// Config is the vault's configuration.
func (v *Vault) Config() Config { return v.config().cfg }

// Settings is the vault's config file as Open read it, whole: the other
// packages decode their sections from it rather than read it again.
func (v *Vault) Settings() *config.File { return v.config().settings }

// SetCatalog replaces the catalog after Open, for a catalog that itself needs
// the open vault.
func (v *Vault) SetCatalog(c Catalog) { v.catalog = c }

// Init makes dir a vault: it creates the git repository if there is none,
// writes the vault's files where they do not exist yet (an existing
// .gitignore or .gitattributes gets ctx0's lines appended), and commits them.
// Existing files and history are left as they are.
func Init(ctx context.Context, dir string, opts ...Option) (*Vault, Commit, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, Commit{}, fmt.Errorf("init vault %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(root, ConfigFile)); err == nil {
		return nil, Commit{}, fmt.Errorf("init vault %s: already a ctx0 vault", root)
	}
	if err := os.MkdirAll(filepath.Join(root, ".ctx0"), 0o755); err != nil {
		return nil, Commit{}, fmt.Errorf("init vault %s: %w", root, err)
	}
	if _, err := git.PlainOpen(root); errors.Is(err, git.ErrRepositoryNotExists) {
		var rs *refStore
		rs, err = newRepoStore(ctx, root)
		if err == nil {
			_, err = git.InitWithOptions(rs, osfs.New(root), git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")})
		}
		if err != nil {
			return nil, Commit{}, fmt.Errorf("init vault %s: git init: %w", root, err)
		}
	} else if err != nil {
		return nil, Commit{}, fmt.Errorf("init vault %s: open git repository: %w", root, err)
	}
	v, err := Open(ctx, root, opts...)
	if err != nil {
		return nil, Commit{}, err
	}
	if err := v.ensureGitConfig(); err != nil {
		return nil, Commit{}, err
	}
	var changes []change
	now := v.now().UTC().Truncate(time.Second)
	for _, f := range templates.Vault() {
		full := filepath.Join(root, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(full)
		switch {
		case errors.Is(err, os.ErrNotExist):
			data := f.Data
			if _, ok := nameOf(f.Path); ok {
				data, err = stampNew(data, now)
				if err != nil {
					return nil, Commit{}, fmt.Errorf("init vault %s: template %s: %w", root, f.Path, err)
				}
			}
			changes = append(changes, change{path: f.Path, data: data})
		case err != nil:
			return nil, Commit{}, fmt.Errorf("init vault %s: %w", root, err)
		case f.Path == ".gitignore" || f.Path == ".gitattributes":
			if merged, changed := appendMissingLines(old, f.Data); changed {
				changes = append(changes, change{path: f.Path, data: merged})
			}
		}
	}
	folders := map[string]bool{}
	cfg := v.Config()
	for _, t := range cfg.TypeNames() {
		info, _ := cfg.Type(t)
		if _, err := os.Stat(filepath.Join(root, info.Folder)); errors.Is(err, os.ErrNotExist) && !folders[info.Folder] {
			folders[info.Folder] = true
			changes = append(changes, change{path: info.Folder + "/.gitkeep", data: []byte{}})
		}
	}
	c, err := v.apply(ctx, "init: ctx0 vault", changes)
	if err != nil {
		return nil, Commit{}, fmt.Errorf("init vault %s: %w", root, err)
	}
	// The settings init wrote are this machine's own: approved (see
	// Approve), so that a later change to them, pulled or not, is told.
	if _, err := v.Approve(); err != nil {
		return nil, Commit{}, fmt.Errorf("init vault %s: %w", root, err)
	}
	return v, c, nil
}

// ensureGitConfig sets up the vault's .git/config: ctx0's merge driver, so
// that a plain `git merge` or `git pull` merges entries field by field as
// .gitattributes asks, and no CRLF conversion, so the bytes in a commit are
// the bytes in the file.
func (v *Vault) ensureGitConfig() error {
	cfg, err := v.repo.Config()
	if err != nil {
		return fmt.Errorf("read git config: %w", err)
	}
	raw := cfg.Raw
	if raw.Section("core").Option("autocrlf") == "" {
		raw.Section("core").SetOption("autocrlf", "false")
	}
	driver := raw.Section("merge").Subsection("ctx0")
	driver.SetOption("name", "ctx0 field-level entry merge")
	driver.SetOption("driver", "ctx0 merge-driver %O %A %B %P")
	if err := v.repo.Storer.SetConfig(cfg); err != nil {
		return fmt.Errorf("write git config: %w", err)
	}
	return nil
}

// stampNew sets created and updated on a template entry.
func stampNew(data []byte, now time.Time) ([]byte, error) {
	e, err := entry.Parse(data)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{entry.FieldCreated, entry.FieldUpdated} {
		if err := e.Set(k, now); err != nil {
			return nil, err
		}
	}
	return e.Bytes(), nil
}

// appendMissingLines adds the lines of add that old lacks, keeping old as is.
func appendMissingLines(old, add []byte) ([]byte, bool) {
	have := map[string]bool{}
	for _, l := range splitLines(old) {
		have[l] = true
	}
	out := append([]byte{}, old...)
	changed := false
	for _, l := range splitLines(add) {
		if l == "" || have[l] {
			continue
		}
		if !changed && len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, l...)
		out = append(out, '\n')
		changed = true
	}
	return out, changed
}

func splitLines(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}
