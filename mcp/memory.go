package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// The memory tool: the six commands of Anthropic's client-side memory tool
// (memory_20250818), on the vault. /memories is the vault's root; a file is
// an entry, addressed by its file (/memories/contacts/sarah-chen.md) or by
// its name with any extension the agent gave it (/memories/notes.txt is the
// entry notes.txt, in the file notes.txt.md). A file shows and edits its
// body; the frontmatter is ctx0's (title, type, dates) and is kept. Every
// write is one commit through the vault's write path, which the index
// follows. Messages follow the reference implementation's, which the models
// are trained on.

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

// lineWidth is the width of line numbers in views, as the reference's.
const lineWidth = 6

// maxListed bounds a folder view: a large vault lists its folders, not
// ten thousand files.
const maxListed = 300

type targetKind int

const (
	kindNone  targetKind = iota // nothing there (yet)
	kindDir                     // a folder
	kindEntry                   // an entry file
	kindGuide                   // CONTEXT.md: readable, not writable
)

// target is what a /memories path leads to.
type target struct {
	shown string // the path as the agent wrote it, cleaned
	rel   string // relative to the vault root; "" is the root
	kind  targetKind
	name  string // the entry's name, for kindEntry and for a new file (kindNone)
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
		text, err = s.memView(ctx, in)
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

// errTraversal is a path that would leave /memories or enter the vault's
// machinery.
var errTraversal = errors.New("would escape /memories")

// parsePath takes a /memories path apart, refusing any that leaves it.
func parsePath(arg, p string) (target, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return target{}, fmt.Errorf("%q is missing: give a path under /memories", arg)
	}
	if strings.HasPrefix(p, "memories") {
		p = "/" + p
	}
	if p != memRoot && !strings.HasPrefix(p, memRoot+"/") {
		return target{}, fmt.Errorf("The path %s is not under /memories: every memory path starts with /memories, such as /memories/notes.md", p)
	}
	var segs []string
	for _, seg := range strings.FieldsFunc(p[len(memRoot):], func(r rune) bool { return r == '/' || r == '\\' }) {
		switch {
		case seg == "." || seg == ".." || strings.Contains(seg, ".."):
			return target{}, fmt.Errorf("The path %s %w: '..' is not allowed", p, errTraversal)
		case strings.HasPrefix(seg, "."):
			return target{}, fmt.Errorf("The path %s %w: hidden files and folders (.git, .ctx0) are not memories", p, errTraversal)
		case strings.ContainsFunc(seg, unicode.IsControl):
			return target{}, fmt.Errorf("The path %s has control characters", p)
		}
		segs = append(segs, seg)
	}
	rel := strings.Join(segs, "/")
	shown := memRoot
	if rel != "" {
		shown += "/" + rel
	}
	return target{shown: shown, rel: rel}, nil
}

// shownPath is the /memories path of an entry: its file, or its name when
// the name has an extension of its own (notes.txt rather than notes.txt.md).
func shownPath(name string) string {
	if strings.Contains(vault.Slug(name), ".") {
		return memRoot + "/" + name
	}
	return memRoot + "/" + vault.EntryPath(name)
}

// locate finds what a /memories path leads to.
func (s *Server) locate(arg, p string) (target, error) {
	t, err := parsePath(arg, p)
	if err != nil {
		return t, err
	}
	root := s.opts.Vault.Root()
	if err := vault.CheckPath(root, t.rel); err != nil {
		return t, fmt.Errorf("The path %s %w: %v", t.shown, errTraversal, err)
	}
	if t.rel == "" {
		t.kind = kindDir
		return t, nil
	}
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(t.rel))); err == nil && fi.IsDir() {
		t.kind = kindDir
		return t, nil
	}
	if t.rel == "CONTEXT.md" {
		t.kind = kindGuide
		return t, nil
	}
	// The file as written, if it is an entry.
	exact := strings.TrimSuffix(t.rel, ".md")
	if n, ok := vault.NameOf(vault.EntryPath(exact)); ok && s.isFile(n) {
		t.kind, t.name = kindEntry, n
		return t, nil
	}
	n, err := vault.NormalizeName(t.rel)
	if err != nil {
		return t, fmt.Errorf("The path %s is not a valid memory file name: %v", t.shown, err)
	}
	t.name = n
	if s.isFile(n) {
		t.kind = kindEntry
	}
	return t, nil
}

func (s *Server) isFile(name string) bool {
	fi, err := os.Lstat(filepath.Join(s.opts.Vault.Root(), filepath.FromSlash(vault.EntryPath(name))))
	return err == nil && fi.Mode().IsRegular()
}

// body is an entry's body as the memory tool shows it: without its final
// line break, so that a file has no empty last line.
func (s *Server) body(ctx context.Context, name string) (string, error) {
	d, err := s.opts.Vault.Read(ctx, name)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(d.Entry.Body(), "\n"), nil
}

func numbered(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%*d\t%s\n", lineWidth, first+i, l)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (s *Server) memView(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.locate("path", in.Path)
	if err != nil {
		return "", err
	}
	var text string
	switch t.kind {
	case kindNone:
		return "", fmt.Errorf("The path %s does not exist. Please provide a valid path (view /memories lists the files).", t.shown)
	case kindDir:
		return s.viewDir(t)
	case kindGuide:
		data, err := vault.ReadFile(s.opts.Vault.Root(), "CONTEXT.md")
		if err != nil {
			return "", err
		}
		text = strings.TrimSuffix(string(data), "\n")
	case kindEntry:
		if text, err = s.body(ctx, t.name); err != nil {
			return "", err
		}
	}
	lines := strings.Split(text, "\n")
	first := 1
	if len(in.ViewRange) > 0 {
		if len(in.ViewRange) != 2 {
			return "", fmt.Errorf("Invalid view_range %v: give two line numbers, [start, end], with -1 as end for the last line", in.ViewRange)
		}
		start, end := in.ViewRange[0], in.ViewRange[1]
		if end == -1 {
			end = len(lines)
		}
		if start < 1 || start > len(lines) || end < start {
			return "", fmt.Errorf("Invalid view_range %v: the file has %d lines; give [start, end] with 1 <= start <= end <= %d, or -1 as end", in.ViewRange, len(lines), len(lines))
		}
		end = min(end, len(lines))
		lines, first = lines[start-1:end], start
	}
	return fmt.Sprintf("Here's the content of %s with line numbers:\n%s", t.shown, numbered(lines, first)), nil
}

// viewDir lists a folder two levels deep, as the reference does: size and
// path, folders with a trailing slash, hidden items left out. Only entries
// (and the vault's guide) are files here.
func (s *Server) viewDir(t target) (string, error) {
	root := s.opts.Vault.Root()
	type item struct {
		size int64
		p    string
	}
	var items []item
	more := 0
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		des, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
		for _, de := range des {
			if strings.HasPrefix(de.Name(), ".") {
				continue
			}
			child := path.Join(rel, de.Name())
			var shown string
			switch {
			case de.IsDir():
				shown = memRoot + "/" + child + "/"
			case child == "CONTEXT.md":
				shown = memRoot + "/" + child
			default:
				n, ok := vault.NameOf(child)
				if !ok || !de.Type().IsRegular() {
					continue
				}
				shown = shownPath(n)
			}
			if len(items) >= maxListed {
				more++ // counted, not stat'ed: a large vault lists fast
			} else if info, err := de.Info(); err == nil {
				items = append(items, item{info.Size(), shown})
			}
			if de.IsDir() && depth < 2 {
				if err := walk(child, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(t.rel, 1); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here're the files and directories up to 2 levels deep in %s, excluding hidden items:\n", t.shown)
	var dirSize int64
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(t.rel))); err == nil {
		dirSize = fi.Size()
	}
	fmt.Fprintf(&b, "%s\t%s", formatSize(dirSize), t.shown)
	for _, it := range items {
		fmt.Fprintf(&b, "\n%s\t%s", formatSize(it.size), it.p)
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n(%d more not listed: view a folder, such as %s/knowledge, or use the search tool)", more, memRoot)
	}
	return b.String(), nil
}

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
func (s *Server) checkSize(shown, text string) error {
	if n := utf8.RuneCountInString(text); n > s.opts.MemoryMaxChars {
		return fmt.Errorf("File %s would be too long: %d characters, the limit is %d. Keep memory files short and focused: split it into several files, one topic each, or condense it", shown, n, s.opts.MemoryMaxChars)
	}
	if !utf8.ValidString(text) {
		return fmt.Errorf("File %s: the text is not valid UTF-8", shown)
	}
	return nil
}

func writable(t target) error {
	switch t.kind {
	case kindDir:
		return fmt.Errorf("The path %s is a directory, not a file", t.shown)
	case kindGuide:
		return fmt.Errorf("%s is the vault's guide for agents, read-only here; write memories in other files", t.shown)
	}
	return nil
}

func (s *Server) memCreate(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.locate("path", in.Path)
	if err != nil {
		return "", err
	}
	if err := writable(t); err != nil {
		return "", err
	}
	if in.FileText == nil {
		return "", errors.New(`"file_text" is missing: give the file's text (it may be empty)`)
	}
	text := *in.FileText
	if err := s.checkSize(t.shown, text); err != nil {
		return "", err
	}
	if t.kind == kindEntry {
		if hasFrontmatter(text) {
			return "", fmt.Errorf("File %s already exists, and file_text starts with frontmatter, which ctx0 keeps: give the body alone to overwrite it, or use str_replace", t.shown)
		}
		_, c, err := s.opts.Vault.EditBody(ctx, t.name, "memory: overwrite", func(string) (string, error) { return text, nil })
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("File %s overwritten (its previous version stays in git history).%s", t.shown, redactedNote(c)), nil
	}
	data, err := s.newFile(t.name, text)
	if err != nil {
		return "", fmt.Errorf("File %s: %v", t.shown, err)
	}
	c, err := s.opts.Vault.Create(ctx, t.name, data)
	if err != nil {
		if errors.Is(err, vault.ErrExists) {
			return "", fmt.Errorf("File %s already exists (it was created meanwhile): view it, then edit it", t.shown)
		}
		return "", err
	}
	msg := fmt.Sprintf("File created successfully at: %s", t.shown)
	if shownPath(t.name) != t.shown {
		msg += fmt.Sprintf(" (stored as %s)", shownPath(t.name))
	}
	return msg + redactedNote(c), nil
}

func hasFrontmatter(text string) bool {
	return strings.HasPrefix(text, "---\n") || strings.HasPrefix(text, "---\r\n")
}

// newFile is the entry file for a new memory file: the text as written
// when it has frontmatter of its own, else under ctx0's frontmatter, with a
// title from its first heading or its name and the type of its folder.
func (s *Server) newFile(name, text string) ([]byte, error) {
	if hasFrontmatter(text) {
		if _, err := entry.Parse([]byte(text)); err != nil {
			return nil, err
		}
		return []byte(text), nil
	}
	now := s.opts.Now().UTC().Truncate(time.Second)
	e := entry.New()
	for _, f := range []struct {
		k string
		v any
	}{
		{entry.FieldTitle, titleOf(name, text)},
		{entry.FieldType, s.typeOf(name)},
		{entry.FieldSource, "agent"},
		{entry.FieldCreated, now},
		{entry.FieldUpdated, now},
	} {
		if err := e.Set(f.k, f.v); err != nil {
			return nil, err
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	e.SetBody(text)
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
	base := vault.Slug(name)
	if i := strings.LastIndex(base, "."); i > 0 {
		base = base[:i]
	}
	words := strings.Fields(strings.NewReplacer("-", " ", "_", " ", ".", " ").Replace(base))
	if len(words) == 0 {
		return base
	}
	r, n := utf8.DecodeRuneInString(words[0])
	words[0] = string(unicode.ToUpper(r)) + words[0][n:]
	return strings.Join(words, " ")
}

// typeOf is the type of the entries of a name's top folder, note if none.
func (s *Server) typeOf(name string) string {
	top, _, ok := strings.Cut(name, "/")
	if !ok {
		return "note"
	}
	cfg := s.opts.Vault.Config()
	for _, t := range cfg.TypeNames() {
		if info, _ := cfg.Type(t); info.Folder == top {
			return t
		}
	}
	return "note"
}

func (s *Server) entryTarget(arg, p string) (target, error) {
	t, err := s.locate(arg, p)
	if err != nil {
		return t, err
	}
	switch t.kind {
	case kindNone:
		return t, fmt.Errorf("The path %s does not exist. Please provide a valid path.", t.shown)
	case kindDir:
		return t, fmt.Errorf("The path %s is not a file.", t.shown)
	case kindGuide:
		return t, writable(t)
	}
	return t, normalized(t)
}

// normalized refuses to write a file added by hand under a name that is not
// normalized: the vault's writes address entries by normalized names.
func normalized(t target) error {
	if n, err := vault.NormalizeName(t.name); err != nil || n != t.name {
		return fmt.Errorf("%s was added by hand under a name ctx0 does not write to (it would be %s): rename the file itself first (git mv), then edit it here", t.shown, shownPath(n))
	}
	return nil
}

func (s *Server) memReplace(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.entryTarget("path", in.Path)
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
	_, c, err := s.opts.Vault.EditBody(ctx, t.name, "memory: edit", func(body string) (string, error) {
		content := strings.TrimSuffix(body, "\n")
		switch n := strings.Count(content, old); {
		case n == 0:
			return "", fmt.Errorf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, t.shown)
		case n > 1:
			var lines []string
			for i, at := 0, 0; ; {
				j := strings.Index(content[at:], old)
				if j < 0 {
					break
				}
				lines = append(lines, fmt.Sprint(strings.Count(content[:at+j], "\n")+1))
				at += j + 1
				i++
			}
			return "", fmt.Errorf("No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique", old, strings.Join(lines, ", "))
		}
		at := strings.Index(content, old)
		changed := strings.Count(content[:at], "\n")
		next := strings.Replace(content, old, repl, 1)
		if err := s.checkSize(t.shown, next); err != nil {
			return "", err
		}
		lines := strings.Split(next, "\n")
		from, to := max(0, changed-2), min(len(lines), changed+3+strings.Count(repl, "\n"))
		snippet = numbered(lines[from:to], from+1)
		return next, nil
	})
	if err != nil {
		return "", err
	}
	return "The memory file has been edited." + redactedNote(c) + " Here is the snippet showing the change (with line numbers):\n" + snippet, nil
}

func (s *Server) memInsert(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.entryTarget("path", in.Path)
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
	_, c, err := s.opts.Vault.EditBody(ctx, t.name, "memory: insert into", func(body string) (string, error) {
		content := strings.TrimSuffix(body, "\n")
		var lines []string
		if content != "" {
			lines = strings.Split(content, "\n")
		}
		if at < 0 || at > len(lines) {
			return "", fmt.Errorf("Invalid `insert_line` parameter: %d. It should be within the range [0, %d].", at, len(lines))
		}
		add := strings.Split(strings.TrimSuffix(*in.InsertText, "\n"), "\n")
		next := strings.Join(append(append(append([]string{}, lines[:at]...), add...), lines[at:]...), "\n")
		if err := s.checkSize(t.shown, next); err != nil {
			return "", err
		}
		return next, nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The file %s has been edited.%s", t.shown, redactedNote(c)), nil
}

// under lists the entries in a folder and below it.
func (s *Server) under(ctx context.Context, dir string) ([]string, error) {
	var names []string
	err := s.opts.Vault.Walk(ctx, func(name string, _ fs.FileInfo) error {
		if strings.HasPrefix(name, dir+"/") {
			names = append(names, name)
		}
		return nil
	})
	return names, err
}

func (s *Server) memDelete(ctx context.Context, in memoryIn) (string, error) {
	t, err := s.locate("path", in.Path)
	if err != nil {
		return "", err
	}
	switch t.kind {
	case kindNone:
		return "", fmt.Errorf("The path %s does not exist", t.shown)
	case kindGuide:
		return "", writable(t)
	case kindEntry:
		if err := normalized(t); err != nil {
			return "", err
		}
		to, err := s.remove(ctx, t.name)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Successfully deleted %s%s", t.shown, to), nil
	}
	if t.rel == "" {
		return "", errors.New("Cannot delete the /memories directory itself")
	}
	names, err := s.under(ctx, t.rel)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if _, err := s.remove(ctx, n); err != nil {
			return "", fmt.Errorf("delete %s: %w (the entries before it were deleted)", shownPath(n), err)
		}
	}
	where := " (moved to /memories/archive/; git keeps every version)"
	if t.rel == "archive" || strings.HasPrefix(t.rel, "archive/") {
		where = " (git keeps every version)"
	}
	return fmt.Sprintf("Successfully deleted %s: %d files%s", t.shown, len(names), where), nil
}

// remove archives an entry, or deletes one already archived, and says where
// it went.
func (s *Server) remove(ctx context.Context, name string) (string, error) {
	if strings.HasPrefix(name, "archive/") {
		if _, _, err := s.opts.Vault.Remove(ctx, name, true); err != nil {
			return "", err
		}
		return " (git keeps its history)", nil
	}
	to, _, err := s.opts.Vault.Remove(ctx, name, false)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(" (moved to %s, out of search; git keeps every version)", shownPath(to)), nil
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
	case from.kind == kindNone:
		return "", fmt.Errorf("The path %s does not exist", from.shown)
	case from.kind == kindGuide || to.kind == kindGuide:
		return "", writable(target{shown: "/memories/CONTEXT.md", kind: kindGuide})
	case to.kind != kindNone:
		return "", fmt.Errorf("The destination %s already exists", to.shown)
	case from.rel == "":
		return "", errors.New("Cannot rename the /memories directory itself")
	}
	if from.kind == kindEntry {
		if err := normalized(from); err != nil {
			return "", err
		}
		if err := s.rename(ctx, from.name, to.name); err != nil {
			return "", err
		}
		return fmt.Sprintf("Successfully renamed %s to %s", from.shown, to.shown), nil
	}
	dest, err := vault.NormalizeName(to.rel)
	if err != nil {
		return "", fmt.Errorf("The path %s is not a valid folder name: %v", to.shown, err)
	}
	if dest == from.rel || strings.HasPrefix(dest, from.rel+"/") {
		return "", fmt.Errorf("Cannot move %s into itself", from.shown)
	}
	names, err := s.under(ctx, from.rel)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if err := s.rename(ctx, n, dest+"/"+strings.TrimPrefix(n, from.rel+"/")); err != nil {
			return "", fmt.Errorf("rename %s: %w (the files before it were moved)", shownPath(n), err)
		}
	}
	return fmt.Sprintf("Successfully renamed %s to %s (%d files; links to them were rewritten)", from.shown, to.shown, len(names)), nil
}

func (s *Server) rename(ctx context.Context, from, to string) error {
	if !strings.Contains(to, "/") && strings.Contains(from, "/") {
		return fmt.Errorf("moving %s to the top of /memories is not supported: keep it in a folder, such as /memories/knowledge/%s", shownPath(from), vault.Slug(to))
	}
	_, _, err := s.opts.Vault.Rename(ctx, from, to)
	return err
}
