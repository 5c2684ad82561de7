package librarian

import (
	"github.com/ctx0/ctx0/sessions"
)

// ConversationRef names a conversation in the vault (see sessions.Ref).
func ConversationRef(c sessions.Conversation) string { return c.Ref() }
