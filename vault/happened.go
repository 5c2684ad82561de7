package vault

import (
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault/entry"
)

// ConversationRef names a conversation in the vault, in the conversation
// field of what the librarian files and in the marker line of its episode
// section: the agent's session id and the time of the conversation's first
// message, "SESSION@2025-10-21T20:04:00Z". Unlike the ingest state's ids,
// which are local to a machine, it is the same wherever and however often
// the session is ingested.
func ConversationRef(session string, first time.Time) string {
	return session + "@" + first.UTC().Format(time.RFC3339)
}

// ParseConversationRef reads a ConversationRef: the session id and the
// time of the first message. A session id may hold '@' itself; the time
// is after the last one.
func ParseConversationRef(s string) (session string, first time.Time, ok bool) {
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

// Happened is when what the entry name tells happened, the one date every
// command filters, sorts and shows an entry by: the start of the
// conversation its conversation field names (a fact filed today from a
// session of months ago happened then), else the date its name is filed
// under (episodes/2026-01/2026-01-28; at the time of day it was updated
// or created if that was on the day), else when it was last updated,
// else created. Zero when the entry says none of these. An episode that
// gathers several conversations tells of each under its own heading;
// readers that quote one section date it by that section's marker.
func Happened(name string, e *entry.Entry) time.Time {
	if v, ok := e.Get(FieldConversation); ok {
		if ref, ok := v.(string); ok {
			if _, t, ok := ParseConversationRef(ref); ok {
				return t.UTC()
			}
		}
	}
	if t, ok := NameDate(name); ok {
		// Written on the day it tells of: that time of the day.
		for _, at := range []time.Time{e.Updated().UTC(), e.Created().UTC()} {
			if at.Format(time.DateOnly) == t.Format(time.DateOnly) {
				return at
			}
		}
		return t
	}
	if t := e.Updated(); !t.IsZero() {
		return t.UTC()
	}
	return e.Created().UTC()
}

// NameDate is the date the entry name is filed under: its last part
// starts with one (episodes/2026-01/2026-01-28, decisions/2026-01-28-x).
func NameDate(name string) (time.Time, bool) {
	seg := name[strings.LastIndexByte(name, '/')+1:]
	if len(seg) < len(time.DateOnly) {
		return time.Time{}, false
	}
	if len(seg) > len(time.DateOnly) && seg[len(time.DateOnly)] >= '0' && seg[len(time.DateOnly)] <= '9' {
		return time.Time{}, false // a longer number, not a date
	}
	t, err := time.Parse(time.DateOnly, seg[:len(time.DateOnly)])
	return t, err == nil
}
