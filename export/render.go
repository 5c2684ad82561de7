package export

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// file is one file of a folder export.
type file struct {
	path string // slash-separated, relative to the export's root
	data []byte
}

// render makes the files of a folder export that do not carry the time of
// the export: the entries, their earlier versions, the folder indexes and
// the learned queries. CONTEXT.md and stats.json come from meta.
func (s *set) render(ctx context.Context, o Options) ([]file, *stats, error) {
	st := newStats(s, o)
	per := make([][]file, len(s.docs))
	counts := make([]LinkCounts, len(s.docs))
	errs := make([]error, len(s.docs))
	err := parallel(ctx, len(s.docs), nil, func(i int) {
		per[i], errs[i] = s.renderDoc(ctx, s.docs[i], o.Minimal, &counts[i])
	})
	if err != nil {
		return nil, nil, err
	}
	var files []file
	for i, d := range s.docs {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		st.add(d, len(per[i][0].data), len(d.versions))
		st.Links.merge(counts[i])
		files = append(files, per[i]...)
	}
	indexes, err := s.folderIndexes(ctx)
	if err != nil {
		return nil, nil, err
	}
	files = append(files, indexes...)
	if s.queries != nil {
		files = append(files, file{path: queriesFile, data: s.queries})
	}
	return files, st, nil
}

// renderDoc makes the file of an exported entry, then those of its earlier
// versions. Only the entry's own links are counted.
func (s *set) renderDoc(ctx context.Context, d *doc, minimal bool, counts *LinkCounts) ([]file, error) {
	var foot strings.Builder
	if len(d.versions) > 0 {
		foot.WriteString("**Earlier versions:** ")
		for i, ver := range d.versions {
			if i > 0 {
				foot.WriteString(" · ")
			}
			fmt.Fprintf(&foot, "[%s %s](%s)", ver.When.UTC().Format("2006-01-02 15:04"), ver.Hash[:7], relative(folderOf(d.file), ver.file))
		}
		foot.WriteString("\n")
	}
	data, err := s.entryFile(ctx, d.name, d.e, d.file, minimal, counts, foot.String())
	if err != nil {
		return nil, err
	}
	out := []file{{path: d.file, data: data}}
	for _, ver := range d.versions {
		e, err := entry.Parse(ver.raw)
		if err != nil {
			// An old version that does not parse is history as it was.
			out = append(out, file{path: ver.file, data: ver.raw})
			continue
		}
		from, _ := vault.NameOf(ver.Path) // links are relative to where it was then
		data, err := s.entryFile(ctx, from, e, ver.file, minimal, nil, "")
		if err != nil {
			return nil, err
		}
		out = append(out, file{path: ver.file, data: data})
	}
	return out, nil
}

// entryFile renders entry e, written in the vault as from, to the export's
// file at p: frontmatter as it is, the body cut when minimal, links made to
// work from p, and at the end the links: field as links, then foot.
func (s *set) entryFile(ctx context.Context, from string, e *entry.Entry, p string, minimal bool, counts *LinkCounts, foot string) ([]byte, error) {
	href := fileHref(folderOf(p))
	body := e.Body()
	if minimal {
		body = cut(body)
	}
	body, err := s.rewrite(ctx, from, body, href, counts)
	if err != nil {
		return nil, err
	}
	links, err := s.linksLine(ctx, e, href, counts)
	if err != nil {
		return nil, err
	}
	if links+foot != "" {
		body = strings.TrimRight(body, "\n") + "\n\n" + links + foot
	}
	if body == e.Body() {
		return e.Bytes(), nil // most entries: nothing to change
	}
	// A copy, so that d.e keeps the body as it is in the vault.
	out, err := entry.Parse(e.Bytes())
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", p, err)
	}
	out.SetBody(body)
	return out.Bytes(), nil
}

// cut keeps the first MinimalChars characters of a body, at a word's end
// when one is near, and says how much there was.
func cut(body string) string {
	n := utf8.RuneCountInString(body)
	if n <= MinimalChars {
		return body
	}
	end := 0
	for range MinimalChars {
		_, size := utf8.DecodeRuneInString(body[end:])
		end += size
	}
	if sp := strings.LastIndexAny(body[:end], " \t\n"); sp > end-80 && sp > 0 {
		end = sp
	}
	kept := strings.TrimRight(body[:end], " \t\n")
	if fence := openFence(kept); fence != "" {
		kept += "\n" + fence // close the code block the cut left open
	}
	return fmt.Sprintf("%s …\n\n_(minimal export: the first %d of %d characters)_\n", kept, utf8.RuneCountInString(kept), n)
}

// openFence returns the fence (``` or ~~~, or longer) of a code block
// that s opens and does not close, or "".
func openFence(s string) string {
	open := ""
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimLeft(line, " ")
		fence := fenceOf(t)
		switch {
		case fence == "":
		case open == "":
			open = fence
		case fence[0] == open[0] && len(fence) >= len(open) && strings.TrimSpace(t[len(fence):]) == "":
			open = ""
		}
	}
	return open
}

// fenceOf is the run of three or more backticks or tildes that starts a
// line of a code fence, or "".
func fenceOf(line string) string {
	if line == "" || line[0] != '`' && line[0] != '~' {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	if n < 3 {
		return ""
	}
	return line[:n]
}

// summary is the one line that lists an entry: its summary field if it has
// one, else the first line of its body that is text, with links as text.
func (s *set) summary(ctx context.Context, d *doc) (string, error) {
	line := ""
	if v, ok := d.e.Get("summary"); ok {
		line, _ = v.(string)
	}
	if line == "" {
		line = firstTextLine(d.e.Body())
	}
	line, err := s.rewrite(ctx, d.name, line, nil, nil)
	if err != nil {
		return "", err
	}
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) > summaryChars {
		r := []rune(line)[:summaryChars]
		line = strings.TrimRight(string(r), " ") + "…"
	}
	return line, nil
}

// summaryChars is the longest summary an index shows.
const summaryChars = 140

// firstTextLine is the first paragraph of a markdown body that reads as
// text, on one line: not a heading, a fence, a rule, a table or a comment;
// list and quote markers are dropped.
func firstTextLine(body string) string {
	var para []string
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fenceOf(t) != "":
			inFence = !inFence
			continue
		case inFence || t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") ||
			strings.HasPrefix(t, "<!--") || strings.Trim(t, "-*_ ") == "":
			if len(para) > 0 {
				return strings.Join(para, " ")
			}
			continue
		}
		t = strings.TrimLeft(t, "> ")
		for _, m := range []string{"- [ ] ", "- [x] ", "- ", "* ", "+ "} {
			t = strings.TrimPrefix(t, m)
		}
		if para = append(para, t); len(strings.Join(para, " ")) > 4*summaryChars {
			break
		}
	}
	return strings.Join(para, " ")
}
