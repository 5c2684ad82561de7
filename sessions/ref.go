package sessions

import (
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// Ref names a conversation in the vault, in the conversation field of what
// the librarian files and in the marker line of its episode section: the
// agent's session id and the time of the conversation's first message.
// Unlike the ingest state's ids, which are local to a machine and change
// when a file is read again from the start, it is the same wherever and
// however often the session is ingested, which is what makes filing a
// conversation twice detectable, and what ties a filed entry to the
// passages of its conversation that a search of past sessions finds.
func Ref(session string, first time.Time) string {
	return session + "@" + first.UTC().Format(time.RFC3339)
}

// Ref is the conversation's Ref.
func (c Conversation) Ref() string { return Ref(c.Session, c.First) }

// ParseRef reads a Ref: the session id and the time of the first message.
// A session id may hold '@' itself; the time is after the last one.
func ParseRef(s string) (session string, first time.Time, ok bool) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return "", time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s[i+1:])
	if err != nil {
		return "", time.Time{}, false
	}
	return s[:i], t, true
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
