package vault

import (
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault/entry"
)

func TestHappened(t *testing.T) {
	tests := []struct {
		desc, name, file string
		want             string // RFC 3339, "" for none
	}{
		{"conversation field: when the session began, not when it was filed",
			"knowledge/queues", "---\ntitle: Queues\nconversation: \"abc@2025-07-22T09:15:00Z\"\ncreated: 2026-01-28T10:00:00Z\nupdated: 2026-01-28T10:00:00Z\n---\nOne queue.\n",
			"2025-07-22T09:15:00Z"},
		{"a session id holding @",
			"knowledge/x", "---\nconversation: \"a@b@2025-07-22T09:15:00+02:00\"\nupdated: 2026-01-28T10:00:00Z\n---\n",
			"2025-07-22T07:15:00Z"},
		{"episode: the date its name is filed under",
			"episodes/2025-10/2025-10-21", "---\ntitle: Tuesday\ntype: episode\ncreated: 2026-01-28T10:00:00Z\nupdated: 2026-01-28T10:00:00Z\n---\n",
			"2025-10-21T00:00:00Z"},
		{"episode written on its day: that time of the day",
			"episodes/2025-10/2025-10-21", "---\ncreated: 2025-10-21T08:00:00Z\nupdated: 2026-01-28T10:00:00Z\n---\n",
			"2025-10-21T08:00:00Z"},
		{"name date with words after it",
			"decisions/2025-10-21-one-queue", "---\nupdated: 2026-01-28T10:00:00Z\n---\n",
			"2025-10-21T00:00:00Z"},
		{"a ref that does not parse falls through to the name",
			"episodes/2025-10/2025-10-21", "---\nconversation: not-a-ref\nupdated: 2026-01-28T10:00:00Z\n---\n",
			"2025-10-21T00:00:00Z"},
		{"a number that is no date",
			"knowledge/2025-10-211", "---\nupdated: 2026-01-28T10:00:00Z\n---\n",
			"2026-01-28T10:00:00Z"},
		{"neither: updated",
			"contacts/sarah", "---\ncreated: 2026-01-20T10:00:00Z\nupdated: 2026-01-28T10:00:00Z\n---\n",
			"2026-01-28T10:00:00Z"},
		{"neither and no updated: created",
			"contacts/sarah", "---\ncreated: 2026-01-20T10:00:00+01:00\n---\n",
			"2026-01-20T09:00:00Z"},
		{"nothing dated", "contacts/sarah", "---\ntitle: Sarah\n---\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			e, err := entry.Parse([]byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if h := Happened(tt.name, e); !h.IsZero() {
				got = h.Format(time.RFC3339)
			}
			if got != tt.want {
				t.Errorf("Happened(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestConversationRef(t *testing.T) {
	first := time.Date(2025, 10, 21, 20, 4, 0, 0, time.FixedZone("CEST", 2*3600))
	ref := ConversationRef("0b23371a@host", first)
	if ref != "0b23371a@host@2025-10-21T18:04:00Z" {
		t.Fatalf("ConversationRef = %q", ref)
	}
	s, at, ok := ParseConversationRef(ref)
	if !ok || s != "0b23371a@host" || !at.Equal(first) {
		t.Fatalf("ParseConversationRef(%q) = %q, %v, %v", ref, s, at, ok)
	}
	for _, bad := range []string{"", "@2025-10-21T18:04:00Z", "abc", "abc@", "abc@2025-10-21"} {
		if _, _, ok := ParseConversationRef(bad); ok {
			t.Errorf("ParseConversationRef(%q) ok", bad)
		}
	}
}

// FuzzParseConversationRef: what parses is written back the same, bar the
// time's zone, and reads again as itself.
func FuzzParseConversationRef(f *testing.F) {
	f.Add("0b23371a@2025-10-21T18:04:00Z")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		session, at, ok := ParseConversationRef(s)
		if !ok {
			return
		}
		if session == "" {
			t.Fatalf("%q: empty session", s)
		}
		again, at2, ok := ParseConversationRef(ConversationRef(session, at))
		if !ok || again != session || !at2.Equal(at) {
			t.Fatalf("%q: round trip gave %q %v %v, want %q %v", s, again, at2, ok, session, at)
		}
	})
}
