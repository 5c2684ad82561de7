package words

import (
	"fmt"
	"strconv"
	"strings"
	"time"
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

// Duration says a length of time to the minute, for people: 0m, 45m, 2h05m.
func Duration(d time.Duration) string {
	d = d.Round(time.Minute)
	if d >= time.Hour {
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}
