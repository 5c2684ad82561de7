package merge

import (
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// section is a dated part of an append-only body: a heading that starts
// with a date, and the lines up to the next such heading.
type section struct {
	key   string // the heading line, with a count if it repeats
	date  string // "2026-01-28", "2026-01-28 10:30"
	lines []string
	// after is the key of the section before this one, "" if it is the
	// first, and spaced whether a blank line (or nothing) comes before its
	// heading: so that a section placed after another than before, which
	// may have ended the body without a blank line, keeps its distance.
	after  string
	spaced bool
}

func (s section) text() string { return strings.Join(s.lines, "") }

// datedHeading matches "## 2026-01-28", "## 2026-01-28 10:30 Standup",
// "# 2026-01-28T10:30:00" and Obsidian's daily-note links,
// "## [[2026-01-28]]".
var datedHeading = lazy.Regexp(`^ {0,3}#{1,6}[ \t]+(?:\[\[)?(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2})?))?`)

// appendBody merges the bodies of episodes and logs, where both sides
// mostly add. The text before the first dated heading, and each dated
// section, merge line by line, keeping what both sides added at the same
// place (the winner's first). Sections either side added are placed by
// date: in date order, or newest first if the entry is written that way.
// A section one side deleted goes, unless the other side edited it.
func (m *merger) appendBody(base, ours, theirs string) ([]string, []pending) {
	bp, bs := sections(base)
	op, os := sections(ours)
	tp, ts := sections(theirs)
	lines, aside := m.lines3(bp, op, tp)

	win, lose := sides(m, os, ts)
	inBase, inWin, inLose := byKey(bs), byKey(win), byKey(lose)
	var order []section
	for _, s := range win {
		if b, ok := inBase[s.key]; ok && !has(inLose, s.key) && b.text() == s.text() {
			continue // the other side deleted it
		}
		order = append(order, s)
	}
	desc := descending(win) || len(win) < 2 && descending(lose)
	for _, s := range lose {
		if has(inWin, s.key) {
			continue
		}
		if b, ok := inBase[s.key]; ok && b.text() == s.text() {
			continue // the winner deleted it
		}
		order = insertByDate(order, s, desc)
	}

	for i, s := range order {
		if n := len(lines); n > 0 && !isBlank(lines[n-1]) && s.spaced && i > 0 && order[i-1].key != s.after {
			lines = append(lines, m.eol)
		}
		b, inB := inBase[s.key]
		w, inW := inWin[s.key]
		l, inL := inLose[s.key]
		if !inW || !inL {
			if inB {
				// Deleted on one side, edited on the other: kept.
				kept := m.opt.Winner
				if !inW {
					kept = kept.other()
				}
				m.conflict("", fmt.Sprintf("section %q", strings.TrimSpace(s.lines[0])), b.text(), w.text(), l.text(), kept)
			}
			lines = append(lines, terminated(s.lines, m.eol)...)
			continue
		}
		if !inB {
			// Added on both sides: merged as if it had been there, empty.
			b = section{lines: s.lines[:1]}
		}
		o, t := sides(m, w.text(), l.text())
		merged, more := m.lines3(b.text(), o, t)
		for _, p := range more {
			p.at += len(lines)
			aside = append(aside, p)
		}
		lines = append(lines, merged...)
	}
	return lines, aside
}

// sections cuts a body into the text before its first dated heading and
// its dated sections. Headings inside fenced code blocks do not count.
func sections(body string) (string, []section) {
	var pre strings.Builder
	var secs []section
	seen := make(map[string]int)
	fence := "" // the opening fence of the code block we are in
	prev := ""  // the line before l
	for _, l := range splitLines(body) {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
		case fence == "":
			if d := datedHeading().FindStringSubmatch(l); d != nil {
				key := strings.TrimSpace(l)
				seen[key]++
				if n := seen[key]; n > 1 {
					key = fmt.Sprintf("%s\x00%d", key, n)
				}
				after := ""
				if len(secs) > 0 {
					after = secs[len(secs)-1].key
				}
				secs = append(secs, section{key: key, date: strings.TrimSpace(d[1] + " " + d[2]), after: after, spaced: isBlank(prev)})
			}
		}
		if len(secs) == 0 {
			pre.WriteString(l)
		} else {
			s := &secs[len(secs)-1]
			s.lines = append(s.lines, l)
		}
		prev = l
	}
	return pre.String(), secs
}

func byKey(secs []section) map[string]section {
	m := make(map[string]section, len(secs))
	for _, s := range secs {
		m[s.key] = s
	}
	return m
}

func has(secs map[string]section, key string) bool {
	_, ok := secs[key]
	return ok
}

// descending reports whether sections are written newest first: some
// date is older than the one before it, and none is newer.
func descending(secs []section) bool {
	older := false
	for i := 1; i < len(secs); i++ {
		switch {
		case secs[i].date > secs[i-1].date:
			return false
		case secs[i].date < secs[i-1].date:
			older = true
		}
	}
	return older
}

// insertByDate puts s after the last section of order that comes before it
// or at the same time (after the last one at or after its time, if desc),
// or first if there is none.
func insertByDate(order []section, s section, desc bool) []section {
	i := 0
	for j, r := range order {
		if !desc && r.date <= s.date || desc && r.date >= s.date {
			i = j + 1
		}
	}
	order = append(order, section{})
	copy(order[i+1:], order[i:])
	order[i] = s
	return order
}
