package merge

import (
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/vault/entry"
)

// fallback merges files of which at least one does not parse as an entry
// (texts and errs are base's, ours' and theirs'), so that nothing in them
// is lost: line by line, as a field merge does bodies. If that result does
// not parse either, while ours or theirs does, that side is the result
// (the winner if both do) and the other one is kept whole in a conflict
// block. Unless only base was at fault, a conflict says what happened.
func (m *merger) fallback(texts [3]string, errs [3]error) []byte {
	lines, aside := m.lines3(texts[0], texts[1], texts[2])
	merged := strings.Join(lines, "")
	switch {
	case len(aside) > 0:
		merged = m.setAside(lines, aside, 0)
	case m.open(texts[0], texts[1], texts[2]):
		merged = unterminate(merged, m.eol)
	}
	_, err := entry.Parse([]byte(merged))
	if err == nil || errs[1] != nil && errs[2] != nil {
		if errs[1] != nil || errs[2] != nil {
			m.wholeFile(texts, errs, m.opt.Winner, "merged line by line")
		}
		return []byte(merged)
	}

	m.conflicts = m.conflicts[:0] // the ones the line merge set aside are not in the result
	keep := m.opt.Winner
	if errs[index(keep)] != nil {
		keep = keep.other()
	}
	other := keep.other()
	e, _ := entry.Parse([]byte(texts[index(keep)]))
	why := "that could not be merged"
	if err := errs[index(other)]; err != nil {
		why = "that does not parse (" + words.OneLine(err.Error()) + ")"
	}
	title := fmt.Sprintf("%s had a version of this entry %s; all of it:", m.label(other), why)
	block := m.block(title, splitLines(texts[index(other)]))
	e.SetBody(m.withBlocks(splitLines(e.Body()), []string{block}))
	m.wholeFile(texts, errs, keep, fmt.Sprintf("%s kept, %s set aside in a block", keep, other))
	return e.Bytes()
}

// wholeFile records a conflict over the whole file, which did not parse
// on some side.
func (m *merger) wholeFile(texts [3]string, errs [3]error, kept Side, what string) {
	var bad []string
	for i, name := range []string{"base", m.opt.OursLabel, m.opt.TheirsLabel} {
		if errs[i] != nil {
			bad = append(bad, fmt.Sprintf("%s does not parse (%s)", name, words.OneLine(errs[i].Error())))
		}
	}
	hunk := fmt.Sprintf("whole file: %s; %s", strings.Join(bad, ", "), what)
	m.conflicts = append(m.conflicts, Conflict{Hunk: hunk, Base: texts[0], Ours: texts[1], Theirs: texts[2], Kept: kept})
}

// index is the place of a side's text in the texts of fallback.
func index(s Side) int {
	if s == Ours {
		return 1
	}
	return 2
}
