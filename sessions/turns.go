package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/transcript"
)

// turnsPassage quotes a hit by the conversation's own turns: the message
// of its block that holds the most of the query, then up to follow turns
// that carry it on (see follow): the reply to a user's message, which is where
// a question's answer is said, and the assistant's next words after its
// own ("Port 8080 is in use. Let me find what's using it:" is answered by
// "There's already a node process on 8080"). Each turn is labelled with
// its speaker as the transcript has it, and a turn longer than its share
// of n tokens is cut at sentence bounds around the query's words; what a
// turn leaves of its share goes to the turns after it, in order. The
// hit's time and speaker become those of the matched turn.
func (s *Store) turnsPassage(ctx context.Context, block int64, marker *query.Marker, n, follow int, h *Hit) error {
	rows, err := s.db.QueryContext(ctx, `SELECT `+turnColumns+` FROM messages WHERE block = ? ORDER BY id`, block)
	if err != nil {
		return fmt.Errorf("read search block %d: %w", block, err)
	}
	var best turn
	held := -1
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			rows.Close()
			return fmt.Errorf("read search block %d: %w", block, err)
		}
		if c := marker.Cover(query.Segment(t.text)).Held; t.text != "" && c > held {
			best, held = t, c
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read search block %d: %w", block, err)
	}
	if held < 0 {
		h.Snippet = string(h.Speaker) + ": " + h.Snippet
		return nil
	}
	h.Time, h.Speaker = fromMillis(best.at), best.role
	next, err := s.follow(ctx, h.Conversation, best)
	if err != nil {
		return err
	}
	// A question the last of them asks is quoted with its answer.
	for follow < len(next) && next[follow].role == transcript.User && asks(next[follow-1].text) {
		follow++
	}
	next = next[:min(len(next), follow)]
	var last *turn
	if follow > 1 {
		// The exchange's last words, when it goes on past the turns
		// quoted: an agent's summary of what it did ("Done. Here's
		// what landed: … PR #38") after many steps.
		if last, err = s.conclusion(ctx, h.Conversation, best); err != nil {
			return err
		}
		if last != nil && (len(next) == 0 || last.id <= next[len(next)-1].id || strings.HasSuffix(next[len(next)-1].text, last.text)) {
			last = nil
		}
	}
	share := n
	if len(next) > 0 {
		share = n / 2
		if best.role == transcript.User {
			share = n * 2 / 5 // the question asked is shorter than its answer
		}
	}
	first := cutAround(best.text, marker, share)
	text := string(best.role) + ": " + first
	left := n - min(share, count(first))
	end := 0 // what is kept for the exchange's last words
	if last != nil {
		end = left / 2
		left -= end
	}
	for i, t := range next {
		if left < minTurn {
			break
		}
		room := left
		if i+1 < len(next) {
			room = left / 2 // a long turn does not crowd out the ones after it
		}
		q := cutAround(t.text, marker, room)
		text += "\n" + string(t.role) + ": " + q
		left -= count(q)
	}
	if last != nil {
		text += "\n" + string(last.role) + ": " + cutAround(last.text, marker, end+left)
	}
	h.Snippet = text
	return nil
}

// after returns the messages of conversation that come after t, in order,
// at most limit of them.
func (s *Store) after(ctx context.Context, conversation int64, t turn, limit int) (*sql.Rows, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+turnColumns+` FROM messages
		WHERE conversation = ? AND (at > ? OR at = ? AND id > ?) ORDER BY at, id LIMIT ?`,
		conversation, t.at, t.at, t.id, limit)
	if err != nil {
		return nil, fmt.Errorf("read conversation %d: %w", conversation, err)
	}
	return rows, nil
}

// conclusionLimit bounds how many messages conclusion looks at past a
// turn.
const conclusionLimit = 200

// conclusion returns the last message the assistant says something in
// after t before the user speaks again (after a user's message, once the
// assistant replied), within conclusionLimit messages; nil if none.
func (s *Store) conclusion(ctx context.Context, conversation int64, t turn) (*turn, error) {
	rows, err := s.after(ctx, conversation, t, conclusionLimit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var last *turn
	for rows.Next() {
		r, err := scanTurn(rows)
		if err != nil {
			return nil, fmt.Errorf("read conversation %d: %w", conversation, err)
		}
		switch {
		case r.role == transcript.User && r.says && (last != nil || t.role != transcript.User):
			return last, nil
		case r.role == transcript.Assistant && r.says:
			last = &r
		}
	}
	return last, rows.Err()
}

// minTurn is the least share of a passage, in tokens, worth quoting a
// turn in.
const minTurn = 8

// followLimit bounds how many messages follow looks at past a turn.
const followLimit = 12

// follow returns the turns that carry t on, in order, within followLimit
// messages: the assistant's messages that say something (not tool calls
// alone), each with the tool calls made on the way before it, which are
// what was done ("→ Bash mix phx.server" before "Phoenix server is
// starting"), until the user speaks. After a user's message, the user's
// further messages before the assistant says anything are passed over (a
// question said again after tool calls that answered nothing, or its
// rest). A user's message that answers a question the assistant asked
// ("Which option?" / "B") is quoted too, and what follows it. Tool calls
// made last, with nothing said after them, are a turn of their own.
func (s *Store) follow(ctx context.Context, conversation int64, t turn) ([]turn, error) {
	rows, err := s.after(ctx, conversation, t, followLimit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []turn
	var done *turn // the tool calls made on the way
	last, replied := t, t.role != transcript.User
	for rows.Next() {
		r, err := scanTurn(rows)
		if err != nil {
			return nil, fmt.Errorf("read conversation %d: %w", conversation, err)
		}
		switch {
		case r.text == "":
			continue
		case r.role == transcript.User && !replied:
			continue
		case r.role == transcript.User && !asks(last.text):
			if done != nil {
				out = append(out, *done)
			}
			return out, nil
		case r.role == transcript.User:
			if done != nil {
				out = append(out, *done)
				done = nil
			}
			out = append(out, r)
			last, replied = r, false
			continue
		case !r.says:
			if done == nil {
				done = &r
			} else {
				done.text += "\n" + r.text
			}
			continue
		}
		if done != nil {
			r.text = done.text + "\n" + r.text
			done = nil
		}
		out = append(out, r)
		last, replied = r, true
	}
	if done != nil {
		out = append(out, *done)
	}
	return out, rows.Err()
}

// asks reports whether text asks a question: one of its sentences ends
// with a question mark.
func asks(text string) bool {
	return slices.ContainsFunc(sentences(text), func(s string) bool { return strings.HasSuffix(s, "?") })
}

// turn is a message as a passage quotes it: its text, then its tool
// calls ("→ Bash npm start"), as the search block holds them.
type turn struct {
	id   int64
	role transcript.Role
	at   int64
	text string
	says bool // it has text of its own, besides tool calls
}

const turnColumns = `id, role, at, text, tools`

func scanTurn(sc interface{ Scan(...any) error }) (turn, error) {
	var t turn
	var tools string
	if err := sc.Scan(&t.id, &t.role, &t.at, &t.text, &tools); err != nil {
		return t, err
	}
	t.says = strings.TrimSpace(t.text) != ""
	if tools != "" {
		var ts []transcript.Tool
		if err := json.Unmarshal([]byte(tools), &ts); err != nil {
			return t, fmt.Errorf("tools of message %d: %w", t.id, err)
		}
		for _, x := range ts {
			t.text += "\n→ " + x.Name + " " + x.Target
		}
	}
	t.text = strings.TrimSpace(t.text)
	return t, nil
}

// cutAround returns text on one line if it has at most n tokens (counted
// as words.Count does), else the run of its whole sentences of at most n
// tokens that holds the most of the query, with "…" where it was cut. A
// run starts at a sentence that holds some of the query, so that what is
// said after the matched words, where an answer is, comes with them ("…
// Tests: `pytest -q` → 4 passed."); the earliest of equal runs is taken,
// and a run that reaches the end grows back while it fits.
func cutAround(text string, marker *query.Marker, n int) string {
	if one := words.OneLine(text); count(one) <= n {
		return one
	}
	ss := sentences(text)
	sizes := make([]int, len(ss))
	for i, s := range ss {
		sizes[i] = count(s)
	}
	from, to, held := 0, 1, -1
	for i := range ss {
		if i > 0 && marker.Cover(query.Segment(ss[i])).Held == 0 {
			continue
		}
		j, used := i+1, sizes[i]
		for j < len(ss) && used+sizes[j] <= n {
			used += sizes[j]
			j++
		}
		if c := marker.Cover(query.Segment(strings.Join(ss[i:j], " "))).Held; c > held {
			from, to, held = i, j, c
		}
	}
	used := 0
	for _, z := range sizes[from:to] {
		used += z
	}
	for from > 0 && used+sizes[from-1] <= n {
		from--
		used += sizes[from]
	}
	out, cut := strings.Join(ss[from:to], " "), to < len(ss)
	if count(out) > n {
		// One sentence longer than n: as many of its words as fit.
		f := strings.Fields(out)
		for len(f) > 1 && count(strings.Join(f, " ")) > n {
			f = f[:len(f)*3/4]
		}
		out, cut = strings.Join(f, " "), true
		for r := []rune(out); len(r) > 1 && count(out) > n; {
			// One word longer than n (a path, a URL): as much of it.
			r = r[:len(r)*3/4]
			out = string(r)
		}
	}
	if from > 0 {
		out = "…" + out
	}
	if cut {
		out += "…"
	}
	return out
}

// count is the number of tokens of s as a snippet counts them: its words.
func count(s string) int { return len(words.Tokens(s)) }

// sentences cuts text after each ., ! or ? followed by a space and not
// by a word in lower case ("PYTHONPATH=. pytest" is one sentence), and at
// each line break (a list item or a line of a summary is said apart from
// the next though it ends without a stop), each sentence on one line.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = words.OneLine(line)
		start := 0
		for i := 0; i+1 < len(line); i++ {
			if (line[i] == '.' || line[i] == '!' || line[i] == '?') && line[i+1] == ' ' && !lowerNext(line[i+2:]) {
				out = append(out, line[start:i+1])
				start = i + 2
			}
		}
		if start < len(line) {
			out = append(out, line[start:])
		}
	}
	return out
}

// lowerNext reports whether s starts with a lower-case letter.
func lowerNext(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}
