package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctx0/ctx0/transcript"
)

// Status is where a conversation is in its life:
//
//	active → ready → queued → processing → archived
//	                                     → skipped
//
// active: messages arrived within the gap; ready: silent for the gap,
// waiting; queued: handed to the librarian (by a hook, a dump or --queue);
// processing: a librarian run has it; archived: filed into the vault;
// skipped: too short or insignificant to file.
type Status string

// The statuses of a conversation.
const (
	Active     Status = "active"
	Ready      Status = "ready"
	Queued     Status = "queued"
	Processing Status = "processing"
	Archived   Status = "archived"
	Skipped    Status = "skipped"
)

// Statuses lists every status in lifecycle order.
var Statuses = []Status{Active, Ready, Queued, Processing, Archived, Skipped}

// Conversation is a run of a session's messages with no silence longer
// than the gap.
type Conversation struct {
	ID      int64             `json:"id"`
	Source  transcript.Source `json:"source"`
	File    string            `json:"file"`
	Session string            `json:"session"`
	Project string            `json:"project"`
	CWD     string            `json:"cwd"`
	Status  Status            `json:"status"`
	// Note says why a conversation was skipped.
	Note         string    `json:"note,omitempty"`
	First        time.Time `json:"first_message_at"`
	Last         time.Time `json:"last_message_at"`
	Messages     int       `json:"messages"`
	UserMessages int       `json:"user_messages"`
	ToolCalls    int       `json:"tool_calls"`
}

// A conversation is open while its status follows from its messages and
// the clock (active, ready, or skipped by the significance filter): new
// messages within the gap extend it. It is closed once handed over (queued
// and after, or skipped when queued): later messages start a new one, so
// nothing the librarian has taken changes under it.

// conv is a conversation as ingest assigns messages to it.
type conv struct {
	Conversation
	saves  int
	closed bool
	dirty  bool
	// until is the end of the span a closed conversation had before its
	// file was read again: it takes its messages back though closed.
	until time.Time
}

// kept is the status and span a closed conversation had before its file
// was read again from the start, by the time of its first message: the
// same conversation, found again, keeps its status, so the librarian does
// not file it twice.
type kept struct {
	status Status
	note   string
	last   time.Time
}

const convColumns = `id, source, file, session, project, cwd, status, note, first_at, last_at, messages, user_messages, tool_calls, saves, closed`

func scanConv(sc interface{ Scan(...any) error }) (conv, error) {
	var c conv
	var first, last int64
	err := sc.Scan(&c.ID, &c.Source, &c.File, &c.Session, &c.Project, &c.CWD, &c.Status, &c.Note,
		&first, &last, &c.Messages, &c.UserMessages, &c.ToolCalls, &c.saves, &c.closed)
	c.First, c.Last = fromMillis(first), fromMillis(last)
	return c, err
}

// fileConvs are the conversations of a file, in time order.
func fileConvs(ctx context.Context, tx *sql.Tx, file string) ([]*conv, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+convColumns+` FROM conversations WHERE file = ? ORDER BY first_at, id`, file)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*conv
	for rows.Next() {
		c, err := scanConv(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, &c)
	}
	return out, rows.Err()
}

// assign finds each message's conversation among convs, taking the
// messages in time order: the conversation whose span holds it, else an
// open neighbour within the gap, else a new one. It returns the
// conversation of each message, by index, and the conversations.
func (s *Store) assign(f File, st transcript.State, convs []*conv, keep map[int64]kept, msgs []transcript.Message, byTime []int) ([]*conv, []*conv) {
	gap := s.cfg.Gap()
	of := make([]*conv, len(msgs))
	tools := map[*conv][]transcript.Tool{} // what each conversation's tools worked on
	for _, i := range byTime {
		m := msgs[i]
		var prev, next, in *conv
		for _, c := range convs {
			switch {
			case !m.Time.Before(c.First) && (!m.Time.After(c.Last) || !m.Time.After(c.until)):
				in = c
			case c.Last.Before(m.Time):
				if prev == nil || c.Last.After(prev.Last) {
					prev = c
				}
			case c.First.After(m.Time):
				if next == nil || c.First.Before(next.First) {
					next = c
				}
			}
		}
		c := in
		switch {
		case c != nil:
		case prev != nil && !prev.closed && m.Time.Sub(prev.Last) <= gap:
			c = prev
		case next != nil && !next.closed && next.First.Sub(m.Time) <= gap:
			c = next
		default:
			c = &conv{Conversation: Conversation{Source: f.Source, File: f.Key, Status: Active, Last: m.Time}}
			if k, ok := keep[millis(m.Time)]; ok {
				c.Status, c.Note, c.closed, c.until = k.status, k.note, true, k.last
			}
			convs = append(convs, c)
		}
		if c.Messages == 0 || m.Time.Before(c.First) {
			// A conversation is its first message's: session, folder,
			// project. Files are not always in time order.
			c.First, c.Session, c.CWD = m.Time, m.Session, m.CWD
			c.Project = f.Project
			if c.Project == "" {
				c.Project = s.project(m.CWD, st.Repo)
			}
		}
		if m.Time.After(c.Last) {
			c.Last = m.Time
		}
		c.Messages++
		if m.Role == transcript.User {
			c.UserMessages++
		}
		c.ToolCalls += len(m.Tools)
		tools[c] = append(tools[c], m.Tools...)
		c.saves += memorySaves(m.Tools)
		if !c.closed {
			// New words: whether it is over is for the clock to say again.
			c.Status, c.Note = Active, ""
		}
		c.dirty = true
		of[i] = c
	}
	for c, ts := range tools {
		if c.Project != "" || c.CWD != "" {
			continue
		}
		// No folder was given (Gemini CLI's legacy files record none):
		// the project is where the work happened, when the files read
		// and written all sit in one folder. Once set it stays, as a
		// conversation's folder does.
		if dir := WorkFolder(ts); dir != "" {
			c.Project = s.project(dir, "")
		}
	}
	return of, convs
}

// memorySaves counts the tool uses that saved a memory to ctx0: its MCP
// tool or its command line. An agent that saved on its own twice has
// filed what mattered, and the conversation is skipped.
func memorySaves(tools []transcript.Tool) int {
	n := 0
	for _, t := range tools {
		name := strings.ToLower(t.Name)
		switch {
		case strings.Contains(name, "ctx0") && (strings.Contains(name, "remember") || strings.Contains(name, "save")):
			n++
		case t.Kind == transcript.Command && (strings.HasPrefix(t.Target, "ctx0 remember") || strings.HasPrefix(t.Target, "ctx0 add")):
			n++
		}
	}
	return n
}

// saveConvs writes the conversations assign changed, giving new ones their
// id.
func (s *Store) saveConvs(ctx context.Context, tx *sql.Tx, convs []*conv) error {
	now := millis(s.now())
	for _, c := range convs {
		if !c.dirty {
			continue
		}
		if c.ID == 0 {
			res, err := tx.ExecContext(ctx, `INSERT INTO conversations (source, file, session, project, cwd, status, note, first_at, last_at, messages, user_messages, tool_calls, saves, closed, changed_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				c.Source, c.File, c.Session, c.Project, c.CWD, c.Status, c.Note, millis(c.First), millis(c.Last),
				c.Messages, c.UserMessages, c.ToolCalls, c.saves, c.closed, now)
			if err != nil {
				return fmt.Errorf("store conversation: %w", err)
			}
			if c.ID, err = res.LastInsertId(); err != nil {
				return err
			}
		} else {
			_, err := tx.ExecContext(ctx, `UPDATE conversations SET session = ?, project = ?, cwd = ?, status = ?, note = ?, first_at = ?, last_at = ?,
				messages = ?, user_messages = ?, tool_calls = ?, saves = ?, changed_at = CASE WHEN status = ? THEN changed_at ELSE ? END WHERE id = ?`,
				c.Session, c.Project, c.CWD, c.Status, c.Note, millis(c.First), millis(c.Last), c.Messages, c.UserMessages, c.ToolCalls, c.saves, c.Status, now, c.ID)
			if err != nil {
				return fmt.Errorf("update conversation %d: %w", c.ID, err)
			}
		}
		c.dirty = false
	}
	return nil
}

// skipReason is the SQL for why a finished conversation is not worth
// filing, or ”: too few user messages, or too little to be significant
// (fewer than 2 tool calls and fewer than 3 user messages, or an agent
// that already saved 2 memories itself).
const skipReason = `CASE
	WHEN user_messages = 0 AND :min > 0 THEN 'no user messages'
	WHEN user_messages < :min THEN 'fewer than ' || :min || ' user messages'
	WHEN tool_calls < 2 AND user_messages < 3 THEN 'trivial: fewer than 2 tool calls and 3 user messages'
	WHEN saves >= 2 THEN 'the agent saved ' || saves || ' memories itself'
	ELSE '' END`

// refresh lets the clock finish open conversations: an active one silent
// for the gap becomes ready, or skipped if it fails the significance
// filter. It returns the conversations it finished.
func (s *Store) refresh(ctx context.Context, tx *sql.Tx) ([]int64, error) {
	now := s.now()
	rows, err := tx.QueryContext(ctx, `UPDATE conversations SET
			status = CASE WHEN (`+skipReason+`) = '' THEN 'ready' ELSE 'skipped' END,
			note = `+skipReason+`, changed_at = :now
		WHERE closed = 0 AND status = 'active' AND last_at <= :cutoff
		RETURNING id`,
		sql.Named("min", s.cfg.MinUserMessages), sql.Named("now", millis(now)), sql.Named("cutoff", millis(now.Add(-s.cfg.Gap()))))
	if err != nil {
		return nil, fmt.Errorf("refresh conversations: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Refresh finishes the conversations that have been silent for the gap
// (the idle trigger) and returns them.
func (s *Store) Refresh(ctx context.Context) (finished []Conversation, err error) {
	var ids []int64
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		ids, err = s.refresh(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		c, err := s.Conversation(ctx, id)
		if err != nil {
			return nil, err
		}
		finished = append(finished, c)
	}
	return finished, nil
}

// Queue hands the finished conversations of the session file key to the
// librarian: ready ones become queued, or skipped if they fail the
// significance filter. With end (the session is over, or is about to be
// compacted) the active one is finished too. It returns how many were
// queued.
func (s *Store) Queue(ctx context.Context, key string, end bool) (n int, err error) {
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.refresh(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `UPDATE conversations SET
				status = CASE WHEN (`+skipReason+`) = '' THEN 'queued' ELSE 'skipped' END,
				note = `+skipReason+`, closed = 1, changed_at = :now
			WHERE file = :file AND closed = 0 AND (status != 'active' OR :end)
			RETURNING status`,
			sql.Named("min", s.cfg.MinUserMessages), sql.Named("now", millis(s.now())), sql.Named("file", key), sql.Named("end", end))
		if err != nil {
			return fmt.Errorf("queue conversations of %s: %w", key, err)
		}
		defer rows.Close()
		for rows.Next() {
			var st Status
			if err := rows.Scan(&st); err != nil {
				return err
			}
			if st == Queued {
				n++
			}
		}
		return rows.Err()
	})
	return n, err
}

// ErrNoConversation is returned for a conversation id that does not exist.
var ErrNoConversation = errors.New("no such conversation")

// Conversation returns the conversation id.
func (s *Store) Conversation(ctx context.Context, id int64) (Conversation, error) {
	c, err := scanConv(s.db.QueryRowContext(ctx, `SELECT `+convColumns+` FROM conversations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("conversation %d: %w", id, ErrNoConversation)
	}
	if err != nil {
		return Conversation{}, fmt.Errorf("read conversation %d: %w", id, err)
	}
	return c.Conversation, nil
}

// Conversations lists the conversations, oldest first, only those of
// status if it is not empty. It lets the clock finish silent ones first,
// so the list is current.
func (s *Store) Conversations(ctx context.Context, status Status) ([]Conversation, error) {
	if _, err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+convColumns+` FROM conversations WHERE ? = '' OR status = ? ORDER BY first_at, id`, status, status)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	list := []Conversation{}
	for rows.Next() {
		c, err := scanConv(rows)
		if err != nil {
			return nil, fmt.Errorf("list conversations: %w", err)
		}
		list = append(list, c.Conversation)
	}
	return list, rows.Err()
}

// Messages returns a conversation's messages in time order.
func (s *Store) Messages(ctx context.Context, id int64) ([]transcript.Message, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT pos, session, role, at, text, tools, cwd FROM messages WHERE conversation = ? ORDER BY at, id`, id)
	if err != nil {
		return nil, fmt.Errorf("read conversation %d: %w", id, err)
	}
	defer rows.Close()
	var msgs []transcript.Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("read conversation %d: %w", id, err)
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read conversation %d: %w", id, err)
	}
	outcomes, err := s.outcomes(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read conversation %d: %w", id, err)
	}
	transcript.Mark(msgs, outcomes)
	return msgs, nil
}

// outcomes are the stored outcomes of the tool uses of a conversation's
// file.
func (s *Store) outcomes(ctx context.Context, conversation int64) (map[string]transcript.Outcome, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT o.tool, o.outcome FROM outcomes o JOIN conversations c ON c.file = o.file WHERE c.id = ?`, conversation)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]transcript.Outcome{}
	for rows.Next() {
		var id string
		var o transcript.Outcome
		if err := rows.Scan(&id, &o); err != nil {
			return nil, err
		}
		out[id] = o
	}
	return out, rows.Err()
}

func scanMessage(sc interface{ Scan(...any) error }) (transcript.Message, error) {
	var m transcript.Message
	var at int64
	var tools string
	if err := sc.Scan(&m.Pos, &m.Session, &m.Role, &at, &m.Text, &tools, &m.CWD); err != nil {
		return m, err
	}
	m.Time = fromMillis(at)
	if tools != "" {
		if err := json.Unmarshal([]byte(tools), &m.Tools); err != nil {
			return m, fmt.Errorf("tools of message %d: %w", m.Pos, err)
		}
	}
	return m, nil
}
