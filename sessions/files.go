package sessions

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/integration/codex"
	"github.com/ctx0/ctx0/integration/cursor"
	"github.com/ctx0/ctx0/integration/gemini"
	"github.com/ctx0/ctx0/transcript"
)

// File is a session file to ingest.
type File struct {
	Path   string
	Key    string
	Source transcript.Source
	// Project is the project the session named itself, if it did; else
	// it is found from the working directory (see Store.project).
	Project string
	// CWD is the working directory the agent reported for the session
	// (a hook's input), for files that do not record one: Gemini CLI's
	// and Cursor's.
	CWD string
}

// FileAt describes the session file at path: its source, from its name or
// its first line, and its key.
func FileAt(path string) (File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return File{}, fmt.Errorf("session file %s: %w", path, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return File{}, fmt.Errorf("session file %s: is a folder (use --dir)", path)
	}
	f, err := openRegular(abs)
	if err != nil {
		return File{}, fmt.Errorf("session file: %w", err)
	}
	defer f.Close()
	// A Codex header can hold the whole system prompt: read far enough
	// for one line, but not a whole file that has no newline.
	first, err := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return File{}, fmt.Errorf("session file %s: %w", path, err)
	}
	src := transcript.Detect(abs, first)
	return File{Path: abs, Key: keyOf(abs, src), Source: src}, nil
}

// errNotRegular is a session file that is not a regular file: a FIFO, a
// device or a socket, whose reads could block forever or never end.
var errNotRegular = errors.New("not a regular file")

// openRegular opens the regular file at path for reading, and refuses
// anything else. It opens without blocking (a FIFO with no writer would
// hold open(2) forever) and checks what it opened, not what a name
// pointed to a moment before.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", path, errNotRegular, kindOf(fi.Mode()))
	}
	return f, nil
}

// kindOf names what a file that is not a regular file is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}

// keyOf names a session file independently of the folder it was found in, so
// the same session under ~/.claude/projects and under a backup copy of it is
// one file to ingest: its key is the last parts of its path, as many as the
// agent's layout needs. Claude Code keeps a session as
// <project>/<session>.jsonl and a sub-agent's as
// <project>/<session>/subagents/agent-<id>.jsonl; Codex names each file
// rollout-<time>-<session>.jsonl, unique on its own.
func keyOf(path string, src transcript.Source) string {
	parts := strings.Split(strings.TrimLeft(filepath.ToSlash(filepath.Clean(path)), "/"), "/")
	keep := 2
	switch {
	case src == transcript.Codex:
		keep = 1
	case src == transcript.Gemini:
		// <project hash>/chats/session-….jsonl, or a sub-agent's
		// chats/<parent session>/<id>.jsonl.
		keep = 3
	case len(parts) >= 2 && parts[len(parts)-2] == "subagents":
		keep = 4
	}
	keep = min(keep, len(parts))
	if src == transcript.Gemini {
		// Gemini CLI moves a legacy session-….json to session-….jsonl when
		// it is resumed: one session, one key, so the new file is read as
		// the old one rewritten, never filed twice.
		parts[len(parts)-1] = strings.TrimSuffix(parts[len(parts)-1], "l")
	}
	return string(src) + "/" + strings.Join(parts[len(parts)-keep:], "/")
}

// FindFiles lists the session files under dir, every *.jsonl at any depth
// and Gemini CLI's legacy chats/session-*.json, in a stable order. A dir
// that does not exist holds none.
func FindFiles(ctx context.Context, dir string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") && !transcript.WholeFile(p) {
			return nil
		}
		slash := filepath.ToSlash(p)
		if strings.Contains(slash, "/.gemini/tmp/") && filepath.Base(filepath.Dir(p)) != "chats" {
			// Gemini CLI's other files (logs, checkpoints) and its
			// sub-agents' sessions (chats/<parent>/<id>.jsonl), whose
			// chatter is not the conversation.
			return nil
		}
		if strings.Contains(slash, "/.cursor/projects/") && !transcript.CursorFile(p) {
			return nil // Cursor's other files
		}
		if transcript.WholeFile(p) {
			// Gemini CLI moves a legacy session to session-….jsonl when it
			// is resumed: the new file holds it all.
			if _, err := os.Lstat(p + "l"); err == nil {
				return nil
			}
		}
		f, err := FileAt(p)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find session files in %s: %w", dir, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// DefaultDirs are the folders where Claude Code, Codex CLI, Gemini CLI and
// Cursor keep their sessions: $CLAUDE_CONFIG_DIR/projects (default
// ~/.claude/projects), $CODEX_HOME/sessions (default ~/.codex/sessions),
// $GEMINI_CLI_HOME/.gemini/tmp (default ~/.gemini/tmp) and
// ~/.cursor/projects.
func DefaultDirs(home string, getenv func(string) string) []string {
	return []string{claudecode.Transcripts(home, getenv), codex.Transcripts(home, getenv), gemini.Transcripts(home, getenv), cursor.Transcripts(home)}
}
