// Package entry is the file format of a vault entry: a markdown body under a
// block of YAML frontmatter between '---' lines.
//
// Parsing and rendering are byte-exact. Bytes returns the parsed input
// unchanged until something is changed, and a change to one field rewrites
// only that field's lines, so that edits by ctx0 make small diffs next to the
// hand edits of people and agents. The package reads no files and no clock.
package entry

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxSize is the largest file Parse accepts, in bytes. Entries are notes;
// anything bigger is a mistake, and refusing it bounds the work of parsing.
const MaxSize = 1 << 20

// Errors of Parse. They are wrapped with details: the size, the offset of
// the bad byte, the YAML problem and its line.
var (
	ErrTooLarge    = errors.New("entry: file too large")
	ErrBinary      = errors.New("entry: binary content")
	ErrInvalidUTF8 = errors.New("entry: invalid UTF-8")
	// ErrFrontmatter covers YAML errors, with yaml.v3's line numbers
	// counted in the file; frontmatter that is not a mapping of fields or
	// repeats one; and an opening '---' line without a closing one.
	ErrFrontmatter = errors.New("entry: malformed frontmatter")
)

// Entry is one vault file. The zero value is an entry with no frontmatter
// and an empty body.
type Entry struct {
	open  string     // the opening '---' line, with its line break; "" if there is no frontmatter
	front string     // the YAML between the delimiter lines, as written
	close string     // the closing '---' line, with its line break unless it ends the file
	body  string     // everything after the closing line
	doc   *yaml.Node // front, parsed; nil if it holds no fields
}

// New returns an entry with no fields and an empty body.
func New() *Entry {
	return &Entry{}
}

// Parse reads a file. A file that does not start with a '---' line has no
// frontmatter: all of it is body.
func Parse(data []byte) (*Entry, error) {
	if err := CheckContent(data); err != nil {
		return nil, err
	}
	e := &Entry{}
	var err error
	e.open, e.front, e.close, e.body, err = split(string(data))
	if err != nil {
		return nil, err
	}
	if e.doc, err = parseFront(e.front); err != nil {
		return nil, err
	}
	return e, nil
}

// CheckContent is what Parse refuses before it reads any YAML: more than
// MaxSize bytes, a NUL byte (binary content), invalid UTF-8. Writers check
// their text with it, so that nothing is stored that a read would refuse.
func CheckContent(data []byte) error {
	if len(data) > MaxSize {
		return fmt.Errorf("%w: %d bytes, limit is %d", ErrTooLarge, len(data), MaxSize)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at offset %d", ErrBinary, i)
	}
	if i := invalidUTF8(data); i >= 0 {
		return fmt.Errorf("%w at offset %d", ErrInvalidUTF8, i)
	}
	return nil
}

// Bytes renders the entry: the file it was parsed from, unless something
// was changed.
func (e *Entry) Bytes() []byte {
	return []byte(e.open + e.front + e.close + e.body)
}

// Body returns the markdown after the frontmatter.
func (e *Entry) Body() string {
	return e.body
}

// SetBody replaces the markdown after the frontmatter, which stays as it is.
func (e *Entry) SetBody(body string) {
	e.body = body
	if body == "" {
		return
	}
	switch {
	case e.open == "":
		if opens(body) {
			// Without frontmatter of its own, the body would be read
			// back as frontmatter.
			e.open, e.close = "---"+e.eol(), "---"+e.eol()
		}
	case !strings.HasSuffix(e.close, "\n"):
		// The closing line ended the file; the body needs a line of its own.
		e.close += e.eol()
	}
}

// split cuts a file into the delimiter lines, the frontmatter between them
// and the body.
//
// It does not use github.com/adrg/frontmatter, which cannot round-trip: it
// skips blank lines before the opening '---' (they are then lost from the
// body), takes an unterminated block for a file without frontmatter, and
// hands out the YAML but not the delimiter lines as written.
func split(data string) (open, front, close, body string, err error) {
	if !opens(data) {
		return "", "", "", data, nil
	}
	open = firstLine(data)
	rest := data[len(open):]
	for off := 0; off < len(rest); {
		line := firstLine(rest[off:])
		if isDelimiter(line) {
			return open, rest[:off], line, rest[off+len(line):], nil
		}
		off += len(line)
	}
	return "", "", "", "", fmt.Errorf("%w: no closing '---' line", ErrFrontmatter)
}

// opens reports whether a file that starts with s has frontmatter. A byte
// order mark is the one thing allowed before the opening line, as some
// editors on Windows write one.
func opens(s string) bool {
	return isDelimiter(strings.TrimPrefix(firstLine(s), "\uFEFF"))
}

// firstLine returns the first line of s with its line break, if any.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}

// isDelimiter reports whether line is a '---' line. Trailing blanks are
// allowed: they are invisible in an editor.
func isDelimiter(line string) bool {
	return strings.TrimRight(line, " \t\r\n") == "---"
}

// eol is the line break for lines the entry writes: the one that ends the
// file's first line.
func (e *Entry) eol() string {
	first := e.open
	if first == "" {
		first = firstLine(e.body)
	}
	if strings.HasSuffix(first, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// invalidUTF8 returns the offset of the first byte of data that is not
// part of valid UTF-8, or -1.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
