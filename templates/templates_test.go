package templates

import (
	"strings"
	"testing"
)

func TestUnfilled(t *testing.T) {
	var me string
	for _, f := range Vault() {
		if f.Path == "me.md" {
			_, me, _ = strings.Cut(strings.TrimPrefix(string(f.Data), "---\n"), "\n---\n")
		}
	}
	if me == "" {
		t.Fatal("no me.md body in the vault template")
	}
	tests := []struct {
		name, body string
		want       bool
	}{
		{"me.md of a new vault", me, true},
		{"me.md rewrapped", strings.ReplaceAll(me, "\n", "\r\n  ") + "\n\n", true},
		{"a contact's starting body", Body("contact"), true},
		{"a project's starting body", Body("project"), true},
		{"me.md filled in", "Sam Rivera, backend engineer.\n" + me, false},
		{"a contact filled in", strings.Replace(Body("contact"), "## Who\n", "## Who\nPartner at Example Ventures.\n", 1), false},
		{"empty", "", false},
		{"a note", "The billing service retries three times.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unfilled(tt.body); got != tt.want {
				t.Errorf("Unfilled(%q) = %v, want %v", tt.body, got, tt.want)
			}
		})
	}
}
