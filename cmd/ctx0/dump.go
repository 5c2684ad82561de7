package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

// maxSessionLog bounds what dump reads from stdin.
const maxSessionLog = 256 << 20

func (a *app) newDumpCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dump",
		Short: "Hand a session over as a session log on stdin",
		Long: `Read a session log on stdin and hand its conversations to the librarian: how
an agent other than Claude Code or Codex CLI gives ctx0 its sessions, at a
compaction, when idle, at the end of a task or of the session. The log is a
JSON document:

  {"sessionId": "…", "agent": "bot0", "startedAt": "2026-01-28T10:00:00Z",
   "context": {"workingDir": "/src/app", "project": "app"},
   "messages": [{"role": "user", "content": "…", "timestamp": "…"}, …],
   "toolCalls": [{"tool": "read_file", "input": {"path": "main.go"}, "timestamp": …}],
   "filesRead": […], "filesWritten": […], "filesModified": […]}

Times are RFC 3339 strings or milliseconds since 1970. Dumping a session
again stores only what is new. Secrets are redacted before they are stored.`,
		Example: `  bot0 session export | ctx0 dump
  ctx0 dump --json < session.json`,
		Args: args(0, "no arguments (the session log comes on stdin)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.ownModelRun("dump") {
				return nil
			}
			rep, session, err := a.runDump(cmd.Context())
			if err != nil {
				return err
			}
			return a.out().result(rep, func() error {
				a.note("Stored %s of session %s; %s queued for the librarian.", count(rep.Messages, "new message"), session, count(rep.Queued, "conversation"))
				return nil
			})
		},
	}
	a.jsonFlag(cmd, "print what was stored as JSON")
	return cmd
}

// runDump stores the session log on stdin, and says which session it was.
func (a *app) runDump(ctx context.Context) (rep sessions.Report, session string, err error) {
	data, err := io.ReadAll(io.LimitReader(a.stdin, maxSessionLog))
	if err != nil {
		return rep, "", fmt.Errorf("dump: read stdin: %w", err)
	}
	lg, err := transcript.ParseSessionLog(data, a.now())
	if err != nil {
		return rep, "", fmt.Errorf("dump: %w", err)
	}
	s, err := a.openIngest(ctx)
	if err != nil {
		return rep, "", err
	}
	rep, err = s.IngestLog(ctx, lg)
	return rep, lg.Session, err
}
