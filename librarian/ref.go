package librarian

import (
	"github.com/ctx0/ctx0/librarian/ingest"
)

// ConversationRef names a conversation in the vault (see ingest.Ref).
func ConversationRef(c ingest.Conversation) string { return c.Ref() }
