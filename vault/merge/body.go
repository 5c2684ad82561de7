package merge

import (
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/vault/entry"
)

// pending is a conflict in merged lines: the winner's version of a passage
// stands at lines [at, at+n), and the other version waits to be set aside
// in a conflict block.
type pending struct {
	at, n           int
	base, win, lose []string
}

// lines3 merges three versions of a text line by line (see diff3). Every
// line of the result ends with a line break, so that texts can follow it;
// the caller removes the last one where the merged text has none (see
// open).
func (m *merger) lines3(base, ours, theirs string) ([]string, []pending) {
	win, lose := sides(m, ours, theirs)
	split := func(s string) []string { return terminated(splitLines(s), m.eol) }
	var lines []string
	var aside []pending
	for _, c := range diff3(split(base), split(win), split(lose)) {
		if c.conflict {
			aside = append(aside, pending{at: len(lines), n: len(c.first), base: c.base, win: c.first, lose: c.second})
			lines = append(lines, c.first...)
			continue
		}
		lines = append(lines, c.lines...)
	}
	return lines, aside
}

// setAside renders merged lines with a conflict block for each pending
// conflict after them, and records the conflicts. offset is the number of
// lines before the first one in the file, for the line numbers in titles.
func (m *merger) setAside(lines []string, aside []pending, offset int) string {
	loser := m.opt.Winner.other()
	var blocks []string
	for _, p := range aside {
		where := m.where(lines, p, offset)
		var title string
		switch {
		case len(p.lose) == 0:
			title = fmt.Sprintf("%s deleted %s", m.label(loser), where)
		case p.n == 0:
			title = fmt.Sprintf("%s had a version of text deleted %s", m.label(loser), where)
		default:
			title = fmt.Sprintf("%s had a different version of %s", m.label(loser), where)
		}
		blocks = append(blocks, m.block(title, p.lose))
		m.conflict("", where, strings.Join(p.base, ""), strings.Join(p.win, ""), strings.Join(p.lose, ""), m.opt.Winner)
	}
	return m.withBlocks(lines, blocks)
}

// withBlocks renders lines, then the blocks, each after a blank line.
func (m *merger) withBlocks(lines, blocks []string) string {
	var b strings.Builder
	for _, l := range terminated(lines, m.eol) {
		b.WriteString(l)
	}
	for i, block := range blocks {
		if i > 0 || len(lines) > 0 && !isBlank(lines[len(lines)-1]) {
			b.WriteString(m.eol)
		}
		b.WriteString(block)
	}
	return b.String()
}

// where describes the place of a pending conflict in the merged file:
// "lines 12–14" of the winner's version, or "after line 11" where the
// winner has none, and the heading it is under.
func (m *merger) where(lines []string, p pending, offset int) string {
	var s string
	switch first := offset + p.at + 1; {
	case p.n == 0 && first == 1:
		s = "at the start"
	case p.n == 0:
		s = fmt.Sprintf("after line %d", first-1)
	case p.n == 1:
		s = fmt.Sprintf("line %d", first)
	default:
		s = fmt.Sprintf("lines %d–%d", first, first+p.n-1)
	}
	for i := p.at - 1; i >= 0; i-- {
		if h := strings.TrimRight(lines[i], " \t\r\n"); isHeading(h) {
			return fmt.Sprintf("%s (under %q)", s, h)
		}
	}
	return s
}

// block renders a conflict block: a callout titled title that quotes
// lines, less blank lines at the start and end. Every line is quoted, so
// nothing in it can end the block or be taken for a git conflict marker.
func (m *merger) block(title string, lines []string) string {
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	// A label with a line break would end the title.
	title = strings.Join(strings.FieldsFunc(title, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
	b.WriteString(calloutPrefix + " Merge conflict: " + title + m.eol)
	for _, l := range lines {
		l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
		if l == "" {
			b.WriteString(">" + m.eol)
		} else {
			b.WriteString("> " + l + m.eol)
		}
	}
	return b.String()
}

// isHeading reports whether line is a markdown ATX heading.
func isHeading(line string) bool {
	h := strings.TrimLeft(line, " ")
	n := len(h) - len(strings.TrimLeft(h, "#"))
	return len(line)-len(h) < 4 && n >= 1 && n <= 6 && (len(h) == n || h[n] == ' ' || h[n] == '\t')
}

// headerLines is the number of lines before body once it is the body of
// e, followed by conflict blocks: the frontmatter's lines, and any that
// SetBody adds.
func headerLines(e *entry.Entry, body string) int {
	probe, err := entry.Parse(e.Bytes())
	if err != nil {
		return 0 // e was parsed or built by entry, so this does not happen
	}
	if body == "" {
		body = ">" // the blocks will make the body as long as this
	}
	probe.SetBody(body)
	all := probe.Bytes()
	return strings.Count(string(all[:len(all)-len(body)]), "\n")
}
