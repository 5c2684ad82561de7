// Package librarian files conversations into the vault: it takes a queued
// conversation from the ingest state, has it extracted (by a language model
// asked for structured output, or offline by rules), and applies the
// extraction through an isolated agent run with a deterministic writer that
// keeps each category's mutability. A conversation is filed once: running
// again on it changes nothing.
package librarian

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
	"github.com/ctx0/ctx0/vault"
)

// maxReplyTokens caps the model's extraction.
const maxReplyTokens = 8000

// Options are what a librarian run needs.
type Options struct {
	Vault *vault.Vault
	Store *sessions.Store
	// Provider extracts; nil, or one that answers llm.ErrOffline, leaves
	// the work to Offline.
	Provider llm.Provider
	// Search finds the entries a new fact may repeat; nil searches nothing.
	Search Searcher
	// Conversation is the ingest id to file, ready or queued; 0 takes the
	// oldest queued one, or with Finished the oldest ready or queued one.
	Conversation int64
	// Finished has a run without Conversation take ready conversations
	// too, not only those queued by a hook, ctx0 dump or ingest --queue.
	Finished bool
	Now      func() time.Time // default time.Now
	Loc      *time.Location   // of episode days; default time.Local
	Limits   Limits           // zero: DefaultLimits
}

// Result is what one Run did.
type Result struct {
	Conversation sessions.Conversation `json:"conversation"`
	Filed        Filed                 `json:"filed"`
	Run          agent.Run             `json:"run"`
}

// ErrNotQueued is returned for a conversation that is not waiting for the
// librarian: one still going on (active), or skipped.
var ErrNotQueued = errors.New("not ready or queued for the librarian")

// ActiveError is the error for an active conversation named to file: it
// says when the conversation is finished by itself and what files it now.
type ActiveError struct{ sessions.Waiting }

func (e *ActiveError) Error() string { return e.Why() }
func (e *ActiveError) Unwrap() error { return ErrNotQueued }

// Run files one conversation: it claims it (the oldest queued, the oldest
// ready or queued with o.Finished, or o.Conversation), extracts it, applies the extraction in an agent run
// that merges into the branch, and archives it. If anything fails, or ctx
// ends, the run is aborted (the branch stays as it was) and the
// conversation goes back to the queue. sessions.ErrNoWork says nothing was
// queued.
//
// An archived conversation named by o.Conversation is filed again without
// a claim: the writer finds it already filed and changes nothing, unless
// its episode section was deleted since.
func Run(ctx context.Context, o Options) (res Result, err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	claim, conv, err := take(ctx, o.Store, o.Conversation, o.Finished)
	if err != nil {
		return Result{}, err
	}
	res.Conversation = conv
	if claim != nil {
		defer func() {
			// The claim ends whatever happens: archived, or back in the
			// queue for the next run, even when ctx has ended.
			status, note := sessions.Archived, ""
			if err != nil {
				status, note = sessions.Queued, "librarian: "+err.Error()
			}
			if ferr := o.Store.Finish(context.WithoutCancel(ctx), claim, status, note); ferr != nil && err == nil {
				err = ferr
			}
		}()
	}
	msgs, err := o.Store.Messages(ctx, conv.ID)
	if err != nil {
		return res, err
	}
	msgs = dated(msgs, o.Loc)
	provider, model := "offline", ""
	if o.Provider != nil {
		provider, model = o.Provider.Name(), o.Provider.Model()
	}
	s, err := agent.Begin(ctx, o.Vault, agent.Options{
		Kind: "librarian", Trigger: fmt.Sprintf("conversation %d (%s)", conv.ID, ConversationRef(conv)),
		Provider: provider, Model: model, Now: o.Now,
	})
	if err != nil {
		return res, err
	}
	abort := func(cause error) (Result, error) {
		res.Run, _ = s.Abort(context.WithoutCancel(ctx), cause)
		return res, cause
	}
	x, err := extract(ctx, o.Provider, s, conv, msgs, o.Loc)
	if err != nil {
		return abort(err)
	}
	w := &Writer{Files: s, Search: o.Search, Config: o.Vault.Config(), Now: o.Now(), Loc: o.Loc, Limits: o.Limits}
	if res.Filed, err = w.Apply(ctx, conv, x); err != nil {
		return abort(fmt.Errorf("file conversation %d: %w", conv.ID, err))
	}
	msg := fmt.Sprintf("librarian: file conversation %s\n\n%s", ConversationRef(conv), words.OneLine(x.Episode.Title))
	if res.Run, err = s.Finish(ctx, msg); err != nil {
		return res, err
	}
	return res, nil
}

// take claims the conversation to file: id, or the oldest queued one (or
// ready, if finished).
func take(ctx context.Context, st *sessions.Store, id int64, finished bool) (*sessions.Claim, sessions.Conversation, error) {
	if id == 0 {
		claim := st.Claim
		if finished {
			claim = st.ClaimFinished
		}
		c, err := claim(ctx)
		if err != nil {
			return nil, sessions.Conversation{}, err
		}
		return c, c.Conversation, nil
	}
	conv, err := st.Conversation(ctx, id)
	if err != nil {
		return nil, conv, err
	}
	switch conv.Status {
	case sessions.Archived:
		return nil, conv, nil
	case sessions.Queued, sessions.Ready:
	case sessions.Active:
		w, err := st.Wait(ctx, conv)
		if err != nil {
			return nil, conv, err
		}
		return nil, conv, &ActiveError{w}
	default:
		return nil, conv, fmt.Errorf("conversation %d is %s: %w", id, conv.Status, ErrNotQueued)
	}
	c, err := st.ClaimID(ctx, id)
	if errors.Is(err, sessions.ErrNoWork) {
		return nil, conv, fmt.Errorf("conversation %d: claimed by another run", id)
	}
	if err != nil {
		return nil, conv, err
	}
	return c, c.Conversation, nil
}

// extract asks the provider for the extraction of a conversation, or
// extracts it offline when there is no provider or it is the offline one.
// What the model used is added to the run's record.
func extract(ctx context.Context, p llm.Provider, s *agent.Session, conv sessions.Conversation, msgs []transcript.Message, loc *time.Location) (Extraction, error) {
	if llm.IsOffline(p) {
		return Offline(conv, msgs), nil
	}
	prompt, err := Prompt(conv, msgs, loc)
	if err != nil {
		return Extraction{}, err
	}
	reply, err := p.Complete(ctx, llm.Request{System: systemPrompt, Prompt: prompt, SchemaName: SchemaName, Schema: Schema, MaxTokens: maxReplyTokens})
	s.AddUsage(reply.Usage)
	if errors.Is(err, llm.ErrOffline) {
		return Offline(conv, msgs), nil
	}
	if err != nil {
		return Extraction{}, fmt.Errorf("extract conversation %d with %s: %w", conv.ID, p.Name(), err)
	}
	x, err := ParseExtraction(reply.JSON)
	if err != nil {
		return Extraction{}, fmt.Errorf("extract conversation %d with %s: %w", conv.ID, p.Name(), err)
	}
	return x, nil
}
