package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx0/ctx0/transcript"
)

// Options say how to ingest.
type Options struct {
	// Reimport reads the files again from their first byte, replacing
	// what was stored of them. Conversations the librarian already has
	// keep their status when they are found again.
	Reimport bool
	// End says the sessions are over (or about to be compacted): a last
	// line without its newline is read, and every conversation of the
	// files is finished and queued, or skipped.
	End bool
	// Queue queues the files' finished conversations for the librarian.
	Queue bool
	// Progress, if set, is called after each file.
	Progress func(done, total int)
}

// Report says what an ingest did.
type Report struct {
	Files         int   `json:"files"`
	Read          int   `json:"read"`
	Reread        int   `json:"reread"`
	Bytes         int64 `json:"bytes"`
	Messages      int   `json:"messages"`
	Conversations int   `json:"conversations"`
	// Finished counts conversations found silent for the gap.
	Finished int                `json:"finished"`
	Queued   int                `json:"queued"`
	Skipped  transcript.Skipped `json:"skipped"`
	// Errors name the files that could not be read, and why. The others
	// are ingested all the same.
	Errors []string `json:"errors,omitempty"`
}

func (r *Report) add(o Report) {
	r.Files += o.Files
	r.Read += o.Read
	r.Reread += o.Reread
	r.Bytes += o.Bytes
	r.Messages += o.Messages
	r.Conversations += o.Conversations
	r.Queued += o.Queued
	r.Skipped.Add(o.Skipped)
	r.Errors = append(r.Errors, o.Errors...)
}

// fileError is a session file that cannot be read: reported, not fatal.
type fileError struct{ err error }

func (e fileError) Error() string { return e.err.Error() }
func (e fileError) Unwrap() error { return e.err }

// Ingest reads what is new in files. A file that cannot be read is
// reported in the Report's Errors and the others are still read; an
// error is returned only when the state itself cannot be written, or ctx
// ends. Conversations that the clock has finished stay active until
// Refresh (or Conversations, or Queue) says so.
func (s *Store) Ingest(ctx context.Context, files []File, o Options) (Report, error) {
	rep := Report{Skipped: transcript.Skipped{}}
	for i, f := range files {
		r, err := s.ingestFile(ctx, f, o)
		var fe fileError
		switch {
		case errors.As(err, &fe):
			r.Errors = append(r.Errors, fe.Error())
			if err := s.markError(ctx, f.Key, fe); err != nil {
				return rep, err
			}
		case err != nil:
			return rep, err
		case o.Queue || o.End:
			n, err := s.Queue(ctx, f.Key, o.End)
			if err != nil {
				return rep, err
			}
			r.Queued = n
		}
		rep.add(r)
		if o.Progress != nil {
			o.Progress(i+1, len(files))
		}
	}
	return rep, nil
}

// fileState is a file's row in files.
type fileState struct {
	found    bool
	offset   int64
	size     int64
	mtime    int64
	headSum  string
	tailSum  string
	lastAt   int64
	parser   transcript.State
	skipped  transcript.Skipped
	messages int
}

func (s *Store) fileState(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, key string) (fileState, error) {
	st := fileState{skipped: transcript.Skipped{}}
	var parser, skipped string
	err := q.QueryRowContext(ctx, `SELECT offset, size, mtime, head_sum, tail_sum, last_at, parser, skipped, messages FROM files WHERE key = ?`, key).
		Scan(&st.offset, &st.size, &st.mtime, &st.headSum, &st.tailSum, &st.lastAt, &parser, &skipped, &st.messages)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read state of %s: %w", key, err)
	}
	st.found = true
	if err := json.Unmarshal([]byte(parser), &st.parser); err != nil {
		return st, fmt.Errorf("read state of %s: parser: %w", key, err)
	}
	if err := json.Unmarshal([]byte(skipped), &st.skipped); err != nil {
		return st, fmt.Errorf("read state of %s: skipped: %w", key, err)
	}
	return st, nil
}

// ingestFile reads f from where the last read stopped, a chunk per
// transaction, until no complete line is left.
func (s *Store) ingestFile(ctx context.Context, f File, o Options) (Report, error) {
	rep := Report{Files: 1, Skipped: transcript.Skipped{}}
	reset := o.Reimport
	read := false
	for {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		st, err := s.fileState(ctx, s.db, f.Key)
		if err != nil {
			return rep, err
		}
		fi, err := os.Stat(f.Path)
		if err != nil {
			return rep, fileError{fmt.Errorf("read session file: %w", err)}
		}
		size, mtime := fi.Size(), fi.ModTime().UnixNano()
		if st.found && size < st.offset {
			reset = true // it shrank: rewritten
		}
		off := st.offset
		if reset {
			off = 0
		}
		if off == size && (size == 0 || !reset && mtime == st.mtime) {
			return rep, nil
		}
		chunk := s.chunk
		if transcript.WholeFile(f.Path) {
			chunk = int(size) // one document: read whole or not at all
		}
		p, err := readPiece(f.Path, off, size, chunk)
		if err != nil {
			return rep, fileError{err}
		}
		if p.end() < off {
			continue // shrank since the stat
		}
		if !reset && off > 0 && !p.prefixIs(st.headSum, st.tailSum) {
			reset = true // rewritten in place
			continue
		}
		if off == size {
			// Touched, not changed.
			_, err := s.db.ExecContext(ctx, `UPDATE files SET mtime = ? WHERE key = ? AND offset = ?`, mtime, f.Key, off)
			return rep, err
		}
		pst := st.parser
		if reset {
			pst = transcript.State{}
		}
		if pst.CWD == "" {
			pst.CWD = f.CWD
		}
		if f.Source == transcript.Cursor {
			// Cursor records no time and no session id: what a read finds
			// new was written by the time of the file's last change, and
			// the file is named after its conversation.
			pst.Time = fi.ModTime().UTC()
			pst.Session = strings.TrimSuffix(filepath.Base(f.Path), ".jsonl")
		}
		// A writer that has been silent for the gap, or whose session
		// ended, is done: its last line counts even without a newline.
		final := o.End || s.now().Sub(fi.ModTime()) >= s.cfg.Gap()
		c := transcript.Parse(f.Source, p.data(), off, &pst, final && p.end() == size)
		if c.Used == 0 && !reset {
			return rep, nil // only a line still being written
		}
		ok, r, err := s.commitChunk(ctx, f, st, reset, p, c, pst, size, mtime)
		if err != nil {
			return rep, err
		}
		if !ok {
			continue // another process read this chunk first
		}
		if !read {
			rep.Read++
			read = true
		}
		if reset {
			rep.Reread++
		}
		rep.add(r)
		reset = false
		if c.Used == 0 {
			return rep, nil
		}
	}
}

// commitChunk stores a chunk's messages, their conversations and blocks,
// and the offset reached, in one transaction: either all of it lands or
// none. ok is false, and nothing is written, if the file's offset moved
// since old was read: another process got there first.
func (s *Store) commitChunk(ctx context.Context, f File, old fileState, reset bool, p piece, c transcript.Chunk, pst transcript.State, size, mtime int64) (ok bool, rep Report, err error) {
	rep.Skipped = c.Skipped
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		cur, err := s.fileState(ctx, tx, f.Key)
		if err != nil {
			return err
		}
		if cur.found != old.found || cur.offset != old.offset {
			return nil
		}
		ok = true
		skipped, lastAt, count := old.skipped, old.lastAt, old.messages
		if reset {
			if err := forget(ctx, tx, f.Key); err != nil {
				return err
			}
			skipped, lastAt, count = transcript.Skipped{}, 0, 0
		}
		skipped.Add(c.Skipped)
		stored, err := s.storeMessages(ctx, tx, f, pst, c.Messages, &rep)
		if err != nil {
			return err
		}
		if err := storeOutcomes(ctx, tx, f.Key, c.Outcomes); err != nil {
			return err
		}
		for _, m := range stored {
			lastAt = max(lastAt, millis(m.Time))
		}
		count += len(stored)
		newOff := p.off + int64(c.Used)
		head, tail := p.sums(newOff)
		parser, err := json.Marshal(pst)
		if err != nil {
			return err
		}
		skippedJSON, err := json.Marshal(skipped)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO files (key, source, path, size, mtime, offset, head_sum, tail_sum, last_at, parser, skipped, messages, status, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok', '')
			ON CONFLICT (key) DO UPDATE SET source = excluded.source, path = excluded.path, size = excluded.size, mtime = excluded.mtime,
				offset = excluded.offset, head_sum = excluded.head_sum, tail_sum = excluded.tail_sum, last_at = excluded.last_at,
				parser = excluded.parser, skipped = excluded.skipped, messages = excluded.messages, status = 'ok', error = ''`,
			f.Key, f.Source, f.Path, size, mtime, newOff, head, tail, lastAt, string(parser), string(skippedJSON), count)
		if err != nil {
			return fmt.Errorf("store state of %s: %w", f.Key, err)
		}
		rep.Bytes = int64(c.Used)
		return nil
	})
	return ok, rep, err
}

// forget drops what is stored of a file before it is read again from the
// start, keeping the statuses of its closed conversations (see kept).
func forget(ctx context.Context, tx *sql.Tx, key string) error {
	for _, q := range []string{
		`INSERT OR REPLACE INTO kept (file, first_at, last_at, status, note) SELECT file, first_at, last_at, status, note FROM conversations WHERE file = ? AND closed = 1`,
		`DELETE FROM blocks_fts WHERE rowid IN (SELECT b.id FROM blocks b JOIN conversations c ON c.id = b.conversation WHERE c.file = ?)`,
		`DELETE FROM blocks WHERE conversation IN (SELECT id FROM conversations WHERE file = ?)`,
		`DELETE FROM messages WHERE file = ?`,
		`DELETE FROM outcomes WHERE file = ?`,
		`DELETE FROM conversations WHERE file = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, key); err != nil {
			return fmt.Errorf("forget %s: %w", key, err)
		}
	}
	return nil
}

// markError records why a file could not be read, for ctx0 ingest --json
// and for the hooks' log.
func (s *Store) markError(ctx context.Context, key string, e error) error {
	_, err := s.db.ExecContext(ctx, `UPDATE files SET status = 'error', error = ? WHERE key = ?`, e.Error(), key)
	return err
}
