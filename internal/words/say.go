package words

import (
	"strconv"
	"strings"
)

// Plural says n things, in the singular for one: Plural(1, "entry",
// "entries") is "1 entry", Plural(3, ...) "3 entries".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// OneLine returns s on one line: its runs of white space, line breaks
// among them, made one space, and none at either end.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
