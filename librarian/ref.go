package librarian

import (
	"time"

	"github.com/ctx0/ctx0/librarian/ingest"
)

// ConversationRef names a conversation in the vault, in the conversation
// field of what the librarian files and in its episode section: the
// agent's session id and the time of the conversation's first message.
// Unlike the ingest state's ids, which are local to a machine and change
// when a file is read again from the start, it is the same wherever and
// however often the session is ingested, which is what makes filing a
// conversation twice detectable.
func ConversationRef(c ingest.Conversation) string {
	return c.Session + "@" + c.First.UTC().Format(time.RFC3339)
}
