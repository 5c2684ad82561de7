package sessions

import (
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// Ref names a conversation in the vault (see vault.ConversationRef): the
// agent's session id and the time of the conversation's first message. It
// is the same wherever and however often the session is ingested, which is
// what makes filing a conversation twice detectable, and what ties a filed
// entry to the passages of its conversation that a search of past
// sessions finds.
func Ref(session string, first time.Time) string { return vault.ConversationRef(session, first) }

// Ref is the conversation's Ref.
func (c Conversation) Ref() string { return Ref(c.Session, c.First) }

// ParseRef reads a Ref: the session id and the time of the first message
// (see vault.ParseConversationRef, the one parser of refs).
func ParseRef(s string) (session string, first time.Time, ok bool) {
	return vault.ParseConversationRef(s)
}

// RefField is the frontmatter field that ties an entry the librarian
// filed to the Ref of its conversation.
const RefField = vault.FieldConversation

// markerPrefix starts the line of an episode section that names its
// conversation: "Conversation: `REF`", then what the section says of it.
const markerPrefix = "Conversation: `"

// Marker is the line of an episode section that names the conversation
// ref, by which a conversation already filed is recognized.
func Marker(ref string) string { return markerPrefix + ref + "`" }

// MarkerRef returns the ref a line names, if it is a Marker line.
func MarkerRef(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), markerPrefix)
	if !ok {
		return "", false
	}
	ref, _, ok := strings.Cut(rest, "`")
	return ref, ok && ref != ""
}
