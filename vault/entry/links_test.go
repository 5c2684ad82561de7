package entry

import (
	"strings"
	"testing"
)

var linkTests = []struct {
	name string
	body string
	want []Link // End is Start plus the length of Target
}{
	{"wikilink", "See [[projects/bot0]].", []Link{{Kind: Wiki, Target: "projects/bot0", Start: 6}}},
	{"label", "[[projects/bot0|the bot]]", []Link{{Kind: Wiki, Target: "projects/bot0", Label: "the bot", Start: 2}}},
	{"heading", "[[projects/bot0#Goals]]", []Link{{Kind: Wiki, Target: "projects/bot0", Heading: "Goals", Start: 2}}},
	{"heading and label", "x [[a#b|c]]", []Link{{Kind: Wiki, Target: "a", Heading: "b", Label: "c", Start: 4}}},
	{"embed", "![[diagram.png]]", []Link{{Kind: Wiki, Target: "diagram.png", Start: 3}}},
	{"same entry heading", "[[#Goals]]", nil},
	{"empty", "[[]] [[|x]]", nil},
	{"unclosed", "[[a\nb]]", nil},
	{"escaped", `\[[a]] and \[x](a.md)`, nil},
	{"unicode", "Zoë → [[Zoë Ångström]]", []Link{{Kind: Wiki, Target: "Zoë Ångström", Start: 11}}},
	{"two on a line", "[[a]] and [[b|B]]", []Link{{Kind: Wiki, Target: "a", Start: 2}, {Kind: Wiki, Target: "b", Label: "B", Start: 12}}},
	{"list", "- item [[a]]\n  - nested [x](b.md)\n", []Link{{Kind: Wiki, Target: "a", Start: 9}, {Kind: Markdown, Target: "b.md", Label: "x", Start: 28}}},
	{"table", "| a | b |\n|---|---|\n| [[t|l]] | [z](z.md) |\n", []Link{{Kind: Wiki, Target: "t", Label: "l", Start: 24}, {Kind: Markdown, Target: "z.md", Label: "z", Start: 36}}},
	{"blockquote", "> quote [[a]]\n> [b](b.md)\n", []Link{{Kind: Wiki, Target: "a", Start: 10}, {Kind: Markdown, Target: "b.md", Label: "b", Start: 20}}},
	{"heading line", "# About [[a]]\n", []Link{{Kind: Wiki, Target: "a", Start: 10}}},
	{"code span", "`[[a]]` and `[x](a.md)`", nil},
	{"fenced code", "```\n[[a]] [x](a.md)\n```\n", nil},
	{"tilde fence", "~~~md\n[[a]]\n~~~\n", nil},
	{"indented code", "para\n\n    [[a]]\n", nil},
	{"html", "<div>\n[[a]]\n</div>\n\n<a href=\"a.md\">a</a>", nil},
	{"markdown", "[Bot](../projects/bot0.md)", []Link{{Kind: Markdown, Target: "../projects/bot0.md", Label: "Bot", Start: 6}}},
	{"markdown heading", "[Bot](bot0.md#goals)", []Link{{Kind: Markdown, Target: "bot0.md", Label: "Bot", Heading: "goals", Start: 6}}},
	{"markdown title", `[Bot](bot0.md "The bot")`, []Link{{Kind: Markdown, Target: "bot0.md", Label: "Bot", Start: 6}}},
	{"angle brackets", "[a](<my notes/a b.md>)", []Link{{Kind: Markdown, Target: "my notes/a b.md", Label: "a", Start: 5}}},
	{"space before target", "[a](\n  a.md)", []Link{{Kind: Markdown, Target: "a.md", Label: "a", Start: 7}}},
	{"escapes kept", `[a](a\_b.md)`, []Link{{Kind: Markdown, Target: `a\_b.md`, Label: "a", Start: 4}}},
	{"percent-encoding kept", "[a](a%20b.md)", []Link{{Kind: Markdown, Target: "a%20b.md", Label: "a", Start: 4}}},
	{"upper-case extension", "[a](A.MD)", []Link{{Kind: Markdown, Target: "A.MD", Label: "a", Start: 4}}},
	{"label with markup", "[*the* `bot`](b.md)", []Link{{Kind: Markdown, Target: "b.md", Label: "the bot", Start: 14}}},
	{"label with brackets", "[a [b] c](d.md)", []Link{{Kind: Markdown, Target: "d.md", Label: "a [b] c", Start: 10}}},
	{"label with the target", "[b.md](b.md)", []Link{{Kind: Markdown, Target: "b.md", Label: "b.md", Start: 7}}},
	{"label with code", "[`](x.md)`](y.md)", []Link{{Kind: Markdown, Target: "y.md", Label: "](x.md)", Start: 12}}},
	{"label with image", "[![i](i.md)](in.md)", []Link{{Kind: Markdown, Target: "in.md", Label: "i", Start: 13}}},
	{"label over lines", "[a\nb](c.md)", []Link{{Kind: Markdown, Target: "c.md", Label: "a b", Start: 6}}},
	{"wikilink in label", "[see [[a]]](b.md)", []Link{{Kind: Wiki, Target: "a", Start: 7}, {Kind: Markdown, Target: "b.md", Label: "see a", Start: 12}}},
	{"reference", "[a][r] and [b][r]\n\n[r]: ref.md\n", []Link{{Kind: Markdown, Target: "ref.md", Label: "a", Start: 24}, {Kind: Markdown, Target: "ref.md", Label: "b", Start: 24}}},
	{"unused reference", "[r]: ref.md\n", nil},
	{"image", "![a](a.md)", nil},
	{"absolute URL", "[a](https://example.com/a.md)", nil},
	{"other scheme", "[a](mailto:a@b.md) [b](file:b.md)", nil},
	{"absolute path", "[a](/a.md) [b](//host/b.md)", nil},
	{"not markdown", "[a](a.png) [b](b.md?x=1) [c](#heading) [d]()", nil},
	{"autolink", "<https://example.com/a.md>", nil},
	{"colon in path", "[a](./a:b.md)", []Link{{Kind: Markdown, Target: "./a:b.md", Label: "a", Start: 4}}},
}

func TestLinks(t *testing.T) {
	for _, tt := range linkTests {
		t.Run(tt.name, func(t *testing.T) {
			got := Links([]byte(tt.body))
			if len(got) != len(tt.want) {
				t.Fatalf("Links() = %+v, want %+v", got, tt.want)
			}
			for i, l := range got {
				w := tt.want[i]
				w.End = w.Start + len(w.Target)
				if l != w {
					t.Errorf("link %d = %+v, want %+v", i, l, w)
				}
				if s := tt.body[l.Start:l.End]; s != l.Target {
					t.Errorf("link %d: body[Start:End] = %q, want %q", i, s, l.Target)
				}
			}
		})
	}
}

func TestRewriteLinks(t *testing.T) {
	rename := func(l Link) (string, bool) {
		switch l.Target {
		case "projects/bot0":
			return "projects/bot1", true
		case "../projects/bot0.md":
			return "../projects/bot1.md", true
		case "ref.md":
			return "other.md", true
		}
		return "", false
	}
	tests := []struct {
		name, body, want string
	}{
		{"none", "no links", "no links"},
		{"wiki", "See [[projects/bot0|Bot]] and [[projects/bot0#Goals]].\n", "See [[projects/bot1|Bot]] and [[projects/bot1#Goals]].\n"},
		{"markdown", "[Bot](../projects/bot0.md#goals \"t\")", "[Bot](../projects/bot1.md#goals \"t\")"},
		{"others kept", "[[a]] [[projects/bot0]] [b](b.md)", "[[a]] [[projects/bot1]] [b](b.md)"},
		{"code kept", "`[[projects/bot0]]`\n\n```\n[[projects/bot0]]\n```\n[[projects/bot0]]", "`[[projects/bot0]]`\n\n```\n[[projects/bot0]]\n```\n[[projects/bot1]]"},
		{"reference once", "[a][r] [b][r]\n\n[r]: ref.md\n", "[a][r] [b][r]\n\n[r]: other.md\n"},
		{"crlf", "line\r\n[[projects/bot0]]\r\n", "line\r\n[[projects/bot1]]\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(RewriteLinks([]byte(tt.body), rename)); got != tt.want {
				t.Errorf("RewriteLinks() = %q, want %q", got, tt.want)
			}
		})
	}

	body := []byte("[[a]] [b](b.md)")
	got := RewriteLinks(body, func(l Link) (string, bool) { return strings.ToUpper(l.Target), true })
	if string(got) != "[[A]] [b](B.MD)" {
		t.Errorf("RewriteLinks() = %q", got)
	}
	if string(body) != "[[a]] [b](b.md)" {
		t.Errorf("RewriteLinks changed its input to %q", body)
	}
}
