package export

import (
	"maps"
	"testing"

	"github.com/ctx0/ctx0/vault/entry"
)

// TestPlace: where each entry's file goes, nested and flattened, around
// the generated files and clashing slugs.
func TestPlace(t *testing.T) {
	names := []string{"context", "contacts/_index", "contacts/sam", "knowledge/sam", "knowledge/sam-2", "me", "projects/bot0/sam"}
	tests := []struct {
		flatten bool
		want    map[string]string
	}{
		{false, map[string]string{
			"context": "context-2.md", "contacts/_index": "contacts/_index-2.md", "contacts/sam": "contacts/sam.md",
			"knowledge/sam": "knowledge/sam.md", "knowledge/sam-2": "knowledge/sam-2.md", "me": "me.md",
			"projects/bot0/sam": "projects/bot0/sam.md",
		}},
		{true, map[string]string{
			"context": "context-2.md", "contacts/_index": "_index-2.md", "contacts/sam": "contacts-sam.md",
			"knowledge/sam": "knowledge-sam.md", "knowledge/sam-2": "sam-2.md", "me": "me.md",
			"projects/bot0/sam": "projects-bot0-sam.md",
		}},
	}
	for _, tt := range tests {
		s := &set{}
		for _, n := range names {
			s.docs = append(s.docs, &doc{name: n, e: entry.New()})
		}
		s.place(tt.flatten)
		got := map[string]string{}
		for _, d := range s.docs {
			got[d.name] = d.file
		}
		if !maps.Equal(got, tt.want) {
			t.Errorf("flatten=%v: %v, want %v", tt.flatten, got, tt.want)
		}
	}
}

func TestRelative(t *testing.T) {
	tests := []struct{ dir, file, want string }{
		{"", "me.md", "me.md"},
		{"contacts", "contacts/sam.md", "sam.md"},
		{"contacts", "projects/bot0.md", "../projects/bot0.md"},
		{"projects/bot0", "contacts/sam.md", "../../contacts/sam.md"},
		{"projects", "projects/bot0/_index.md", "bot0/_index.md"},
		{"a", "a.md", "../a.md"},
		{"", "notes/C# and (more).md", "notes/C%23%20and%20%28more%29.md"},
	}
	for _, tt := range tests {
		if got := relative(tt.dir, tt.file); got != tt.want {
			t.Errorf("relative(%q, %q) = %q, want %q", tt.dir, tt.file, got, tt.want)
		}
	}
}
