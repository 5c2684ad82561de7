package sessions

import (
	"errors"
	"testing"
)

func TestConversationByRef(t *testing.T) {
	s, _ := testStore(t)
	ingest(t, s, publishedFiles(t), Options{})
	list, err := s.Conversations(t.Context(), "")
	if err != nil || len(list) < 2 {
		t.Fatalf("conversations: %d, %v", len(list), err)
	}
	for _, c := range list {
		got, err := s.ConversationByRef(t.Context(), c.Ref())
		if err != nil {
			t.Fatalf("ConversationByRef(%s): %v", c.Ref(), err)
		}
		if got.ID != c.ID {
			t.Errorf("ConversationByRef(%s) = conversation %d, want %d", c.Ref(), got.ID, c.ID)
		}
	}
	for _, ref := range []string{"", "no-time", list[0].Session + "@2001-01-01T00:00:00Z", "nobody@" + list[0].First.UTC().Format("2006-01-02T15:04:05Z07:00")} {
		if _, err := s.ConversationByRef(t.Context(), ref); !errors.Is(err, ErrNoConversation) {
			t.Errorf("ConversationByRef(%q) = %v, want ErrNoConversation", ref, err)
		}
	}
}
