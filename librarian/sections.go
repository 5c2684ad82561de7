package librarian

import (
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// The editing of an entry's body by its sections: pure functions of text,
// which the writer uses to file a conversation into an episode, a
// project's activity and overview, a person's notes and the questions log.

// sectionHeading matches a dated heading of an append-only body.
var sectionHeading = lazy.Regexp(`^#{1,6} (\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?)`)

// insertSection puts section into body before the first dated section that
// comes after heading, else at the end: sections stay in time order
// whatever order conversations are filed in.
func insertSection(body, heading, section string) string {
	key := sectionHeading().FindStringSubmatch(heading)
	lines := strings.SplitAfter(body, "\n")
	at := len(lines)
	for i, l := range lines {
		if m := sectionHeading().FindStringSubmatch(l); m != nil && key != nil && m[1] > key[1] {
			at = i
			break
		}
	}
	before := strings.Join(lines[:at], "")
	after := strings.Join(lines[at:], "")
	if strings.TrimSpace(before) == "" {
		before = ""
	} else {
		before = strings.TrimRight(before, "\n") + "\n\n"
	}
	section = strings.TrimRight(section, "\n") + "\n"
	if after != "" {
		section += "\n"
	}
	return before + section + after
}

// appendToSection adds line at the end of the "## name" section of body,
// adding the section at the end if there is none.
func appendToSection(body, name, line string) string {
	lines, start, end := findSection(body, name)
	if start < 0 {
		return strings.TrimRight(body, "\n") + "\n\n## " + name + "\n\n" + line + "\n"
	}
	last := end
	for last > start+1 && strings.TrimSpace(lines[last-1]) == "" {
		last--
	}
	ins := []string{line}
	if last == start+1 {
		ins = []string{"", line}
	}
	if end < len(lines) {
		ins = append(ins, "")
	}
	out := append(append(slices.Clone(lines[:last]), ins...), lines[end:]...)
	return strings.Join(out, "\n") + "\n"
}

// replaceSection replaces the text of the "## name" section of body, or
// adds the section first if there is none.
func replaceSection(body, name, text string) string {
	lines, start, end := findSection(body, name)
	if start < 0 {
		return "## " + name + "\n\n" + text + "\n\n" + body
	}
	out := append(slices.Clone(lines[:start+1]), "", text)
	if end < len(lines) {
		out = append(append(out, ""), lines[end:]...)
	}
	return strings.Join(out, "\n") + "\n"
}

// findSection returns body's lines and the "## name" section among them: the
// index of its heading (-1 if there is none) and of the line after its
// last (the next "## " heading, or len(lines)).
func findSection(body, name string) (lines []string, start, end int) {
	lines = strings.Split(strings.TrimRight(body, "\n"), "\n")
	start, end = -1, len(lines)
	for i, l := range lines {
		if strings.TrimSpace(l) == "## "+name {
			start = i
			break
		}
	}
	if start < 0 {
		return lines, -1, end
	}
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") {
			return lines, start, i
		}
	}
	return lines, start, end
}
