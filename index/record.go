package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/internal/inode"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// racyWindow is how long after a change a file's or folder's mtime is not
// trusted alone: a second change within the same timestamp tick (coarse on
// some file systems, 2 s on FAT) would leave size and mtime as they were.
// Such rows are marked unsettled and compared by content next time, as git
// does with "racily clean" entries.
const racyWindow = 2 * time.Second

// stamp is what the checks compare before reading a file.
type stamp struct {
	size, mtime int64
}

func stampOf(fi fs.FileInfo) stamp {
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// settledAt reports whether a stamp taken at now can be trusted alone.
func (s stamp) settledAt(now time.Time) bool {
	return now.UnixNano()-s.mtime > int64(racyWindow)
}

// record is one entry file as the index holds it.
type record struct {
	name    string
	stamp   stamp
	ino     uint64 // the file's inode number, 0 where the system has none
	settled bool
	hash    string
	problem string // why the file did not parse; "" if it did
	// file is the file as read, when it did not change while read; nil
	// when it might have.
	file fs.FileInfo

	title, typ, project, source string
	tags, aliases               []string
	pinned                      bool
	created, updated, archived  string
	supersededBy, recency       string
	happened                    string // vault.Happened
	front                       string // the frontmatter as JSON
	bodySum                     string
	text                        string // the body as indexed for search (see query.Segment)
	links                       []link
}

// errGone means the file disappeared between listing and reading.
var errGone = errors.New("file is gone")

// readRecord reads and parses the file of name. A file that cannot be read
// or parsed still gives a record, with the problem said and, if it is text,
// its raw text searchable. The only error is errGone.
func readRecord(root, name string, now time.Time) (*record, error) {
	r, data, err := readRaw(root, name, now)
	if err == nil && data != nil {
		r.parse(data)
	}
	return r, err
}

// readRaw is readRecord up to the parse: the record of a file it could
// read has its stamp and hash, and data to parse; one it could not read
// or that is too large is whole, with data nil.
func readRaw(root, name string, now time.Time) (*record, []byte, error) {
	p := fileOf(root, name)
	before, err := os.Lstat(p)
	if err != nil || !before.Mode().IsRegular() || vault.CheckPath(root, vault.EntryPath(name)) != nil {
		// Gone, or a folder or a link where an entry was, or a folder
		// above it that is a link: not an entry.
		return nil, nil, errGone
	}
	r := &record{name: name, stamp: stampOf(before), ino: inode.Of(before)}
	if before.Size() > entry.MaxSize {
		r.problem = fmt.Sprintf("%v (%d bytes, limit %d)", entry.ErrTooLarge, before.Size(), entry.MaxSize)
		r.hash = fmt.Sprintf("size:%d", before.Size())
		r.settled = r.stamp.settledAt(now)
		r.fill(nil, "")
		return r, nil, nil
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errGone
	}
	if err != nil {
		// Unreadable, say for its permissions: it still answers to its
		// name, and doctor reports it.
		r.problem = err.Error()
		r.fill(nil, "")
		return r, nil, nil
	}
	after, err := os.Lstat(p)
	if err != nil {
		return nil, nil, errGone
	}
	// A file that changed while we read it is read again next time.
	same := stampOf(after) == r.stamp && int64(len(data)) == r.stamp.size && os.SameFile(before, after)
	r.settled = same && r.stamp.settledAt(now)
	if same {
		r.file = before
	}
	sum := sha256.Sum256(data)
	r.hash = hex.EncodeToString(sum[:])
	return r, data, nil
}

// parse fills r from data, the file's content.
func (r *record) parse(data []byte) {
	e, err := entry.Parse(data)
	if err != nil {
		r.problem = err.Error()
		raw := ""
		if !errors.Is(err, entry.ErrBinary) && !errors.Is(err, entry.ErrInvalidUTF8) {
			raw = string(data) // still findable: a new user's file with a YAML typo
		}
		r.fill(nil, raw)
		return
	}
	r.fill(e, e.Body())
}

// fill sets the fields read from the entry e (nil if it did not parse)
// with body as its searchable text.
func (r *record) fill(e *entry.Entry, body string) {
	r.recency = utc(time.Unix(0, r.stamp.mtime))
	r.front = "{}"
	r.text = query.Segment(body)
	r.bodySum = vault.BodySum(body)
	if e == nil {
		return
	}
	r.title, r.typ, r.project, r.source = e.Title(), e.Type(), e.Project(), e.Source()
	r.tags, r.aliases, r.pinned = e.Tags(), e.Aliases(), e.Pinned()
	r.created, r.updated, r.archived = utc(e.Created()), utc(e.Updated()), utc(e.Archived())
	r.supersededBy = e.SupersededBy()
	switch {
	case r.updated != "":
		r.recency = r.updated
	case r.created != "":
		r.recency = r.created
	}
	r.happened = utc(vault.Happened(r.name, e))
	if front, err := json.Marshal(e.Fields()); err == nil {
		r.front = string(front)
	}
	r.links = parseLinks(r.name, body, e.LinkNames())
}

// tagsJSON is the tags as a JSON array, never null.
func (r *record) tagsJSON() string {
	if len(r.tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(r.tags)
	return string(b)
}

// utc formats t as the index stores times: RFC 3339 in UTC, which sorts as
// text; "" for the zero time.
func utc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// fileOf is the absolute path of an entry's file.
func fileOf(root, name string) string {
	return filepath.Join(root, filepath.FromSlash(vault.EntryPath(name)))
}
