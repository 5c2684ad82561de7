// Package curator keeps a growing vault small to load, free of duplicates
// and well linked. A curator run is an isolated agent run: it reads the
// vault as of one commit, plans its changes, writes them as one commit on
// the run's ref and merges that into the branch field by field, so people
// and other runs keep writing meanwhile. Every change comes with the reason
// for it, in the run's commit message (ctx0 runs show) and in the result;
// git undoes any of them.
//
// One run, in order:
//
//   - conflicts kept aside by merges are resolved where one side was
//     clearly updated later than the other (Config.ClearlyNewer); the rest
//     stay listed;
//   - duplicates merge: offline only clear cases (the same text once
//     normalized, or a title equal to the other entry's title or alias, in
//     the same type and project); with a language model, candidates found
//     by search and by name are put to it. The survivor keeps every fact,
//     the other name becomes its alias, links to it are rewritten;
//   - entries that mention another by its title or alias get a link to it;
//   - scratch and inbox entries untouched for Config.StaleAfter are
//     archived;
//   - preferences and style observations get a confidence that rises each
//     time they are seen again and halves every Config.HalfLife without;
//     below Config.Threshold they are archived (see Confidence);
//   - entries not covered by a summary yet are summarized (an incremental
//     summary) when Config.SummarizeAfter of them wait, or at a session's
//     end; incremental summaries older than Config.CompactAfter are rolled
//     up with the last compacted summary into a new one. Raw entries stay:
//     search runs over them.
package curator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// Kinds of change.
const (
	KindResolve   = "resolve"   // a kept-aside conflict settled for the newer side
	KindMerge     = "merge"     // a duplicate merged into its survivor
	KindRelink    = "relink"    // links to a merged duplicate rewritten
	KindLink      = "link"      // a link added to an entry that mentions another
	KindArchive   = "archive"   // a stale scratch or inbox entry archived
	KindObserve   = "observe"   // a preference counted for the first time: its observations recorded
	KindConfirm   = "confirm"   // a preference seen again: its confidence rose
	KindDecay     = "decay"     // a preference whose confidence fell below the threshold, archived
	KindSummarize = "summarize" // an incremental summary of new entries
	KindCompact   = "compact"   // incremental summaries rolled up
)

// Change is one thing a run did or, in a dry run, would do.
type Change struct {
	Kind  string `json:"kind"`
	Entry string `json:"entry"`           // the entry changed or made
	Other string `json:"other,omitempty"` // the duplicate merged, the entry linked, the archive name…
	Why   string `json:"why"`
}

func (c Change) String() string {
	s := c.Kind + " " + c.Entry
	if c.Other != "" {
		s += " ← " + c.Other
		if c.Kind == KindLink || c.Kind == KindArchive || c.Kind == KindDecay {
			s = c.Kind + " " + c.Entry + " → " + c.Other
		}
	}
	return s + ": " + c.Why
}

// Searcher finds candidate duplicates. *index.Index is one.
type Searcher interface {
	Search(ctx context.Context, q index.Query) ([]index.Result, error)
}

// Options are what a run needs.
type Options struct {
	Vault *vault.Vault
	// Provider decides duplicates among candidates and writes summaries;
	// nil or the offline one: only clear duplicates merge, and summaries
	// are extractive.
	Provider llm.Provider
	// Search finds candidate duplicates for the provider; nil: only
	// candidates by name.
	Search Searcher
	// Config is the curator's configuration; nil loads it from the vault.
	Config *Config
	// DryRun plans and changes nothing: no commit, no run record, no state.
	DryRun bool
	// SessionEnd summarizes every entry not summarized yet, however few.
	SessionEnd bool
	Trigger    string           // for the run record; default "ctx0 curator run"
	Now        func() time.Time // default time.Now
	// OnPlanned, if set, is called once a run has planned its changes and
	// before it writes them (not in a dry run). The vault may be written
	// meanwhile: the run merges its changes with whatever it finds.
	OnPlanned func()
}

// Result is what a run did, or would do.
type Result struct {
	DryRun  bool     `json:"dry_run"`
	Base    string   `json:"base"`
	Changes []Change `json:"changes"`
	// Files are the files the changes wrote or deleted (or, in a dry run,
	// would), by path: what the run's commit holds.
	Files []string `json:"files"`
	// Notes say what was left as it was and why: conflicts left listed,
	// a model that failed, files that do not parse.
	Notes []string `json:"notes,omitempty"`
	// Resolved are the ids of the conflict records the run settled.
	Resolved []string `json:"resolved,omitempty"`
	// Run is the run's record; absent in a dry run.
	Run *agent.Run `json:"run,omitempty"`
}

// Run curates the vault once.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Trigger == "" {
		o.Trigger = "ctx0 curator run"
	}
	cfg := DefaultConfig()
	if o.Config != nil {
		cfg = *o.Config
	} else {
		c, err := ParseConfig(o.Vault.Settings())
		if err != nil {
			return Result{}, err
		}
		cfg = c
	}
	useModel := !llm.IsOffline(o.Provider)
	if o.DryRun {
		tree, err := o.Vault.TreeAt(ctx, "HEAD")
		if err != nil {
			return Result{}, fmt.Errorf("curator: %w", err)
		}
		p, err := makePlan(ctx, o, cfg, tree, nil, useModel)
		if err != nil {
			return Result{}, err
		}
		files, err := p.work.flush(planned{})
		if err != nil {
			return Result{}, err
		}
		return Result{DryRun: true, Base: tree.Commit(), Changes: nonNil(p.work.changes), Files: nonNil(files), Notes: p.allNotes(), Resolved: ids(p.resolved)}, nil
	}
	// One curator run at a time: a second one (cron and ingest --watch
	// both due) would plan the same work from the same commit.
	unlock, err := lockRuns(o.Vault.Root())
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	ao := agent.Options{Kind: "curator", Trigger: o.Trigger, Now: o.Now}
	if useModel {
		ao.Provider, ao.Model = o.Provider.Name(), o.Provider.Model()
	}
	s, err := agent.Begin(ctx, o.Vault, ao)
	if err != nil {
		return Result{}, fmt.Errorf("curator: %w", err)
	}
	res, err := finish(ctx, o, cfg, s, useModel)
	if err != nil {
		if _, aerr := s.Abort(ctx, err); aerr != nil {
			err = errors.Join(err, aerr)
		}
		return Result{}, err
	}
	headAfter := res.Run.Merged
	if headAfter == "" {
		headAfter = res.Base // nothing changed: what it read is what it leaves
	}
	if err := saveState(o.Vault.Root(), state{LastRun: o.Now().UTC(), Head: headAfter, Base: res.Base}); err != nil {
		res.Notes = append(res.Notes, err.Error())
	}
	return res, nil
}

// finish plans the run from the session's base, writes its changes,
// finishes the session and settles the conflicts it resolved.
func finish(ctx context.Context, o Options, cfg Config, s *agent.Session, useModel bool) (Result, error) {
	tree := s.Tree()
	p, err := makePlan(ctx, o, cfg, tree, s, useModel)
	if err != nil {
		return Result{}, err
	}
	if o.OnPlanned != nil {
		o.OnPlanned()
	}
	files, err := p.work.flush(s)
	if err != nil {
		return Result{}, err
	}
	for _, c := range p.work.changes {
		s.Note(c.Entry, c.String())
	}
	run, err := s.Finish(ctx, message(p.work.changes, p.allNotes()))
	if err != nil {
		return Result{}, err
	}
	res := Result{Base: tree.Commit(), Changes: nonNil(p.work.changes), Files: nonNil(files), Notes: p.allNotes(), Run: &run}
	// The conflict records are settled once the entries are merged: a
	// record is a file of the vault's machinery, which a run cannot write.
	for _, r := range p.resolved {
		if _, _, err := o.Vault.ResolveConflicts(ctx, r.ID, false); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("conflict %s in %s: %v", r.ID, r.Entry, err))
			continue
		}
		res.Resolved = append(res.Resolved, r.ID)
	}
	return res, nil
}

// plan is what a run decided from the vault as of its base: the changes,
// held in work until they are flushed, the kept-aside conflicts they
// settle, and notes on what was left as it was.
type plan struct {
	work     *work
	resolved []vault.ConflictRecord
	notes    []string
}

// allNotes are the plan's notes, then its work's.
func (p plan) allNotes() []string { return append(p.notes, p.work.notes...) }

// makePlan runs every step over the vault as of tree, in the order the
// package comment gives. An error names the step that failed.
func makePlan(ctx context.Context, o Options, cfg Config, tree *vault.Tree, s usageAdder, useModel bool) (plan, error) {
	w, notes, err := load(ctx, tree, o.Now(), cfg)
	if err != nil {
		return plan{}, fmt.Errorf("curator: load the vault: %w", err)
	}
	p := plan{work: w, notes: notes}
	m := model{p: o.Provider, s: s, on: useModel}
	if p.resolved, err = w.resolveConflicts(ctx, o.Vault); err != nil {
		return plan{}, fmt.Errorf("curator: resolve conflicts: %w", err)
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"merge duplicates", func() error { return w.dedupe(ctx, o.Search, m) }},
		{"add links", w.link},
		{"archive stale entries", w.archiveStale},
		{"reinforce preferences", w.reinforce},
		{"summarize", func() error { return w.summarize(ctx, m, o.SessionEnd) }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			return plan{}, fmt.Errorf("curator: %s: %w", st.name, err)
		}
	}
	return p, nil
}

// message is the run's commit message: a subject, then every change with
// its reason.
func message(cs []Change, notes []string) string {
	counts := map[string]int{}
	var kinds []string
	for _, c := range cs {
		if counts[c.Kind] == 0 {
			kinds = append(kinds, c.Kind)
		}
		counts[c.Kind]++
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	subject := "curate: nothing to do"
	if len(parts) > 0 {
		subject = "curate: " + strings.Join(parts, ", ")
	}
	var b strings.Builder
	b.WriteString(subject + "\n")
	if len(cs) > 0 {
		b.WriteString("\n")
		for _, c := range cs {
			b.WriteString("- " + c.String() + "\n")
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nLeft as it was:\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

// nonNil is s, or an empty list for nil: JSON lists print as [], not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func ids(rs []vault.ConflictRecord) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
