package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// LinkCounts says what became of the links of the exported entries: in
// their bodies and in their links: fields.
type LinkCounts struct {
	Rewritten int `json:"rewritten"` // now links to files of the export
	Outside   int `json:"outside"`   // to entries this export leaves out: left as text
	Broken    int `json:"broken"`    // to no entry: left as text
	Ambiguous int `json:"ambiguous"` // to several entries: left as text
}

func (c *LinkCounts) add(st linkStatus) {
	if c == nil {
		return
	}
	switch st {
	case linkOK:
		c.Rewritten++
	case linkOutside:
		c.Outside++
	case linkBroken:
		c.Broken++
	case linkAmbiguous:
		c.Ambiguous++
	}
}

func (c *LinkCounts) merge(o LinkCounts) {
	c.Rewritten += o.Rewritten
	c.Outside += o.Outside
	c.Broken += o.Broken
	c.Ambiguous += o.Ambiguous
}

type linkStatus int

const (
	linkOK linkStatus = iota
	linkOutside
	linkBroken
	linkAmbiguous
)

// why is how a link left as text is explained where the export writes one.
func (st linkStatus) why() string {
	switch st {
	case linkOutside:
		return "not in this export"
	case linkAmbiguous:
		return "ambiguous"
	}
	return "no such entry"
}

// resolution is where a link leads.
type resolution struct {
	name   string // the entry of the vault, if one answers
	to     *doc   // the exported entry, when status is linkOK
	status linkStatus
}

// resolveRef resolves a wikilink's target or a links: item the way the
// vault resolves a name someone typed (vault.Resolve: exact name, unique
// slug, title or alias), once per distinct target.
func (s *set) resolveRef(ctx context.Context, target string) (resolution, error) {
	key := strings.TrimSpace(target)
	s.mu.Lock()
	r, ok := s.resolved[key]
	s.mu.Unlock()
	if ok {
		return r, nil
	}
	name, err := s.resolve(ctx, key)
	var amb *vault.AmbiguousError
	switch {
	case err == nil:
		r = s.lead(name)
	case errors.As(err, &amb):
		r = resolution{status: linkAmbiguous}
	case errors.Is(err, vault.ErrNotFound), errors.Is(err, vault.ErrBadName):
		r = resolution{status: linkBroken}
	default:
		return r, fmt.Errorf("export: resolve link %q: %w", key, err)
	}
	s.mu.Lock()
	s.resolved[key] = r
	s.mu.Unlock()
	return r, nil
}

// resolvePath resolves a markdown link written in the entry from: a path
// relative to its folder, which must be an entry's file.
func (s *set) resolvePath(from, target string) resolution {
	name, ok := vault.MarkdownTarget(from, target)
	if !ok || !s.inVault[name] {
		return resolution{status: linkBroken}
	}
	return s.lead(name)
}

// lead is where a link to the vault's entry name leads in the export.
func (s *set) lead(name string) resolution {
	if d := s.byName[name]; d != nil {
		return resolution{name: name, to: d, status: linkOK}
	}
	return resolution{name: name, status: linkOutside}
}

// hrefFunc gives the destination of a link to an exported entry, with
// frag the fragment (a heading's anchor), if any.
type hrefFunc func(to *doc, frag string) string

// fileHref links between files of a folder export, from folder dir.
func fileHref(dir string) hrefFunc {
	return func(to *doc, frag string) string {
		h := relative(dir, to.file)
		if frag != "" {
			h += "#" + frag
		}
		return h
	}
}

// rewrite returns body, written in the entry from, with each link to an
// exported entry leading to it through href; a link that leads elsewhere is
// left as written, except that a markdown link becomes its label (a
// relative link in an export must resolve). With a nil href every link
// becomes text, for one-line summaries. counts, if not nil, hears of each.
func (s *set) rewrite(ctx context.Context, from, body string, href hrefFunc, counts *LinkCounts) (string, error) {
	if !strings.Contains(body, "[") {
		return body, nil // no link syntax: spare the markdown parser
	}
	b := []byte(body)
	var out strings.Builder
	last := 0
	for _, l := range entry.Links(b) {
		if l.Start < last {
			continue // a reference definition that several links share
		}
		var r resolution
		switch {
		case href == nil:
			// Text only: where the link leads does not matter.
		case l.Kind == entry.Wiki:
			var err error
			if r, err = s.resolveRef(ctx, l.Target); err != nil {
				return "", err
			}
			counts.add(r.status)
		default:
			r = s.resolvePath(from, l.Target)
			counts.add(r.status)
		}
		start, end, repl, ok := replacement(b, l, r, href)
		if !ok || start < last {
			continue
		}
		out.Write(b[last:start])
		out.WriteString(repl)
		last = end
	}
	out.Write(b[last:])
	return out.String(), nil
}

// replacement is what the text b[start:end] of link l becomes.
func replacement(b []byte, l entry.Link, r resolution, href hrefFunc) (start, end int, repl string, ok bool) {
	if l.Kind == entry.Wiki {
		start, end, ok = wikiSpan(b, l)
		if !ok {
			return 0, 0, "", false
		}
		label := l.Label
		if label == "" {
			label = l.Target
			if l.Heading != "" {
				label += "#" + l.Heading
			}
		}
		switch {
		case href == nil:
			return start, end, label, true
		case r.status == linkOK:
			return start, end, "[" + escapeLabel(label) + "](" + href(r.to, anchor(l.Heading)) + ")", true
		}
		return 0, 0, "", false // a wikilink that leads nowhere stays as written
	}
	if href != nil && r.status == linkOK {
		end = l.End
		if l.Heading != "" && end < len(b) && b[end] == '#' {
			end += 1 + len(l.Heading)
		}
		return l.Start, end, href(r.to, l.Heading), true
	}
	return markdownSpan(b, l)
}

// wikiSpan finds the whole [[target#heading|label]] (or ![[…]]) around l.
func wikiSpan(b []byte, l entry.Link) (start, end int, ok bool) {
	start = l.Start - 2
	if start < 0 || string(b[start:l.Start]) != "[[" {
		return 0, 0, false
	}
	if start > 0 && b[start-1] == '!' {
		start--
	}
	i := bytes.Index(b[l.End:], []byte("]]"))
	if i < 0 {
		return 0, 0, false
	}
	return start, l.End + i + 2, true
}

// refDefinition is the start of a line that defines a link reference.
var refDefinition = lazy.Regexp(`^ {0,3}\[[^\]]+\]:[ \t]*<?$`)

// markdownSpan finds the whole markdown link around l to write it as text:
// an inline link [label](target "title") becomes its label as written; a
// reference definition line [ref]: target goes, so the links that use it
// read as text.
func markdownSpan(b []byte, l entry.Link) (start, end int, text string, ok bool) {
	i := l.Start
	angle := i > 0 && b[i-1] == '<'
	if angle {
		i--
	}
	if i >= 2 && b[i-1] == '(' && b[i-2] == ']' {
		open := openingBracket(b, i-2)
		end := closingParen(b, l, angle)
		if open < 0 || end < 0 {
			return 0, 0, "", false
		}
		start := open
		if start > 0 && b[start-1] == '!' {
			start--
		}
		return start, end, string(b[open+1 : i-2]), true
	}
	lineStart := bytes.LastIndexByte(b[:l.Start], '\n') + 1
	if !refDefinition().Match(b[lineStart:l.Start]) {
		return 0, 0, "", false
	}
	lineEnd := len(b)
	if j := bytes.IndexByte(b[l.End:], '\n'); j >= 0 {
		lineEnd = l.End + j + 1
	}
	return lineStart, lineEnd, "", true
}

// maxLabel bounds the search for a link's label, so that a paragraph of
// many links costs time in proportion to its length.
const maxLabel = 4096

// openingBracket finds the '[' that opens the label closed at b[j], or -1.
func openingBracket(b []byte, j int) int {
	depth := 0
	for k := j - 1; k >= 0 && k >= j-maxLabel; k-- {
		if escaped(b, k) {
			continue
		}
		switch b[k] {
		case ']':
			depth++
		case '[':
			if depth == 0 {
				return k
			}
			depth--
		case '\n':
			if k > 0 && b[k-1] == '\n' {
				return -1 // a blank line: a label does not span paragraphs
			}
		}
	}
	return -1
}

// closingParen finds the end of an inline link after its destination: an
// optional title, then ')'. It returns the offset after ')', or -1.
func closingParen(b []byte, l entry.Link, angle bool) int {
	k := l.End
	if l.Heading != "" && k < len(b) && b[k] == '#' {
		k += 1 + len(l.Heading)
	}
	if angle {
		if k >= len(b) || b[k] != '>' {
			return -1
		}
		k++
	}
	k = skipBlanks(b, k)
	if k < len(b) && (b[k] == '"' || b[k] == '\'' || b[k] == '(') {
		closer := b[k]
		if closer == '(' {
			closer = ')'
		}
		k++
		for k < len(b) && (b[k] != closer || escaped(b, k)) {
			k++
		}
		k = skipBlanks(b, k+1)
	}
	if k >= len(b) || b[k] != ')' {
		return -1
	}
	return k + 1
}

func skipBlanks(b []byte, k int) int {
	for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n') {
		k++
	}
	return k
}

// escaped tells whether b[k] follows an odd number of backslashes.
func escaped(b []byte, k int) bool {
	n := 0
	for k--; k >= 0 && b[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// escapeLabel escapes what would end a link's label early.
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

var labelEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`)

// linksLine renders an entry's links: field as a line of links, for the
// end of its body: the field holds names, which do not lead anywhere in a
// folder of files.
func (s *set) linksLine(ctx context.Context, e *entry.Entry, href hrefFunc, counts *LinkCounts) (string, error) {
	names := e.LinkNames()
	if len(names) == 0 {
		return "", nil
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		r, err := s.resolveRef(ctx, n)
		if err != nil {
			return "", err
		}
		counts.add(r.status)
		if r.status == linkOK {
			parts = append(parts, "["+escapeLabel(r.to.label())+"]("+href(r.to, "")+")")
		} else {
			parts = append(parts, fmt.Sprintf("%s (%s)", n, r.status.why()))
		}
	}
	return "**Links:** " + strings.Join(parts, " · ") + "\n", nil
}

// label is how a link to the entry reads: its title, else its name.
func (d *doc) label() string {
	if t := d.e.Title(); t != "" {
		return t
	}
	return d.name
}
