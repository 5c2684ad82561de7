package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/transcript"
	"github.com/ctx0/ctx0/vault/entry"
)

// blockSize is how many consecutive messages of a conversation one search
// block holds: enough for a question, its answer and what was done about it.
const blockSize = 5

// storeMessages redacts msgs, drops those already stored, assigns the rest
// to conversations and search blocks and stores them, all in tx. It
// returns the messages it stored.
func (s *Store) storeMessages(ctx context.Context, tx *sql.Tx, f File, st transcript.State, msgs []transcript.Message, rep *Report) ([]transcript.Message, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	fresh, err := unstored(ctx, tx, f.Key, msgs)
	if err != nil {
		return nil, err
	}
	for i := range fresh {
		redactMessage(&fresh[i])
	}
	convs, err := fileConvs(ctx, tx, f.Key)
	if err != nil {
		return nil, err
	}
	keep, err := keptStatuses(ctx, tx, f.Key, convs)
	if err != nil {
		return nil, err
	}
	byTime := make([]int, len(fresh))
	for i := range byTime {
		byTime[i] = i
	}
	// Files are not in time order everywhere (see the Claude Code
	// testdata's SOURCES.md): split on gaps in time order.
	sort.SliceStable(byTime, func(a, b int) bool { return fresh[byTime[a]].Time.Before(fresh[byTime[b]].Time) })
	before := len(convs)
	of, convs := s.assign(f, st, convs, keep, fresh, byTime)
	rep.Conversations += len(convs) - before
	if err := s.saveConvs(ctx, tx, convs); err != nil {
		return nil, err
	}
	blocks := newBlocks(tx)
	ins, err := tx.PrepareContext(ctx, `INSERT INTO messages (file, pos, conversation, block, session, role, at, text, tools, cwd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	for i, m := range fresh {
		b, err := blocks.add(ctx, of[i].ID, m)
		if err != nil {
			return nil, err
		}
		tools := ""
		if len(m.Tools) > 0 {
			j, err := json.Marshal(m.Tools)
			if err != nil {
				return nil, err
			}
			tools = string(j)
		}
		if _, err := ins.ExecContext(ctx, f.Key, m.Pos, of[i].ID, b, m.Session, m.Role, millis(m.Time), m.Text, tools, m.CWD); err != nil {
			return nil, fmt.Errorf("store message %d of %s: %w", m.Pos, f.Key, err)
		}
	}
	if err := blocks.flush(ctx); err != nil {
		return nil, err
	}
	rep.Messages += len(fresh)
	return fresh, nil
}

// storeOutcomes stores what a chunk's tool results said, in tx. A result
// read again (a file read from the start) says the same: the last one wins.
func storeOutcomes(ctx context.Context, tx *sql.Tx, key string, outcomes map[string]transcript.Outcome) error {
	for id, o := range outcomes {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO outcomes (file, tool, outcome) VALUES (?, ?, ?)`, key, id, o); err != nil {
			return fmt.Errorf("store outcome of tool %s of %s: %w", id, key, err)
		}
	}
	return nil
}

// unstored are the messages whose position is not stored yet for the
// file, each position once. Within a JSONL file's chunk none is; a session
// log dumped again repeats what it already handed over.
func unstored(ctx context.Context, tx *sql.Tx, key string, msgs []transcript.Message) ([]transcript.Message, error) {
	q, err := tx.PrepareContext(ctx, `SELECT count(*) FROM messages WHERE file = ? AND pos = ?`)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	seen := map[int64]bool{}
	var out []transcript.Message
	for _, m := range msgs {
		if seen[m.Pos] {
			continue
		}
		seen[m.Pos] = true
		var n int
		if err := q.QueryRowContext(ctx, key, m.Pos).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			out = append(out, m)
		}
	}
	return out, nil
}

// redactMessage replaces the secrets in what a message says and in its
// tools' targets (a command line can hold a token), then caps each at
// MaxMessage. Redacting comes first: a cut through a secret would leave
// a piece of it that no longer has its shape.
func redactMessage(m *transcript.Message) {
	m.Text = capText(redact.String(m.Text))
	if len(m.Tools) == 0 {
		return
	}
	tools := make([]transcript.Tool, len(m.Tools))
	for i, t := range m.Tools {
		t.Target = capText(redact.String(t.Target))
		tools[i] = t
	}
	m.Tools = tools
}

// MaxMessage is the most of a message's text, in bytes, that the ingest
// state keeps: the limit of an entry file, since a message is read to
// make entries and the librarian's prompts quote it cut far shorter. A
// pasted log or file of tens of megabytes would otherwise be stored, and
// indexed, whole.
const MaxMessage = entry.MaxSize

// capText cuts the middle out of s when it is over MaxMessage, keeping
// its start and its end (where a question and a conclusion usually are),
// and says in its place how much was cut.
func capText(s string) string {
	if len(s) <= MaxMessage {
		return s
	}
	keep := MaxMessage - 200 // room for the note
	head := keep * 3 / 4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (keep - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s\n[… ctx0 cut %d of this message's %d bytes here: a message keeps at most %d …]\n%s",
		s[:head], tail-head, len(s), MaxMessage, s[tail:])
}

// keptStatuses reads the kept statuses of a file's conversations, and gives
// back their spans to the closed conversations found again.
func keptStatuses(ctx context.Context, tx *sql.Tx, key string, convs []*conv) (map[int64]kept, error) {
	rows, err := tx.QueryContext(ctx, `SELECT first_at, last_at, status, note FROM kept WHERE file = ?`, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keep := map[int64]kept{}
	for rows.Next() {
		var first, last int64
		var k kept
		if err := rows.Scan(&first, &last, &k.status, &k.note); err != nil {
			return nil, err
		}
		k.last = fromMillis(last)
		keep[first] = k
	}
	for _, c := range convs {
		if k, ok := keep[millis(c.First)]; ok && c.closed {
			c.until = k.last
		}
	}
	return keep, rows.Err()
}

// block is a search block being filled.
type block struct {
	id    int64
	count int
	text  strings.Builder
	isNew bool
	dirty bool
}

// blocks fills the open search block of each conversation, starting new
// ones as they fill, and writes them to the index once per chunk.
type blocks struct {
	tx    *sql.Tx
	open  map[int64]*block
	dirty []*block
}

func newBlocks(tx *sql.Tx) *blocks { return &blocks{tx: tx, open: map[int64]*block{}} }

// add puts m into its conversation's open block and returns the block's id.
func (bs *blocks) add(ctx context.Context, conversation int64, m transcript.Message) (int64, error) {
	b := bs.open[conversation]
	if b == nil {
		var err error
		if b, err = bs.last(ctx, conversation); err != nil {
			return 0, err
		}
	}
	if b == nil || b.count >= blockSize {
		res, err := bs.tx.ExecContext(ctx, `INSERT INTO blocks (conversation, count) VALUES (?, 0)`, conversation)
		if err != nil {
			return 0, fmt.Errorf("store search block: %w", err)
		}
		b = &block{isNew: true}
		if b.id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	}
	bs.open[conversation] = b
	if !b.dirty {
		b.dirty = true
		bs.dirty = append(bs.dirty, b)
	}
	b.count++
	writeBlockText(&b.text, m)
	return b.id, nil
}

// last is the conversation's newest block, or nil.
func (bs *blocks) last(ctx context.Context, conversation int64) (*block, error) {
	var text string
	b := &block{}
	err := bs.tx.QueryRowContext(ctx, `SELECT b.id, b.count, f.text FROM blocks b JOIN blocks_fts f ON f.rowid = b.id
		WHERE b.conversation = ? ORDER BY b.id DESC LIMIT 1`, conversation).Scan(&b.id, &b.count, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read search block: %w", err)
	}
	b.text.WriteString(query.Unsegment(text))
	return b, nil
}

// writeBlockText adds a message to a block's text the way it reads in a
// transcript, so a search snippet shows who said it.
func writeBlockText(w *strings.Builder, m transcript.Message) {
	if m.Role == transcript.User {
		w.WriteString("User: ")
	} else {
		w.WriteString("Assistant: ")
	}
	w.WriteString(m.Text)
	for _, t := range m.Tools {
		w.WriteString("\n→ " + t.Name + " " + t.Target)
	}
	w.WriteString("\n\n")
}

// flush writes the blocks that changed.
func (bs *blocks) flush(ctx context.Context) error {
	for _, b := range bs.dirty {
		if _, err := bs.tx.ExecContext(ctx, `UPDATE blocks SET count = ? WHERE id = ?`, b.count, b.id); err != nil {
			return fmt.Errorf("store search block: %w", err)
		}
		q := `UPDATE blocks_fts SET text = ? WHERE rowid = ?`
		if b.isNew {
			q = `INSERT INTO blocks_fts (text, rowid) VALUES (?, ?)`
		}
		if _, err := bs.tx.ExecContext(ctx, q, query.Segment(b.text.String()), b.id); err != nil {
			return fmt.Errorf("index search block: %w", err)
		}
	}
	return nil
}
