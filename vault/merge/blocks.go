package merge

import "strings"

// calloutPrefix starts the first line of a conflict block (see the package
// documentation for the format).
const calloutPrefix = "> [!conflict]"

// Block is a conflict block found in a body.
type Block struct {
	// Start and End are the block's lines in the body, zero-based, End
	// excluded.
	Start, End int
	// Title is the callout's title, as "Merge conflict: theirs had ...".
	Title string
	// Text is the quoted version, unquoted (line ends as in body).
	Text string
}

// Blocks finds the conflict blocks in body, in order: the blocks a merge
// wrote that a person or the curator has not yet removed.
func Blocks(body string) []Block {
	lines := strings.Split(body, "\n")
	var out []Block
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], calloutPrefix) {
			continue
		}
		j := i + 1
		var text []string
		for j < len(lines) && strings.HasPrefix(lines[j], ">") {
			text = append(text, strings.TrimPrefix(strings.TrimPrefix(lines[j], ">"), " "))
			j++
		}
		out = append(out, Block{
			Start: i, End: j,
			Title: strings.TrimSpace(strings.TrimPrefix(lines[i], calloutPrefix)),
			Text:  strings.Join(text, "\n"),
		})
		i = j - 1
	}
	return out
}

// HoldsBlock reports whether body still has a conflict block quoting text
// (compared without surrounding blank space).
func HoldsBlock(body, text string) bool {
	want := strings.TrimSpace(text)
	for _, b := range Blocks(body) {
		if strings.TrimSpace(b.Text) == want {
			return true
		}
	}
	return false
}
