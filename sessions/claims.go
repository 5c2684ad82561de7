package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ctx0/ctx0/internal/filelock"
)

// Claim is a conversation a librarian run is processing. While the run
// lives it holds a lock file, which is how another process tells a live
// run from a dead one.
type Claim struct {
	Conversation
	lock *filelock.Lock
}

// ErrNoWork is returned by Claim when no conversation is queued, and by
// ClaimFinished when none is ready or queued.
var ErrNoWork = errors.New("no conversation to file")

// tryClaimLock takes the lock of conversation id's claim, if no live run
// holds it.
func (s *Store) tryClaimLock(id int64) (*filelock.Lock, bool, error) {
	return filelock.TryExclusive(filepath.Join(s.dir, "claims", strconv.FormatInt(id, 10)+".lock"))
}

// Claim takes the oldest queued conversation for processing. The caller
// must Finish it; if the process dies first, the next Open puts it back in
// the queue.
func (s *Store) Claim(ctx context.Context) (c *Claim, err error) {
	return s.claim(ctx, `SELECT id FROM conversations WHERE status = 'queued' ORDER BY last_at, id LIMIT 1`)
}

// ClaimFinished takes the oldest finished conversation, ready or queued,
// for processing, as Claim does: what a person who asks the librarian to
// run wants filed, whether or not something queued it.
func (s *Store) ClaimFinished(ctx context.Context) (c *Claim, err error) {
	return s.claim(ctx, `SELECT id FROM conversations WHERE status IN ('ready', 'queued') ORDER BY last_at, id LIMIT 1`)
}

// ClaimID takes the conversation id for processing, as Claim does, if it
// is ready or queued; ErrNoWork if it is not (any more).
func (s *Store) ClaimID(ctx context.Context, id int64) (c *Claim, err error) {
	return s.claim(ctx, `SELECT id FROM conversations WHERE status IN ('ready', 'queued') AND id = ?`, id)
}

// claim takes the queued conversation that query selects.
func (s *Store) claim(ctx context.Context, query string, args ...any) (c *Claim, err error) {
	var id int64
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, query, args...).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoWork
		}
		if err != nil {
			return err
		}
		// Lock before the row says processing, so a processing row without
		// a held lock means a dead run.
		lock, ok, err := s.tryClaimLock(id)
		if err != nil || !ok {
			return fmt.Errorf("lock conversation %d: held by another run (%v)", id, err)
		}
		c = &Claim{lock: lock}
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET status = 'processing', changed_at = ? WHERE id = ?`, millis(s.now()), id)
		return err
	})
	if err != nil {
		if c != nil {
			c.release()
		}
		if errors.Is(err, ErrNoWork) {
			return nil, err
		}
		return nil, fmt.Errorf("claim conversation: %w", err)
	}
	conv, err := s.Conversation(ctx, id)
	if err != nil {
		c.release()
		return nil, err
	}
	c.Conversation = conv
	return c, nil
}

func (c *Claim) release() {
	_ = os.Remove(c.lock.Path())
	_ = c.lock.Unlock()
}

// Finish ends a claim: status is Archived once filed, Skipped if there was
// nothing worth filing (note says why), or Queued to give it back.
func (s *Store) Finish(ctx context.Context, c *Claim, status Status, note string) error {
	switch status {
	case Archived, Skipped, Queued:
	default:
		return fmt.Errorf("finish conversation %d: status %q: want archived, skipped or queued", c.ID, status)
	}
	_, err := s.db.ExecContext(ctx, `UPDATE conversations SET status = ?, note = ?, changed_at = ? WHERE id = ? AND status = 'processing'`,
		status, note, millis(s.now()), c.ID)
	if err != nil {
		return fmt.Errorf("finish conversation %d: %w", c.ID, err)
	}
	c.release()
	return nil
}

// recoverClaims puts conversations whose run died back in the queue, so a
// crash loses no conversation: the next run files it.
func (s *Store) recoverClaims(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM conversations WHERE status = 'processing'`)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		lock, ok, err := s.tryClaimLock(id)
		if err != nil || !ok {
			continue // its run is alive
		}
		_, err = s.db.ExecContext(ctx, `UPDATE conversations SET status = 'queued', changed_at = ? WHERE id = ? AND status = 'processing'`, millis(s.now()), id)
		(&Claim{lock: lock}).release()
		if err != nil {
			return fmt.Errorf("requeue conversation %d: %w", id, err)
		}
	}
	return nil
}
