package entry

import (
	"bytes"
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/wikilink"
)

// LinkKind tells the two kinds of links apart.
type LinkKind int

const (
	Wiki     LinkKind = iota // [[target#heading|label]], or ![[target]]
	Markdown                 // [label](relative/path.md#heading)
)

// A Link is a link from a body to another entry.
type Link struct {
	Kind LinkKind
	// Target is the target as written: "projects/bot0" in
	// [[projects/bot0#Intro|Bot]], "../projects/bot0.md" in
	// [Bot](../projects/bot0.md#intro). A markdown link's target keeps its
	// escapes (\_) and percent-encoding (%20).
	Target string
	// Label is a wikilink's text after '|', if any, or a markdown link's
	// text between the brackets, without markup.
	Label   string
	Heading string // the part of the target after '#'; not in Target
	// Start and End are the offsets of Target in the body, so that a
	// caller can rewrite exactly that text.
	Start, End int
}

// markdown parses bodies: CommonMark, which decides where code spans and
// fences hide link syntax, and wikilinks.
var markdown = goldmark.New(goldmark.WithExtensions(&wikilink.Extender{})).Parser()

// Links returns the links in a markdown body, in the order of their
// targets. Links in code are not links. Markdown links count only if their
// target is a relative path to a .md file. Reference links ([x][ref]) are
// reported with the target in the reference definition, which several links
// may share; unused definitions are not links.
func Links(body []byte) []Link {
	doc := markdown.Parse(text.NewReader(body))
	var links []Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *wikilink.Node:
			if l, ok := wikiLink(n, body); ok {
				links = append(links, l)
			}
		case *ast.Link:
			if l, ok := markdownLink(n, body); ok {
				links = append(links, l)
			}
		}
		return ast.WalkContinue, nil
	})
	slices.SortStableFunc(links, func(a, b Link) int { return cmp.Compare(a.Start, b.Start) })
	return links
}

// RewriteLinks returns body with the target of each link for which rewrite
// returns ok replaced by newTarget, verbatim; all other bytes stay as they
// are. A target shared by several reference links is rewritten once.
func RewriteLinks(body []byte, rewrite func(Link) (newTarget string, ok bool)) []byte {
	var out []byte
	last := 0
	for _, l := range Links(body) {
		if l.Start < last {
			continue
		}
		if t, ok := rewrite(l); ok {
			out = append(append(out, body[last:l.Start]...), t...)
			last = l.End
		}
	}
	return append(out, body[last:]...)
}

func wikiLink(n *wikilink.Node, body []byte) (Link, bool) {
	// goldmark sets an inline node's Pos to where its parser started: at
	// "[[", or "![[" for an embed.
	start := n.Pos() + len("[[")
	if n.Embed {
		start++
	}
	end := start + len(n.Target)
	// [[#Heading]] links to the same entry, which is no link to another.
	// The check of the text guards the offset arithmetic above.
	if len(n.Target) == 0 || start < 0 || end > len(body) || !bytes.Equal(body[start:end], n.Target) {
		return Link{}, false
	}
	l := Link{Kind: Wiki, Target: string(n.Target), Heading: string(n.Fragment), Start: start, End: end}
	// The label is the node's text. Without a '|' that text is the target,
	// which is no label.
	if t, ok := n.FirstChild().(*ast.Text); ok && body[t.Segment.Start-1] == '|' {
		l.Label = string(t.Segment.Value(body))
	}
	return l, true
}

func markdownLink(n *ast.Link, body []byte) (Link, bool) {
	start, ok := offset(body, n.Destination)
	if !ok {
		return Link{}, false
	}
	target, heading, _ := strings.Cut(string(n.Destination), "#")
	if !isRelativeMarkdown(target) {
		return Link{}, false
	}
	return Link{
		Kind:    Markdown,
		Target:  target,
		Label:   plainText(n, body),
		Heading: heading,
		Start:   start,
		End:     start + len(target),
	}, true
}

// offset returns where sub starts in s if sub is a slice of s. goldmark
// gives a link's destination as a slice of the source, and that is the
// only record of where it was written: the label before it may contain
// brackets, code spans and even images with their own destinations.
func offset(s, sub []byte) (int, bool) {
	i := cap(s) - cap(sub)
	if len(sub) == 0 || i < 0 || i+len(sub) > len(s) || &s[i] != &sub[0] {
		return 0, false
	}
	return i, true
}

// isRelativeMarkdown reports whether target is a relative path to a .md
// file: no scheme, no leading slash.
func isRelativeMarkdown(target string) bool {
	return !strings.HasPrefix(target, "/") && !hasScheme(target) &&
		strings.EqualFold(path.Ext(target), ".md")
}

// hasScheme reports whether s starts with a URL scheme (RFC 3986, 3.1)
// and a colon.
func hasScheme(s string) bool {
	for i, c := range s {
		switch {
		case c == ':':
			return i > 0
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return false
}

// plainText returns the text of n's descendants, without markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := n.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
