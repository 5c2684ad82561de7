package merge

import "strings"

// splitLines cuts s into lines that keep their line breaks; the last line
// lacks one if s does not end with a break.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// eolOf is the line break a text uses: the one ending its first line, or
// "\n" if it has none.
func eolOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// withEOL converts the line breaks of s to eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// terminated returns lines with a break after the last one, so that lines
// can be moved or appended without running into what follows.
func terminated(lines []string, eol string) []string {
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines = append(lines[:n-1:n-1], lines[n-1]+eol)
	}
	return lines
}

// unterminate removes the break after the last line of s, as terminated
// added it, for a merge of texts whose last line had none.
func unterminate(s, eol string) string {
	if strings.HasSuffix(s, eol) {
		return s[:len(s)-len(eol)]
	}
	return strings.TrimSuffix(s, "\n")
}

// endsOpen reports whether s is non-empty text whose last line has no break.
func endsOpen(s string) bool {
	return s != "" && !strings.HasSuffix(s, "\n")
}

// isBlank reports whether a line holds only blanks.
func isBlank(line string) bool {
	return strings.TrimSpace(line) == ""
}
