package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/sessions"
)

// Sessions archives the client's session from the folders where agents
// keep their transcripts (Claude Code's, Codex CLI's) into the vault's
// ingest state, and queues it for the librarian.
//
// An MCP client does not say which session it is, so the session is the one
// the agent names (session_id, transcript_path), else the newest transcript
// of the folder the server was started in (Claude Code keeps a session in
// projects/<the folder, with / and . as ->/<id>.jsonl and starts its MCP
// servers in that folder), else the newest transcript written since the
// server started.
type Sessions struct {
	// Dirs are the agents' session folders (sessions.DefaultDirs) and those
	// the person named (ctx0 mcp --session-dir): the only folders a
	// transcript is read from.
	Dirs    []string
	CWD     string // the folder the server runs in
	Started time.Time
	// Open opens the vault's ingest state.
	Open func(ctx context.Context) (*sessions.Store, error)
}

var _ Archiver = (*Sessions)(nil)

// Archive implements Archiver.
func (s *Sessions) Archive(ctx context.Context, req ArchiveRequest) (ArchiveResult, error) {
	found, err := s.find(ctx, req)
	if err != nil {
		return ArchiveResult{}, err
	}
	// Whichever way it was found, the file read is one the session
	// folders hold: a link inside them leads nowhere else.
	p, err := sessionFile(found, s.Dirs)
	if err != nil {
		if req.TranscriptPath != "" {
			return ArchiveResult{}, fmt.Errorf("transcript_path %s: %w", req.TranscriptPath, err)
		}
		return ArchiveResult{}, fmt.Errorf("session %s: %w", found, err)
	}
	f, err := sessions.FileAt(p)
	if err != nil {
		return ArchiveResult{}, err
	}
	st, err := s.Open(ctx)
	if err != nil {
		return ArchiveResult{}, err
	}
	defer st.Close()
	rep, err := st.Ingest(ctx, []sessions.File{f}, sessions.Options{Queue: true, End: true})
	if err == nil && len(rep.Errors) > 0 {
		err = errors.New(rep.Errors[0])
	}
	if err != nil {
		return ArchiveResult{}, fmt.Errorf("archive session %s: %w", p, err)
	}
	return ArchiveResult{Transcript: p, Messages: rep.Messages, Queued: rep.Queued}, nil
}

func (s *Sessions) find(ctx context.Context, req ArchiveRequest) (string, error) {
	if p := strings.TrimSpace(req.TranscriptPath); p != "" {
		if filepath.Ext(p) != ".jsonl" {
			return "", fmt.Errorf("transcript_path %s: want a session transcript, a .jsonl file", p)
		}
		return p, nil
	}
	var all []sessions.File
	for _, d := range s.Dirs {
		fs, err := sessions.FindFiles(ctx, d)
		if err != nil {
			return "", err
		}
		all = append(all, fs...)
	}
	if id := strings.TrimSpace(req.SessionID); id != "" {
		for _, f := range all {
			if strings.Contains(filepath.Base(f.Path), id) {
				return f.Path, nil
			}
		}
		return "", fmt.Errorf("session_id %s: no transcript of that session in %s", id, strings.Join(s.Dirs, ", "))
	}
	var newest string
	var newestAt time.Time
	pick := func(keep func(p string) bool) string {
		newest, newestAt = "", time.Time{}
		for _, f := range all {
			if !keep(f.Path) {
				continue
			}
			if fi, err := os.Stat(f.Path); err == nil && fi.ModTime().After(newestAt) {
				newest, newestAt = f.Path, fi.ModTime()
			}
		}
		return newest
	}
	if s.CWD != "" {
		folder := string(filepath.Separator) + claudecode.ProjectFolder(s.CWD) + string(filepath.Separator)
		if p := pick(func(p string) bool { return strings.Contains(p, folder) }); p != "" {
			return p, nil
		}
	}
	if p := pick(func(string) bool { return true }); p != "" && !newestAt.Before(s.Started) {
		return p, nil
	}
	return "", errors.New("cannot tell which session is this one: no transcript of this folder, and none written since the server started; pass session_id or transcript_path")
}

// sessionFile resolves p (links followed to the end) and returns it if it
// is a regular file inside one of dirs (resolved the same way): a client,
// remote ones over --http --allow-remote included, names the transcript,
// so archive_now reads no file the agents' own session folders do not
// hold, whatever a link inside them points to.
func sessionFile(p string, dirs []string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", errors.New("want an absolute path")
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", errors.New("no such file")
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", errors.New("no such file")
	}
	for _, d := range dirs {
		rd, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(rd, real); err == nil && filepath.IsLocal(rel) {
			return real, nil
		}
	}
	return "", fmt.Errorf("%w (%s)", errOutsideSessions, strings.Join(dirs, ", "))
}

// errOutsideSessions is a transcript_path outside every session folder.
var errOutsideSessions = errors.New("not in an agent's session folder; ctx0 reads transcripts only from those, or from a folder given to ctx0 mcp --session-dir")
