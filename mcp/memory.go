package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// The memory tool: the six commands of Anthropic's client-side memory tool
// (memory_20250818) on the vault, which is /memories. A path is the file
// it names, as written: /memories/a_b.txt is the vault's a_b.txt, never
// a-b.txt. A .md file is an entry: the tool shows and edits its body, and
// its frontmatter (title, type, dates) is ctx0's, kept and hidden; any
// other file is plain text, shown whole. Every write is one commit through
// the vault's write path (vault.EditFiles), which checks each path,
// redacts, and keeps the file's history in git. Results and errors are
// the reference implementation's, which the models are trained on; where
// its two SDKs differ, ctx0 says what the TypeScript SDK says, unless that
// misleads (see memoryConformance in the tests).

type memoryIn struct {
	Command    string  `json:"command" jsonschema:"view, create, str_replace, insert, delete or rename"`
	Path       string  `json:"path,omitempty" jsonschema:"a path under /memories, such as /memories or /memories/preferences/editor.md"`
	ViewRange  []int   `json:"view_range,omitempty" jsonschema:"view: the first and last line to show, [1, 20]; -1 as the last means to the end"`
	FileText   *string `json:"file_text,omitempty" jsonschema:"create: the file's text"`
	OldStr     *string `json:"old_str,omitempty" jsonschema:"str_replace: the text to replace, which must occur exactly once"`
	NewStr     *string `json:"new_str,omitempty" jsonschema:"str_replace: the text to put in its place"`
	InsertLine *int    `json:"insert_line,omitempty" jsonschema:"insert: the line after which to insert (0: at the top)"`
	InsertText *string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert"`
	OldPath    string  `json:"old_path,omitempty" jsonschema:"rename: the file or folder to move"`
	NewPath    string  `json:"new_path,omitempty" jsonschema:"rename: where to move it"`
}

const memRoot = "/memories"

// lineWidth is the width of line numbers in views, and maxLines the most
// lines a view shows, as the reference's.
const (
	lineWidth = 6
	maxLines  = 999999
)

// maxListed bounds a folder view: a large vault lists its first files and
// says how many more there are, rather than ten thousand lines.
const maxListed = 300

// guideFile is the vault's guide for agents: readable, not writable here.
const guideFile = "CONTEXT.md"

type targetKind int

const (
	kindNone targetKind = iota // nothing there (yet)
	kindDir                    // a folder
	kindFile                   // a regular file
)

// target is what a /memories path leads to.
type target struct {
	given string // the path as the agent wrote it: messages echo it, as the reference's do
	rel   string // relative to the vault root, cleaned; "" is the root
	kind  targetKind
}

func (s *Server) memoryTool(ctx context.Context, req *sdk.CallToolRequest, in memoryIn) (*sdk.CallToolResult, any, error) {
	cmd := strings.ToLower(strings.TrimSpace(in.Command))
	var text string
	var err error
	if cmd != "view" {
		if !validCommand(cmd) {
			return nil, nil, fmt.Errorf("unknown command %q: use view, create, str_replace, insert, delete or rename", in.Command)
		}
		var counted time.Time
		if counted, err = s.writes.allow(ctx, "memory writes"); err != nil {
			return nil, nil, err
		}
		defer func() {
			if err != nil {
				s.writes.undo(ctx, counted) // only writes made count
			}
		}()
	}
	switch cmd {
	case "view":
		text, err = s.memView(in)
	case "create":
		text, err = s.memCreate(ctx, in)
	case "str_replace":
		text, err = s.memReplace(ctx, in)
	case "insert":
		text, err = s.memInsert(ctx, in)
	case "delete":
		text, err = s.memDelete(ctx, in)
	case "rename":
		text, err = s.memRename(ctx, in)
	}
	if err != nil {
		return nil, nil, err
	}
	return textResult("%s", text), nil, nil
}

func validCommand(c string) bool {
	switch c {
	case "view", "create", "str_replace", "insert", "delete", "rename":
		return true
	}
	return false
}

// parsePath takes a /memories path apart as the reference does: it must
// start with /memories, and ".." resolves, as long as where the path ends
// is inside /memories (/memories/../memories/x is /memories/x). Hidden
// parts (.git, .ctx0) are the vault's machinery or other tools' files,
// never memories.
func parsePath(arg, p string) (target, error) {
	if p == "" {
		return target{}, fmt.Errorf("%q is missing: give a path under /memories", arg)
	}
	if rest, ok := strings.CutPrefix(p, memRoot); !ok || (rest != "" && rest[0] != '/') {
		return target{}, fmt.Errorf("Path must start with /memories, got: %s", p)
	}
	// Resolved as names only: no link is followed (CheckPath refuses them).
	c := path.Clean(p)
	rel, ok := strings.CutPrefix(c, memRoot+"/")
	if c == memRoot {
		rel, ok = "", true
	}
	if !ok {
		return target{}, fmt.Errorf("Path %s would escape /memories directory", p)
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return target{}, fmt.Errorf("The path %s is hidden (%s): hidden files and folders, such as .git and .ctx0, are not memories", p, seg)
		}
	}
	return target{given: p, rel: rel}, nil
}

// locate finds what a /memories path leads to, through the vault's one
// path guard: no part of it may be a symbolic link.
func (s *Server) locate(arg, p string) (target, error) {
	t, err := parsePath(arg, p)
	if err != nil {
		return t, err
	}
	if t.rel == "" {
		t.kind = kindDir
		return t, nil
	}
	if err := vault.CheckPath(s.root(), t.rel); err != nil {
		if errors.Is(err, vault.ErrLink) {
			return t, fmt.Errorf("Path would escape /memories directory via symlink: %v", err)
		}
		return t, fmt.Errorf("Path %s would escape /memories directory: %v", p, err)
	}
	fi, err := os.Lstat(s.full(t.rel))
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		t.kind = kindNone
	case err != nil:
		return t, err
	case fi.IsDir():
		t.kind = kindDir
	case fi.Mode().IsRegular():
		t.kind = kindFile
	default:
		return t, fmt.Errorf("Unsupported file type for %s", p)
	}
	return t, nil
}

func (s *Server) root() string { return s.opts.Memory.Vault.Root() }

func (s *Server) full(rel string) string {
	return filepath.Join(s.root(), filepath.FromSlash(rel))
}

// isEntry tells whether the file at rel is an entry, whose body is what
// the tool shows.
func isEntry(rel string) bool {
	return strings.HasSuffix(rel, ".md") && rel != guideFile
}

// memFile is a file as the tool sees it: text is an entry's body or
// another file's whole text; e is the entry (nil for another file).
type memFile struct {
	text string
	e    *entry.Entry
}

// readMem reads the file at rel.
func (s *Server) readMem(t target) (memFile, error) {
	data, err := vault.ReadFile(s.root(), t.rel)
	if err != nil {
		return memFile{}, err
	}
	if err := entry.CheckContent(data); err != nil {
		if errors.Is(err, entry.ErrTooLarge) {
			return memFile{}, fmt.Errorf("File %s is too large to view: %v", t.given, err)
		}
		return memFile{}, fmt.Errorf("File %s is not a valid UTF-8 text file: %v", t.given, err)
	}
	if !isEntry(t.rel) {
		return memFile{text: string(data)}, nil
	}
	e, err := entry.Parse(data)
	if err != nil {
		return memFile{}, fmt.Errorf("File %s: %v", t.given, err)
	}
	return memFile{text: e.Body(), e: e}, nil
}

// bytes is f with text as its new text; an entry's updated is bumped.
func (s *Server) bytes(f memFile, text string) ([]byte, error) {
	if f.e == nil {
		return []byte(text), nil
	}
	f.e.SetBody(text)
	if err := f.e.Set(entry.FieldUpdated, s.opts.Memory.Now().UTC().Truncate(time.Second)); err != nil {
		return nil, err
	}
	return f.e.Bytes(), nil
}

func numbered(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d\t%s", lineWidth, first+i, l)
	}
	return b.String()
}

func (s *Server) memView(in memoryIn) (string, error) {
	t, err := s.locate("path", in.Path)
	if err != nil {
		return "", err
	}
	switch t.kind {
	case kindNone:
		return "", fmt.Errorf("The path %s does not exist. Please provide a valid path.", t.given)
	case kindDir:
		return s.viewDir(t)
	}
	f, err := s.readMem(t)
	if err != nil {
		return "", err
	}
	lines := strings.Split(f.text, "\n")
	if len(lines) > maxLines {
		return "", fmt.Errorf("File %s has too many lines (%d). Maximum is 999,999 lines.", t.given, len(lines))
	}
	first := 1
	if len(in.ViewRange) == 2 {
		// As the reference: the range is a slice, clamped, never an
		// error; a start below 1 is 1, an end of -1 is the last line.
		start := max(1, in.ViewRange[0]) - 1
		end := in.ViewRange[1]
		switch {
		case end == -1:
			end = len(lines)
		case end < 0:
			end = max(0, len(lines)+end)
		}
		start, end = min(start, len(lines)), min(end, len(lines))
		if end < start {
			end = start
		}
		lines, first = lines[start:end], start+1
	}
	return fmt.Sprintf("Here's the content of %s with line numbers:\n%s", t.given, numbered(lines, first)), nil
}

// viewDir lists a folder two levels deep, as the reference does: size and
// path, folders with a trailing slash, hidden items and node_modules left
// out. An entry's size is its body's, the bytes view shows. Links are not
// followed, so not listed.
func (s *Server) viewDir(t target) (string, error) {
	type item struct {
		size int64
		p    string
	}
	var items []item
	more := 0
	var walk func(rel, shown string, depth int) error
	walk = func(rel, shown string, depth int) error {
		des, err := os.ReadDir(s.full(rel))
		if err != nil {
			return err
		}
		for _, de := range des { // ReadDir sorts by name
			name := de.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			child, childShown := path.Join(rel, name), shown+"/"+name
			switch {
			case de.IsDir():
				childShown += "/"
			case !de.Type().IsRegular():
				continue
			}
			if len(items) >= maxListed {
				more++ // counted, not read: a large vault lists fast
			} else if size, err := s.shownSize(child, de); err == nil {
				items = append(items, item{size, childShown})
			}
			if de.IsDir() && depth < 2 {
				if err := walk(child, shown+"/"+name, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(t.rel, t.given, 1); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here're the files and directories up to 2 levels deep in %s, excluding hidden items and node_modules:\n", t.given)
	var dirSize int64
	if fi, err := os.Stat(s.full(t.rel)); err == nil {
		dirSize = fi.Size()
	}
	fmt.Fprintf(&b, "%s\t%s", formatSize(dirSize), t.given)
	for _, it := range items {
		fmt.Fprintf(&b, "\n%s\t%s", formatSize(it.size), it.p)
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n(%d more not listed: view a folder below, or use the search tool)", more)
	}
	return b.String(), nil
}

// shownSize is the size a listing gives: a folder's, a file's, an entry's
// body's.
func (s *Server) shownSize(rel string, de fs.DirEntry) (int64, error) {
	info, err := de.Info()
	if err != nil {
		return 0, err
	}
	if de.IsDir() || !isEntry(rel) {
		return info.Size(), nil
	}
	data, err := vault.ReadFile(s.root(), rel)
	if err != nil {
		return 0, err
	}
	e, err := entry.Parse(data)
	if err != nil {
		return info.Size(), nil // shown whole by no one: its size as it is
	}
	return int64(len(e.Body())), nil
}

// formatSize is a size as the reference writes it: 0B, 512B, 1.5K, 4K.
func formatSize(n int64) string {
	units := []string{"B", "K", "M", "G"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d%s", int64(f), units[i])
	}
	return fmt.Sprintf("%.1f%s", f, units[i])
}

// checkSize refuses a file over the memory tool's limit.
func (s *Server) checkSize(given, text string) error {
	if n := utf8.RuneCountInString(text); n > s.opts.MemoryMaxChars {
		return fmt.Errorf("File %s would be too long: %d characters, the limit is %d. Keep memory files short and focused: split it into several files, one topic each, or condense it", given, n, s.opts.MemoryMaxChars)
	}
	return nil
}

// readOnly refuses to write the vault's guide.
func readOnly(t target) error {
	if t.rel == guideFile {
		return fmt.Errorf("%s is the vault's guide for agents, read-only here; write memories in other files", t.given)
	}
	return nil
}

// checkNew refuses a new file or folder name the vault cannot hold: one
// that Windows or macOS, where the vault may be cloned, would refuse or
// take for a file already there. A name that differs from one in its
// folder only in case or Unicode form is that file there, so the reference
// run there says it exists. old is a path being renamed, whose own name
// may be taken again in another case.
func (s *Server) checkNew(t target, old string) error {
	segs := strings.Split(t.rel, "/")
	for i, seg := range segs {
		rel := strings.Join(segs[:i+1], "/")
		if fi, err := os.Lstat(s.full(rel)); err == nil {
			if i < len(segs)-1 && !fi.IsDir() {
				return fmt.Errorf("Cannot create %s: %s/%s is a file, not a directory", t.given, memRoot, rel)
			}
			continue
		}
		for _, n := range segs[i:] {
			if err := checkName(n); err != nil {
				return fmt.Errorf("The path %s is not a valid memory path: %v", t.given, err)
			}
		}
		parent := strings.Join(segs[:i], "/")
		des, _ := os.ReadDir(s.full(parent))
		for _, de := range des {
			other := path.Join(parent, de.Name())
			if other != old && sameName(de.Name(), seg) {
				return fmt.Errorf("File %s already exists (as %s/%s: names that differ only in case or in the encoding of accents are one file on macOS and Windows)", t.given, memRoot, other)
			}
		}
		return nil // what follows is in a new folder
	}
	return nil
}

// sameName tells whether two names are one file where names are compared
// without case and in one Unicode form.
func sameName(a, b string) bool {
	return strings.EqualFold(norm.NFC.String(a), norm.NFC.String(b))
}

// checkName refuses a name Windows cannot hold (so a clone there would
// lose the file), or one longer than the vault's names may be.
func checkName(seg string) error {
	switch {
	case strings.ContainsFunc(seg, unicode.IsControl):
		return fmt.Errorf("%q has control characters", seg)
	case strings.ContainsAny(seg, `\:*?"<>|`):
		return fmt.Errorf(`%q has one of \ : * ? " < > |, which Windows does not allow in names`, seg)
	case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " "):
		return fmt.Errorf("%q ends with a dot or a space, which Windows drops", seg)
	case vault.ReservedOnWindows(seg):
		return fmt.Errorf("%q is a device name that Windows reserves", seg)
	case len(seg) > vault.MaxSegment:
		return fmt.Errorf("%q is longer than %d bytes", seg, vault.MaxSegment)
	}
	return nil
}

func (s *Server) memCreate(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.locate("path", in.Path)
	if err != nil {
		return "", err
	}
	if in.FileText == nil {
		return "", errors.New(`"file_text" is missing: give the file's text (it may be empty)`)
	}
	text := *in.FileText
	if err := s.checkSize(t.given, text); err != nil {
		return "", err
	}
	c, err := s.opts.Memory.Vault.EditFiles(ctx, func() (string, []vault.FileEdit, error) {
		if _, err := os.Lstat(s.full(t.rel)); t.rel == "" || err == nil {
			return "", nil, fmt.Errorf("File %s already exists", t.given)
		}
		if err := s.checkNew(t, ""); err != nil {
			return "", nil, err
		}
		data, err := s.newFile(t.rel, text)
		if err != nil {
			return "", nil, fmt.Errorf("File %s: %v", t.given, err)
		}
		return "memory: create " + t.rel, []vault.FileEdit{{Path: t.rel, Data: data}}, nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("File created successfully at: %s%s", t.given, redactedNote(c)), nil
}

func hasFrontmatter(text string) bool {
	return strings.HasPrefix(text, "---\n") || strings.HasPrefix(text, "---\r\n")
}

// newFile is a new file at rel holding text: the text itself for a file
// that is not an entry, or one whose text brings frontmatter of its own;
// else the text as the body under ctx0's frontmatter, with a title from
// its first heading or its name and the type of its folder. Text that
// opens with a '---' line but does not read as frontmatter (a rule, a
// block never closed) is body, as written.
func (s *Server) newFile(rel, text string) ([]byte, error) {
	if !isEntry(rel) {
		return []byte(text), nil
	}
	if hasFrontmatter(text) {
		if e, err := entry.Parse([]byte(text)); err == nil && len(e.Keys()) > 0 {
			return []byte(text), nil
		}
	}
	name := strings.TrimSuffix(rel, ".md")
	e, err := vault.NewEntry(vault.Meta{Title: titleOf(name, text), Type: s.typeOf(name), Source: "agent"}, s.opts.Memory.Now(), text)
	if err != nil {
		return nil, err
	}
	return e.Bytes(), nil
}

// titleOf is a new file's title: its first markdown heading, else its name
// in words.
func titleOf(name, text string) string {
	for _, l := range strings.SplitN(text, "\n", 20) {
		if h, ok := strings.CutPrefix(strings.TrimSpace(l), "# "); ok && strings.TrimSpace(h) != "" {
			return strings.TrimSpace(h)
		}
	}
	return vault.TitleFromName(name)
}

// typeOf is the type of the entries of a name's folder, note if none.
func (s *Server) typeOf(name string) string { return s.opts.Memory.Vault.Config().TypeAt(name) }

// fileTarget is the file an edit works on.
func (s *Server) fileTarget(in memoryIn) (target, error) {
	t, err := s.locate("path", in.Path)
	if err != nil {
		return t, err
	}
	switch t.kind {
	case kindNone:
		return t, fmt.Errorf("The path %s does not exist. Please provide a valid path.", t.given)
	case kindDir:
		return t, fmt.Errorf("The path %s is not a file.", t.given)
	}
	return t, readOnly(t)
}

// editFile changes the text of the file at t with fn, under the vault lock,
// in one commit.
func (s *Server) editFile(ctx context.Context, t target, verb string, fn func(text string) (string, error)) (vault.Commit, error) {
	return s.opts.Memory.Vault.EditFiles(ctx, func() (string, []vault.FileEdit, error) {
		f, err := s.readMem(t)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("The file %s no longer exists (may have been deleted or renamed concurrently).", t.given)
		}
		if err != nil {
			return "", nil, err
		}
		next, err := fn(f.text)
		if err != nil {
			return "", nil, err
		}
		if err := s.checkSize(t.given, next); err != nil {
			return "", nil, err
		}
		data, err := s.bytes(f, next)
		if err != nil {
			return "", nil, err
		}
		return "memory: " + verb + " " + t.rel, []vault.FileEdit{{Path: t.rel, Data: data}}, nil
	})
}

func (s *Server) memReplace(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.fileTarget(in)
	if err != nil {
		return "", err
	}
	if in.OldStr == nil || *in.OldStr == "" {
		return "", errors.New(`"old_str" is missing or empty: give the exact text to replace, as view shows it (without line numbers)`)
	}
	old, repl := *in.OldStr, ""
	if in.NewStr != nil {
		repl = *in.NewStr
	}
	var snippet string
	c, err := s.editFile(ctx, t, "edit", func(content string) (string, error) {
		// Occurrences are counted, not lines that hold one: two on one
		// line are not unique either.
		switch n := strings.Count(content, old); {
		case n == 0:
			return "", fmt.Errorf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, t.given)
		case n > 1:
			var lines []string
			for at := 0; ; at++ {
				j := strings.Index(content[at:], old)
				if j < 0 {
					break
				}
				at += j
				lines = append(lines, fmt.Sprint(strings.Count(content[:at], "\n")+1))
			}
			return "", fmt.Errorf("No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique", old, strings.Join(lines, ", "))
		}
		changed := strings.Count(content[:strings.Index(content, old)], "\n")
		next := strings.Replace(content, old, repl, 1)
		lines := strings.Split(next, "\n")
		from, to := max(0, changed-2), min(len(lines), changed+3)
		snippet = numbered(lines[from:to], from+1)
		return next, nil
	})
	if err != nil {
		return "", err
	}
	return "The memory file has been edited." + redactedNote(c) + " Here is the snippet showing the change (with line numbers):\n" + snippet, nil
}

func (s *Server) memInsert(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.fileTarget(in)
	if err != nil {
		return "", err
	}
	if in.InsertLine == nil {
		return "", errors.New(`"insert_line" is missing: give the line after which to insert, 0 for the top`)
	}
	if in.InsertText == nil {
		return "", errors.New(`"insert_text" is missing: give the text to insert`)
	}
	at := *in.InsertLine
	c, err := s.editFile(ctx, t, "insert into", func(content string) (string, error) {
		// Lines as view numbers them: the text after a final line break
		// is a last, empty line, and the file's line breaks stay as they
		// are.
		lines := strings.Split(content, "\n")
		if at < 0 || at > len(lines) {
			return "", fmt.Errorf("Invalid `insert_line` parameter: %d. It should be within the range of lines of the file: [0, %d]", at, len(lines))
		}
		add := strings.TrimSuffix(*in.InsertText, "\n")
		return strings.Join(slices.Insert(lines, at, add), "\n"), nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The file %s has been edited.%s", t.given, redactedNote(c)), nil
}

// files lists the files in the folder at t and below, hidden ones (a
// .gitkeep) too: a folder deleted or renamed goes whole. A folder that
// holds a link or a hidden folder is refused: no memory command touches
// those.
func (s *Server) files(t target) ([]string, error) {
	var out []string
	err := filepath.WalkDir(s.full(t.rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(s.root(), p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == t.rel:
			return nil
		case d.IsDir() && strings.HasPrefix(d.Name(), "."):
			return fmt.Errorf("%s holds %s/%s, a hidden folder, which the memory tool leaves alone: move or delete it by hand first", t.given, memRoot, rel)
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s holds %s/%s, a symbolic link, which ctx0 does not follow: remove it by hand first", t.given, memRoot, rel)
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("Unsupported file type for %s/%s", memRoot, rel)
		case rel == guideFile:
			return readOnly(target{given: memRoot + "/" + guideFile, rel: rel})
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}

// removeEmptyDirs removes the empty folders at rel and below, which git
// does not hold: a deleted or renamed folder goes from the view whole.
func (s *Server) removeEmptyDirs(rel string) {
	var dirs []string
	_ = filepath.WalkDir(s.full(rel), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, d := range slices.Backward(dirs) {
		os.Remove(d) // fails, as it should, on a folder that is not empty
	}
}

func (s *Server) memDelete(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.locate("path", in.Path)
	if err != nil {
		return "", err
	}
	if t.rel == "" {
		return "", errors.New("Cannot delete the /memories directory itself")
	}
	if err := readOnly(t); err != nil {
		return "", err
	}
	_, err = s.opts.Memory.Vault.EditFiles(ctx, func() (string, []vault.FileEdit, error) {
		fi, err := os.Lstat(s.full(t.rel))
		if err != nil {
			return "", nil, fmt.Errorf("The path %s does not exist", t.given)
		}
		if !fi.IsDir() {
			return "memory: delete " + t.rel, []vault.FileEdit{{Path: t.rel}}, nil
		}
		files, err := s.files(t)
		if err != nil {
			return "", nil, err
		}
		edits := make([]vault.FileEdit, len(files))
		for i, f := range files {
			edits[i] = vault.FileEdit{Path: f}
		}
		return fmt.Sprintf("memory: delete %s/ (%d files)", t.rel, len(files)), edits, nil
	})
	if err != nil {
		return "", err
	}
	s.removeEmptyDirs(t.rel)
	return fmt.Sprintf("Successfully deleted %s", t.given), nil
}

func (s *Server) memRename(ctx context.Context, in memoryIn) (string, error) {
	from, err := s.locate("old_path", in.OldPath)
	if err != nil {
		return "", err
	}
	to, err := s.locate("new_path", in.NewPath)
	if err != nil {
		return "", err
	}
	switch {
	case from.rel == "":
		return "", errors.New("Cannot rename the /memories directory itself")
	case to.kind != kindNone && !s.caseRename(from, to):
		return "", fmt.Errorf("The destination %s already exists", to.given)
	case from.kind == kindNone:
		return "", fmt.Errorf("The path %s does not exist", from.given)
	case strings.HasPrefix(to.rel, from.rel+"/"):
		return "", fmt.Errorf("Cannot move %s into itself (%s)", from.given, to.given)
	}
	if err := readOnly(from); err != nil {
		return "", err
	}
	if err := readOnly(to); err != nil {
		return "", err
	}
	c, err := s.opts.Memory.Vault.EditFiles(ctx, func() (string, []vault.FileEdit, error) {
		fi, err := os.Lstat(s.full(from.rel))
		if err != nil {
			return "", nil, fmt.Errorf("The path %s does not exist", from.given)
		}
		if err := s.checkNew(to, from.rel); err != nil {
			return "", nil, err
		}
		if !fi.IsDir() {
			data, err := s.moved(from, to)
			if err != nil {
				return "", nil, err
			}
			return fmt.Sprintf("memory: rename %s to %s", from.rel, to.rel), []vault.FileEdit{{Path: from.rel}, {Path: to.rel, Data: data}}, nil
		}
		files, err := s.files(from)
		if err != nil {
			return "", nil, err
		}
		// The old files go first: where names differ only in case, the
		// new ones may be the same files (macOS).
		edits := make([]vault.FileEdit, 2*len(files))
		for i, f := range files {
			data, err := vault.ReadFile(s.root(), f)
			if err != nil {
				return "", nil, err
			}
			edits[i] = vault.FileEdit{Path: f}
			edits[len(files)+i] = vault.FileEdit{Path: to.rel + strings.TrimPrefix(f, from.rel), Data: data}
		}
		return fmt.Sprintf("memory: rename %s/ to %s/ (%d files)", from.rel, to.rel, len(files)), edits, nil
	})
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(s.full(from.rel)); err == nil && fi.IsDir() {
		// Folders git does not hold (empty ones) move too: the new one is
		// made, the old one goes.
		if err := os.MkdirAll(s.full(to.rel), 0o755); err != nil {
			return "", fmt.Errorf("rename %s: %w", to.given, err)
		}
		s.removeEmptyDirs(from.rel)
	}
	return fmt.Sprintf("Successfully renamed %s to %s%s", from.given, to.given, redactedNote(c)), nil
}

// caseRename tells whether from and to are one file under two names that
// differ only in case (or Unicode form), as on macOS: renaming it changes
// how its name is written.
func (s *Server) caseRename(from, to target) bool {
	if from.rel == to.rel || !sameName(from.rel, to.rel) {
		return false
	}
	a, errA := os.Lstat(s.full(from.rel))
	b, errB := os.Lstat(s.full(to.rel))
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// moved is the file at from as it is to be at to. Between an entry and
// another file, the text view shows moves, not the frontmatter: the entry
// that becomes notes.txt leaves its frontmatter in git history, and
// notes.txt that becomes an entry gets ctx0's.
func (s *Server) moved(from, to target) ([]byte, error) {
	if isEntry(from.rel) == isEntry(to.rel) {
		return vault.ReadFile(s.root(), from.rel)
	}
	f, err := s.readMem(from)
	if err != nil {
		return nil, err
	}
	return s.newFile(to.rel, f.text)
}
