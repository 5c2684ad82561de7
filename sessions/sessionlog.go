package sessions

import (
	"context"
	"database/sql"

	"github.com/ctx0/ctx0/transcript"
)

// IngestLog stores a session handed over as a session log (ctx0 dump) and
// hands all its conversations to the librarian: an agent dumps at a
// natural end (compaction, idle, the end of a task or of the session).
// Dumping the same session again stores only what is new; what it adds
// after a handover is a conversation of its own.
func (s *Store) IngestLog(ctx context.Context, lg transcript.Log) (Report, error) {
	rep := Report{Files: 1, Read: 1, Skipped: lg.Skipped}
	agent := lg.Agent
	if agent == "" {
		agent = "agent"
	}
	f := File{Key: string(transcript.SessionLog) + "/" + agent + "/" + lg.Session, Source: transcript.SessionLog, Project: lg.Project}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		_, err := s.storeMessages(ctx, tx, f, transcript.State{}, lg.Messages, &rep)
		return err
	})
	if err != nil {
		return rep, err
	}
	if rep.Queued, err = s.Queue(ctx, f.Key, true); err != nil {
		return rep, err
	}
	return rep, nil
}
