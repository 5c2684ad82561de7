package sessions

import (
	"context"
	"fmt"
)

// ConversationByRef returns the conversation whose Ref is ref: the one an
// entry the librarian filed names in its conversation field. Unlike an
// id, a Ref means the same conversation on every machine; one that was
// not ingested here is ErrNoConversation.
func (s *Store) ConversationByRef(ctx context.Context, ref string) (Conversation, error) {
	session, _, ok := ParseRef(ref)
	if !ok {
		return Conversation{}, fmt.Errorf("conversation %q: want SESSION@TIME: %w", ref, ErrNoConversation)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+convColumns+` FROM conversations WHERE session = ? ORDER BY first_at, id`, session)
	if err != nil {
		return Conversation{}, fmt.Errorf("find conversation %s: %w", ref, err)
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanConv(rows)
		if err != nil {
			return Conversation{}, fmt.Errorf("find conversation %s: %w", ref, err)
		}
		if c.Ref() == ref {
			return c.Conversation, nil
		}
	}
	if err := rows.Err(); err != nil {
		return Conversation{}, fmt.Errorf("find conversation %s: %w", ref, err)
	}
	return Conversation{}, fmt.Errorf("conversation %s: %w", ref, ErrNoConversation)
}
