package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/words"
)

// Waiting is a conversation the librarian cannot file yet, because it is
// still active: the gap has not passed since its last message.
type Waiting struct {
	Conversation Conversation `json:"conversation"`
	// ReadyIn is how long until the gap has passed and it is finished.
	ReadyIn time.Duration `json:"ready_in"`
	// Path is the session file it was read from; empty for one a hook or
	// ctx0 dump handed over, which its session's end queues.
	Path string `json:"path,omitempty"`
}

// Waiting lists the active conversations, oldest first, each with the
// time left before it is finished by itself.
func (s *Store) Waiting(ctx context.Context) ([]Waiting, error) {
	active, err := s.Conversations(ctx, Active)
	if err != nil {
		return nil, err
	}
	list := make([]Waiting, 0, len(active))
	for _, c := range active {
		w, err := s.Wait(ctx, c)
		if err != nil {
			return nil, err
		}
		list = append(list, w)
	}
	return list, nil
}

// Wait says how long the active conversation c has left before the gap
// has passed since its last message.
func (s *Store) Wait(ctx context.Context, c Conversation) (Waiting, error) {
	w := Waiting{Conversation: c, ReadyIn: max(0, c.Last.Add(s.cfg.Gap()).Sub(s.now()))}
	err := s.db.QueryRowContext(ctx, `SELECT path FROM files WHERE key = ?`, c.File).Scan(&w.Path)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return w, fmt.Errorf("read session file of conversation %d: %w", c.ID, err)
	}
	return w, nil
}

// Why says, for a person, why the conversation is not filed yet and what
// files it now.
func (w Waiting) Why() string {
	c := w.Conversation
	var b strings.Builder
	fmt.Fprintf(&b, "conversation %d (%s) is still active: it is finished once silent for the gap, in %s",
		c.ID, c.Source, words.Duration(w.ReadyIn))
	if !c.Source.Timed() {
		fmt.Fprintf(&b, " (%s transcripts record no times: its messages are dated when ctx0 read the file)", c.Source)
	}
	if w.Path == "" {
		b.WriteString("; its session's end files it")
		return b.String()
	}
	fmt.Fprintf(&b, "; to file it now: ctx0 ingest %s --end && ctx0 librarian run --conversation %d", shellWord(w.Path), c.ID)
	return b.String()
}

// shellWord quotes s for a POSIX shell when it holds more than plain path
// characters.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=~") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
