package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/vault/entry"
	"github.com/ctx0/ctx0/vault/merge"
)

// conflictsDir holds one file per true merge conflict kept aside. They are
// committed, so every clone sees them until someone resolves them, and
// concurrent merges never edit the same file.
const conflictsDir = ".ctx0/conflicts"

// pendingConflictsDir holds the records of conflicts kept aside by a merge
// that git made (a plain git pull or git merge, through the merge driver).
// git commits that merge itself, so its records cannot be in it; until ctx0
// next commits the edits other tools made (sync, an agent run), which moves
// them into conflictsDir, they are local state, ignored with the rest of
// .ctx0/state/, so git status stays clean after the pull.
const pendingConflictsDir = ".ctx0/state/conflicts"

// ConflictRecord is a true conflict a merge kept aside: the version that
// stayed in the entry and the one that did not, with where each came from.
type ConflictRecord struct {
	ID           string    `yaml:"id" json:"id"`
	Entry        string    `yaml:"entry" json:"entry"`
	Path         string    `yaml:"path" json:"path"`
	Field        string    `yaml:"field,omitempty" json:"field,omitempty"`
	Hunk         string    `yaml:"hunk,omitempty" json:"hunk,omitempty"`
	Base         string    `yaml:"base" json:"base"`
	Ours         string    `yaml:"ours" json:"ours"`
	Theirs       string    `yaml:"theirs" json:"theirs"`
	Kept         string    `yaml:"kept" json:"kept"`
	OursCommit   string    `yaml:"ours_commit" json:"ours_commit"`
	TheirsCommit string    `yaml:"theirs_commit" json:"theirs_commit"`
	When         time.Time `yaml:"when" json:"when"`
}

// conflictFiles renders the records of a merge as files to commit with it.
func conflictFiles(cs []PathConflict, ours, theirs string, when time.Time) ([]change, error) {
	var out []change
	for _, c := range cs {
		r := ConflictRecord{
			Path: c.Path, Field: c.Field, Hunk: c.Hunk, Base: c.Base, Ours: c.Ours, Theirs: c.Theirs,
			Kept: string(c.Kept), OursCommit: ours, TheirsCommit: theirs, When: when.UTC(),
		}
		r.Entry, _ = nameOf(c.Path)
		sum := sha256.Sum256([]byte(strings.Join([]string{r.Path, r.Field, r.Hunk, r.Ours, r.Theirs, ours, theirs}, "\x00")))
		r.ID = hex.EncodeToString(sum[:])[:12]
		data, err := yaml.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("record conflict in %s: %w", c.Path, err)
		}
		out = append(out, change{path: conflictsDir + "/" + r.ID + ".yaml", data: data})
	}
	return out, nil
}

// Conflicts lists the conflicts waiting to be resolved, oldest first: those
// committed and those a git merge recorded since the last sync. A record
// file that cannot be read as a record, or that fails its checks (see
// ParseConflictRecord), is left out of records and listed in bad, left in
// place for doctor to report: the records are committed, so anyone who can
// push to the remote writes them, and one bad file must neither stop the
// listing nor lead a resolve out of .ctx0/conflicts.
func (v *Vault) Conflicts(ctx context.Context) (records []ConflictRecord, bad []BadRecord, err error) {
	records = []ConflictRecord{}
	seen := map[string]bool{}
	for _, dir := range []string{conflictsDir, pendingConflictsDir} {
		files, skipped, err := readConflictFiles(ctx, v.root, dir)
		if err != nil {
			return nil, nil, err
		}
		bad = append(bad, skipped...)
		for _, f := range files {
			if !seen[f.record.ID] {
				seen[f.record.ID] = true
				records = append(records, f.record)
			}
		}
	}
	sort.SliceStable(records, func(i, j int) bool { return records[i].When.Before(records[j].When) })
	return records, bad, ctx.Err()
}

// BadRecord is a record file ctx0 refused to read. It stays where it is
// until a person removes it (or ctx0 doctor --fix moves it aside).
type BadRecord struct {
	File   string `json:"file"`   // slash-separated, relative to the vault root
	Reason string `json:"reason"` // one line, naming the file
}

func (b BadRecord) String() string { return b.Reason }

// refusedDir is where doctor --fix moves the record files ctx0 refuses:
// machine-local state, out of git, kept for a person to look at.
const refusedDir = ".ctx0/state/refused"

// badRecordAdvice is what doctor says of a refused record.
func badRecordAdvice(b BadRecord) string {
	if b.File == conflictsDir || b.File == pendingConflictsDir {
		return b.Reason + "; ctx0 conflicts and curator runs skip the folder: remove the link (git rm it if committed) and run ctx0 sync"
	}
	return b.Reason + "; ctx0 conflicts and curator runs skip it. Unless you wrote it, whoever can push to the remote did: run ctx0 doctor --fix to move it into " + refusedDir + "/ (its removal is committed), or remove it yourself"
}

// setAsideBadRecords moves each conflict record file that ctx0 refuses
// into refusedDir, and commits its removal from .ctx0/conflicts when it was
// committed. Call it under the vault lock. A folder that is refused (a
// link in place of .ctx0/conflicts) is left for a person: doctor says so.
func (v *Vault) setAsideBadRecords(ctx context.Context) ([]string, error) {
	var done []string
	for _, dir := range []string{conflictsDir, pendingConflictsDir} {
		_, bad, err := readConflictFiles(ctx, v.root, dir)
		if err != nil {
			return done, err
		}
		for _, b := range bad {
			if b.File == dir {
				continue
			}
			to := refusedDir + "/" + strings.TrimPrefix(b.File, ".ctx0/")
			if err := CheckPath(v.root, path.Dir(to)); err != nil {
				return done, fmt.Errorf("set aside %s: %w", b.File, err)
			}
			full := filepath.Join(v.root, filepath.FromSlash(to))
			if _, err := os.Lstat(full); err == nil {
				// One set aside before under that name stays.
				to += "." + v.now().UTC().Format("20060102T150405.000000000Z")
				full = filepath.Join(v.root, filepath.FromSlash(to))
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return done, fmt.Errorf("set aside %s: %w", b.File, err)
			}
			// Rename moves a link itself, never what it points to.
			if err := os.Rename(filepath.Join(v.root, filepath.FromSlash(b.File)), full); err != nil {
				return done, fmt.Errorf("set aside %s: %w", b.File, err)
			}
			if dir == conflictsDir {
				// Committed, its removal is a change every clone takes.
				msg := "set aside a conflict record ctx0 refuses: " + b.File
				if _, err := v.applyLocked(ctx, msg, []change{{path: b.File}}); err != nil {
					return done, fmt.Errorf("set aside %s: %w", b.File, err)
				}
			}
			done = append(done, "moved "+b.File+" into "+to+" ("+b.Reason+")")
		}
	}
	return done, nil
}

// conflictFile is a record read from its file.
type conflictFile struct {
	path   string // slash-separated, relative to the vault root
	data   []byte
	record ConflictRecord
}

// maxConflictRecord bounds a record file: both versions of a field or
// passage of one entry, with room to spare.
const maxConflictRecord = 4 * entry.MaxSize

// readConflictFiles reads the records in dir (slash-separated, relative to
// root), in name order; none when dir does not exist. Files that are not
// valid records come back in bad.
func readConflictFiles(ctx context.Context, root, dir string) (files []conflictFile, bad []BadRecord, err error) {
	if err := CheckPath(root, dir); err != nil {
		return nil, []BadRecord{{File: dir, Reason: fmt.Sprintf("%v %s: %v", ErrBadRecord, dir, err)}}, nil
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list conflicts in %s: %w", dir, err)
	}
	for _, f := range entries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !strings.HasSuffix(f.Name(), ".yaml") || atomicfile.IsTemp(f.Name()) {
			continue
		}
		rel := dir + "/" + f.Name()
		if !f.Type().IsRegular() {
			bad = append(bad, BadRecord{File: rel, Reason: fmt.Sprintf("%v %s: not a regular file", ErrBadRecord, rel)})
			continue
		}
		if fi, err := f.Info(); err == nil && fi.Size() > maxConflictRecord {
			bad = append(bad, BadRecord{File: rel, Reason: fmt.Sprintf("%v %s: %d bytes, more than a record holds (%d)", ErrBadRecord, rel, fi.Size(), maxConflictRecord)})
			continue
		}
		data, err := ReadFile(root, rel)
		if errors.Is(err, os.ErrNotExist) {
			continue // resolved meanwhile
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read conflict record %s: %w", rel, err)
		}
		r, err := ParseConflictRecord(rel, data)
		if err != nil {
			bad = append(bad, BadRecord{File: rel, Reason: err.Error()})
			continue
		}
		files = append(files, conflictFile{path: rel, data: data, record: r})
	}
	return files, bad, nil
}

// conflictID is the shape conflictFiles gives a record's id: the first 12
// hex digits of a SHA-256. The id names the record's file, so nothing else
// may pass for one.
var conflictID = regexp.MustCompile(`^[0-9a-f]{12}$`)

// ErrBadRecord is a record file that is not a record ctx0 wrote.
var ErrBadRecord = errors.New("refuse record")

// ParseConflictRecord reads the conflict record held in the file at file
// (slash-separated, relative to the vault root). Anyone who can push to
// the vault's remote can write such a file, so it checks everything that
// later names a file: the id has the shape ctx0 gives it and is the
// file's own name, the entry is the one its path names, and the path stays
// inside the vault out of its hidden folders.
func ParseConflictRecord(file string, data []byte) (ConflictRecord, error) {
	bad := func(format string, args ...any) (ConflictRecord, error) {
		return ConflictRecord{}, fmt.Errorf("%w %s: %s", ErrBadRecord, file, fmt.Sprintf(format, args...))
	}
	var r ConflictRecord
	if err := yaml.Unmarshal(data, &r); err != nil {
		// One line: the YAML decoder lists its type errors on lines of
		// their own.
		return bad("%s", strings.Join(strings.Fields(err.Error()), " "))
	}
	if !conflictID.MatchString(r.ID) {
		return bad("id %q is not a conflict id (12 hex digits)", r.ID)
	}
	if want := r.ID + ".yaml"; path.Base(file) != want {
		return bad("id %q does not match the file name (want %s)", r.ID, want)
	}
	if err := checkRecordPath(r.Path); err != nil {
		return bad("path %q: %v", r.Path, err)
	}
	if name, _ := nameOf(r.Path); r.Entry != name {
		return bad("entry %q is not the entry of path %q", r.Entry, r.Path)
	}
	switch merge.Side(r.Kept) {
	case "", merge.Ours, merge.Theirs:
	default:
		return bad("kept %q is neither ours nor theirs", r.Kept)
	}
	return r, nil
}

// checkRecordPath checks the shape of a path a record names: relative,
// clean, slash-separated, valid UTF-8 without control characters, and out
// of .git.
func checkRecordPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty")
	case !utf8.ValidString(p) || strings.ContainsFunc(p, unicode.IsControl):
		return errors.New("not plain text")
	case strings.Contains(p, "\\") || !filepath.IsLocal(p) || path.Clean(p) != p:
		return ErrOutside
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.EqualFold(seg, ".git") {
			return errors.New("inside .git")
		}
	}
	return nil
}

// pendingConflicts are the changes that commit the records a git merge left
// in pendingConflictsDir, and the pending files to remove once they are
// committed. A record already committed is not committed again; a file
// that is not a valid record is left where it is, for doctor to report.
func (v *Vault) pendingConflicts(ctx context.Context) (changes []change, done []string, err error) {
	files, _, err := readConflictFiles(ctx, v.root, pendingConflictsDir)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		done = append(done, f.path)
		to := conflictsDir + "/" + path.Base(f.path)
		if _, err := os.Lstat(filepath.Join(v.root, filepath.FromSlash(to))); err == nil {
			continue
		}
		changes = append(changes, change{path: to, data: f.data})
	}
	return changes, done, nil
}

// removePending deletes pending conflict records, once committed or
// resolved; each path goes through CheckPath first.
func (v *Vault) removePending(paths []string) error {
	for _, p := range paths {
		if err := CheckPath(v.root, p); err != nil {
			return fmt.Errorf("remove conflict record %s: %w", p, err)
		}
		if err := os.Remove(filepath.Join(v.root, filepath.FromSlash(p))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove conflict record %s: %w", p, err)
		}
	}
	return nil
}

// ResolveConflicts marks conflicts resolved: the one whose id is ref, or
// every one in the entry ref names. It returns how many it resolved. A
// conflict in the body is resolved by editing the entry and deleting its
// block, so while the entry still holds a conflict block (any, when ref
// names the entry; the conflict's own, when ref is its id) it refuses,
// saying which, unless force.
func (v *Vault) ResolveConflicts(ctx context.Context, ref string, force bool) (int, Commit, error) {
	var n int
	var pending []string
	c, err := v.update(ctx, func() (string, []change, error) {
		all, _, err := v.Conflicts(ctx)
		if err != nil {
			return "", nil, err
		}
		name := ref
		if r, err := v.Resolve(ctx, ref); err == nil {
			name = r
		}
		var changes []change
		var matched []ConflictRecord
		for _, r := range all {
			if r.ID != ref && r.Entry != name {
				continue
			}
			matched = append(matched, r)
			// The id was checked when the record was read (ParseConflictRecord):
			// it names its own file and nothing else.
			file := r.ID + ".yaml"
			pending = append(pending, pendingConflictsDir+"/"+file)
			if _, err := os.Lstat(filepath.Join(v.root, filepath.FromSlash(conflictsDir), file)); err == nil {
				changes = append(changes, change{path: conflictsDir + "/" + file})
			}
		}
		if len(matched) == 0 {
			return "", nil, fmt.Errorf("no open conflict matches %q (see ctx0 conflicts)", ref)
		}
		if !force {
			if err := v.blocksLeft(matched, name); err != nil {
				return "", nil, err
			}
		}
		n = len(matched)
		return fmt.Sprintf("resolve %d conflict(s) in %s", n, name), changes, nil
	})
	if err != nil {
		return 0, c, err
	}
	return n, c, v.removePending(pending)
}

// blocksLeft says which conflict blocks are still in the entries of rs:
// every block of the entry name, and of the others the block quoting the
// version each conflict kept aside.
func (v *Vault) blocksLeft(rs []ConflictRecord, name string) error {
	for _, r := range rs {
		if r.Field != "" {
			continue // a field's conflict leaves nothing in the entry to find
		}
		e, err := v.read(r.Entry)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var left []merge.Block
		for _, b := range merge.Blocks(e.Body()) {
			if r.Entry == name || strings.TrimSpace(b.Text) == strings.TrimSpace(r.aside()) {
				left = append(left, b)
			}
		}
		if len(left) == 0 {
			continue
		}
		more := ""
		if len(left) > 1 {
			more = fmt.Sprintf(" and %d more", len(left)-1)
		}
		return fmt.Errorf("%s still holds a conflict block (%q%s): keep the text you want, delete the block, then resolve; or resolve --force", entryPath(r.Entry), left[0].Title, more)
	}
	return nil
}

// aside is the version the merge did not keep in place.
func (r ConflictRecord) aside() string {
	_, aside := r.Sides()
	return aside.Text
}

// ConflictSide is one version of a conflict: its text and the commit it
// came from.
type ConflictSide struct {
	Text   string `json:"text"`
	Commit string `json:"commit"`
}

// Sides are the version the merge kept in place and the one it set aside,
// each with its commit. Said so, a record reads the same on every clone:
// "ours" is the side of whichever machine merged, which on the other
// machine is the other's text.
func (r ConflictRecord) Sides() (kept, aside ConflictSide) {
	ours, theirs := ConflictSide{r.Ours, r.OursCommit}, ConflictSide{r.Theirs, r.TheirsCommit}
	if r.Kept == string(merge.Theirs) {
		return theirs, ours
	}
	return ours, theirs
}

// RecordConflicts writes conflict records for a merge that git itself is
// making (the merge driver) into pendingConflictsDir, uncommitted; the next
// commit of external edits commits them.
func (v *Vault) RecordConflicts(cs []PathConflict, ours, theirs string) error {
	files, err := conflictFiles(cs, ours, theirs, v.now())
	if err != nil {
		return err
	}
	dir := filepath.Join(v.root, filepath.FromSlash(pendingConflictsDir))
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(dir, path.Base(f.path)), f.data); err != nil {
			return fmt.Errorf("record conflict: %w", err)
		}
	}
	return nil
}
