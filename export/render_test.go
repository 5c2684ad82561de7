package export

import (
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct{ name, body, has, lacks string }{
		{"short bodies stay", "Short.\n", "Short.\n", "minimal export"},
		{"at a word's end", long, "word …\n\n_(minimal export: the first 499 of 1000 characters)_\n", "wor …"},
		{"an open fence is closed", "```go\n" + long, "word\n```", ""},
		{"a longer tilde fence", "~~~~\n" + long, "word\n~~~~", ""},
		{"a closed fence stays closed", "```\nx\n```\n" + long, "word …", "word\n```"},
	}
	for _, tt := range tests {
		got := cut(tt.body)
		if !strings.Contains(got, tt.has) || tt.lacks != "" && strings.Contains(got, tt.lacks) {
			t.Errorf("%s: cut = %q", tt.name, got)
		}
	}
}

func TestFirstTextLine(t *testing.T) {
	tests := []struct{ body, want string }{
		{"", ""},
		{"# Title\n\nFirst paragraph\ngoes on.\n\nSecond.", "First paragraph goes on."},
		{"```\ncode\n```\n- item one\n- item two\n", "item one item two"},
		{"---\n> quoted\n", "quoted"},
		{"| a | b |\n|---|---|\n\ntext", "text"},
	}
	for _, tt := range tests {
		if got := firstTextLine(tt.body); got != tt.want {
			t.Errorf("firstTextLine(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestDemote(t *testing.T) {
	in := "# One\ntext #not\n##### Five\n```\n# code\n```\n#nospace\n"
	want := "### One\ntext #not\n###### Five\n```\n# code\n```\n#nospace\n"
	if got := demote(in); got != want {
		t.Errorf("demote = %q, want %q", got, want)
	}
}
