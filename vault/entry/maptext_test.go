package entry

import (
	"strings"
	"testing"
)

func TestMapText(t *testing.T) {
	upper := func(s string) string {
		return strings.ReplaceAll(s, "secret", "[HIDDEN:x]")
	}
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"nothing to change", "---\ntitle: Plain\n---\nbody\n", "---\ntitle: Plain\n---\nbody\n", false},
		{"body only", "---\ntitle: Plain\n---\nthe secret\n", "---\ntitle: Plain\n---\nthe [HIDDEN:x]\n", true},
		{
			"a plain value that would read as a list is quoted",
			"---\ntitle: secret\ntags: [a, b]\n---\nx\n",
			"---\ntitle: '[HIDDEN:x]'\ntags: [a, b]\n---\nx\n", true,
		},
		{
			"lists and maps, not keys, not dates",
			"---\ntags: [a, my secret]\nsecret: {secret: secret}\ncreated: 2026-01-28T10:00:00Z\n---\n",
			"---\ntags: [a, 'my [HIDDEN:x]']\nsecret: {secret: '[HIDDEN:x]'}\ncreated: 2026-01-28T10:00:00Z\n---\n", true,
		},
		{"quoted stays quoted", "---\ntitle: \"a secret\" # note\n---\n", "---\ntitle: \"a [HIDDEN:x]\" # note\n---\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			changed, err := e.MapText(upper)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(e.Bytes()); got != tt.want || changed != tt.changed {
				t.Errorf("MapText:\n got %q (changed %v)\nwant %q (changed %v)", got, changed, tt.want, tt.changed)
			}
			if _, err := Parse(e.Bytes()); err != nil {
				t.Errorf("result does not parse: %v", err)
			}
		})
	}
}
