package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/transcript"
)

// turnsPassage quotes a hit by the conversation's own turns: the message
// of its block that holds the most of the query, and, when that is the
// user's, the reply that follows it, which is where a question's answer is
// said. Each turn is labelled with its speaker as the transcript has it,
// and a turn longer than its share of n tokens is cut at sentence bounds
// around the query's words. The hit's time and speaker become those of
// the quoted turn.
func (s *Store) turnsPassage(ctx context.Context, block int64, marker *query.Marker, n int, h *Hit) error {
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
	var reply *turn
	if best.role == transcript.User {
		r, err := scanTurn(s.db.QueryRowContext(ctx, `SELECT `+turnColumns+` FROM messages
			WHERE conversation = ? AND (at > ? OR at = ? AND id > ?) ORDER BY at, id LIMIT 1`,
			h.Conversation, best.at, best.at, best.id))
		if err == nil && r.role != transcript.User && r.text != "" {
			reply = &r
		}
	}
	share := n
	if reply != nil {
		share = n * 2 / 5 // the question asked is shorter than its answer
	}
	text := string(best.role) + ": " + cutAround(best.text, marker, share)
	if reply != nil {
		text += "\n" + string(reply.role) + ": " + cutAround(reply.text, marker, n-share)
	}
	h.Snippet = text
	return nil
}

// turn is a message as a passage quotes it: its text, then its tool
// calls ("→ Bash npm start"), as the search block holds them.
type turn struct {
	id   int64
	role transcript.Role
	at   int64
	text string
}

const turnColumns = `id, role, at, text, tools`

func scanTurn(sc interface{ Scan(...any) error }) (turn, error) {
	var t turn
	var tools string
	if err := sc.Scan(&t.id, &t.role, &t.at, &t.text, &tools); err != nil {
		return t, err
	}
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
// tokens around the sentence that holds the most of the query, with "…"
// where it was cut.
func cutAround(text string, marker *query.Marker, n int) string {
	text = words.OneLine(text)
	if count(text) <= n {
		return text
	}
	ss := sentences(text)
	at, held := 0, -1
	for i, s := range ss {
		if c := marker.Cover(query.Segment(s)).Held; c > held {
			at, held = i, c
		}
	}
	from, to := at, at+1
	used := count(ss[at])
	for grew := true; grew; {
		grew = false
		if to < len(ss) && used+count(ss[to]) <= n {
			used += count(ss[to])
			to++
			grew = true
		}
		if from > 0 && used+count(ss[from-1]) <= n {
			from--
			used += count(ss[from])
			grew = true
		}
	}
	out, cut := strings.Join(ss[from:to], " "), to < len(ss)
	if count(out) > n {
		// One sentence longer than n: as many of its words as fit.
		f := strings.Fields(out)
		for len(f) > 1 && count(strings.Join(f, " ")) > n {
			f = f[:len(f)*3/4]
		}
		out, cut = strings.Join(f, " "), true
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

// sentences cuts text (on one line) after each ., ! or ? followed by a
// space.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(text); i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && text[i+1] == ' ' {
			out = append(out, text[start:i+1])
			start = i + 2
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
