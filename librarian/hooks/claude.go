package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ctx0/ctx0/sessions"
)

// Input is what an agent passes to a hook on stdin. Every event of Claude
// Code, Codex CLI and Gemini CLI has the first four fields (Codex's
// transcript_path may be null); the others belong to one event each.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	// Trigger is PreCompact's: manual (/compact) or auto.
	Trigger string `json:"trigger"`
	// Source is SessionStart's: startup, resume, clear or compact.
	Source string `json:"source"`
	// Reason is SessionEnd's: clear, logout, prompt_input_exit, other.
	Reason string `json:"reason"`
	// Cursor names the session conversation_id and gives the workspace's
	// folders instead of a working directory.
	ConversationID string   `json:"conversation_id"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

// Options configure the handling of a hook event.
type Options struct {
	// Deadline is how long the hook may work. Claude Code waits for it, so
	// what is left then goes on in a background process (see Spawn).
	Deadline time.Duration
	// Spawn starts ctx0 with args in the background, with stdin as its
	// input, without waiting for it. Nil keeps all the work in this
	// process, however long it takes.
	Spawn func(args []string, stdin []byte) error
	// Store opens the vault's ingest state.
	Store func(ctx context.Context) (*sessions.Store, error)
	// File, if set, starts filing the queued conversations into the vault
	// (the librarian, then the curator when due) without waiting for it:
	// the hook calls it when an event has queued conversations.
	File func() error
	// Context, if set, returns the context block a session that runs in
	// cwd starts with.
	Context func(ctx context.Context, cwd string) (string, error)
	// Pull, if set, brings in the remote's changes at a session's start,
	// before the context block is built, and says what it did; the session
	// waits for it at most PullBudget, then goes on with what it has.
	Pull       func(ctx context.Context) (string, error)
	PullBudget time.Duration
	// Log records what the hook did and what went wrong.
	Log *Log
}

// DefaultDeadline leaves a hook time to start and exit within a second.
const DefaultDeadline = 800 * time.Millisecond

// ClaudeCode handles a Claude Code hook event (see Handle).
func ClaudeCode(ctx context.Context, input []byte, o Options) string {
	return Handle(ctx, ClaudeCodeAgent, input, o)
}

// Handle handles a hook event of agent a given as the JSON input on stdin,
// and returns what the hook should print for the agent. It never fails:
// whatever goes wrong is written to the log, so a hook can never break
// the person's session.
//
// At a compaction and at the session's end (a's End events) the session's
// transcript is ingested and its conversations finished: the words before
// a compaction and at the end of a session are handed to the librarian.
// After a turn (a's Turn events) what the turn added is ingested and
// conversations that fell silent are queued. At the session's start the
// hook prints the context block the session starts with, in the form a
// takes it.
func Handle(ctx context.Context, a Agent, input []byte, o Options) string {
	in, err := a.parseInput(input)
	if err != nil {
		o.Log.Printf("hook: %v", err)
		return ""
	}
	if in.TranscriptPath == "" && a.Name == CursorAgent.Name {
		in.TranscriptPath = cursorTranscript(in.CWD, in.SessionID)
	}
	what := in.HookEventName + " " + in.SessionID
	var end bool
	switch a.role(in.HookEventName) {
	case "start":
		return a.contextOutput(sessionStart(ctx, what, in, o))
	case "end":
		end = true
	case "turn":
	default:
		return ""
	}
	if in.TranscriptPath == "" {
		o.Log.Printf("%s: no transcript_path in the hook input", what)
		return ""
	}
	work := func(ctx context.Context) (sessions.Report, error) {
		s, err := o.Store(ctx)
		if err != nil {
			return sessions.Report{}, err
		}
		defer s.Close()
		f, err := sessions.FileAt(in.TranscriptPath)
		if err != nil {
			return sessions.Report{}, err
		}
		f.CWD = in.CWD
		rep, err := s.Ingest(ctx, []sessions.File{f}, sessions.Options{Queue: true, End: end})
		if err == nil && len(rep.Errors) > 0 {
			err = errors.New(rep.Errors[0])
		}
		return rep, err
	}
	if o.Spawn == nil {
		rep, err := work(ctx)
		o.finish(what, rep, err)
		return ""
	}
	rep, done, err := within(ctx, o.Deadline, work)
	if done {
		o.finish(what, rep, err)
		return ""
	}
	// What was committed stays; the rest is read again by a process that
	// may take its time.
	if err := o.Spawn([]string{"hook", a.Name, "--background"}, input); err != nil {
		o.Log.Printf("%s: not done within %v, and the background run did not start: %v", what, o.Deadline, err)
	} else {
		o.Log.Printf("%s: not done within %v; continuing in the background", what, o.Deadline)
	}
	return ""
}

// parseInput reads the hook input of agent a, with the session's id and
// working folder where Cursor gives them under other names.
func (a Agent) parseInput(input []byte) (Input, error) {
	var in Input
	if err := json.Unmarshal(input, &in); err != nil {
		return Input{}, fmt.Errorf("input is not %s's hook JSON: %w", a.Title, err)
	}
	if in.SessionID == "" {
		in.SessionID = in.ConversationID
	}
	if in.CWD == "" && len(in.WorkspaceRoots) > 0 {
		in.CWD = in.WorkspaceRoots[0]
	}
	return in, nil
}

// sessionStart returns the session's context block, if it is ready in
// time: a session must not wait for it.
func sessionStart(ctx context.Context, what string, in Input, o Options) string {
	if o.Pull != nil {
		said, done, err := within(ctx, o.PullBudget, o.Pull)
		switch {
		case !done:
			o.Log.Printf("%s: automatic sync: not done within %v; the context block uses what the vault has", what, o.PullBudget)
		case err != nil:
			o.Log.Printf("%s: %v", what, err)
		case said != "":
			o.Log.Printf("%s: %s", what, said)
		}
	}
	if o.Context == nil {
		return ""
	}
	text, done, err := within(ctx, o.Deadline, func(ctx context.Context) (string, error) { return o.Context(ctx, in.CWD) })
	switch {
	case !done:
		o.Log.Printf("%s: the context block was not ready within %v (ctx0 index makes it faster)", what, o.Deadline)
		return ""
	case err != nil:
		o.Log.Printf("%s: context block: %v", what, err)
		return ""
	}
	return text
}

// within runs fn until the deadline. done is false if fn was not finished
// by then; its context is cancelled and it is left behind.
func within[T any](ctx context.Context, deadline time.Duration, fn func(context.Context) (T, error)) (v T, done bool, err error) {
	type result struct {
		v   T
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan result, 1)
	go func() {
		v, err := fn(ctx)
		ch <- result{v, err}
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r.v, true, r.err
	case <-timer.C:
		return v, false, nil
	}
}

// finish logs what an event's ingest did and, if it queued conversations,
// starts filing them.
func (o Options) finish(what string, rep sessions.Report, err error) {
	o.Log.result(what, rep, err)
	if err != nil || rep.Queued == 0 || o.File == nil {
		return
	}
	if err := o.File(); err != nil {
		o.Log.Printf("%s: the librarian did not start: %v", what, err)
		return
	}
	o.Log.Printf("%s: the librarian files the queued conversations in the background", what)
}

func (l *Log) result(what string, rep sessions.Report, err error) {
	if err != nil {
		l.Printf("%s: %v", what, err)
		return
	}
	l.Printf("%s: %d new messages; conversations queued: %d", what, rep.Messages, rep.Queued)
}
