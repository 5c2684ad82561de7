package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/vault"
)

func textResult(format string, a ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

// explain turns the vault's errors into messages an agent can act on.
func explain(err error, ref string) error {
	var amb *vault.AmbiguousError
	switch {
	case errors.As(err, &amb):
		return fmt.Errorf("%q names several entries: %s; call again with one of these names", ref, strings.Join(amb.Candidates, ", "))
	case errors.Is(err, vault.ErrNotFound):
		return fmt.Errorf("no entry answers to %q (by name, slug, title or alias); find it with the search tool and use a name from its results", ref)
	case errors.Is(err, vault.ErrBadName):
		return fmt.Errorf("%q: %w: names are folder/slug, such as contacts/sarah-chen, inside the vault", ref, err)
	}
	return err
}

func (s *Server) addTools() {
	types := strings.Join(s.opts.Memory.Vault.Config().TypeNames(), ", ")
	addTool(s, &sdk.Tool{
		Name:  "remember",
		Title: "Remember a fact",
		Description: "Save one fact to long-term memory (a new vault entry, one git commit). Use when the user shares a fact or preference, asks you to remember something, a decision is made (say why), or you learn something surprising or hard-won (an error and its fix). " +
			fmt.Sprintf("Not for transient steps, what the code or docs already say, or what any model knows. One clear, standalone fact per call, under %d characters; text already in memory is not saved twice. At most %d saves a minute.", s.opts.Memory.Vault.Config().Remember.MaxChars, s.opts.RememberClientRate.N),
		Annotations: &sdk.ToolAnnotations{Title: "Remember a fact", OpenWorldHint: ptr(false)},
	}, map[string]string{"linkedTo": "links", "linked": "links"}, func(sc *jsonschema.Schema) {
		sc.Properties["type"].Description = "what kind of fact: " + types + "; leave out to have it told from the content (decision, preference, milestone, fact or note)"
	}, s.rememberTool)

	addTool(s, &sdk.Tool{
		Name:  "search",
		Title: "Search memory",
		Description: "Full-text search of the memory vault (BM25 over names, titles, tags, bodies; stemmed; by meaning too when the vault has embeddings). Returns compact rows: name, title, snippet, score; open the ones you need with show. " +
			`Takes a question or words (any may match; entries holding more of them, closer together, rank first), and strict operators: a AND b, "exact phrase", OR, NOT, prefix*, title:word. For a bundle of context to answer a question, use retrieve.`,
		Annotations: &sdk.ToolAnnotations{Title: "Search memory", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, map[string]string{"text": "query"}, nil, s.searchTool)

	addTool(s, &sdk.Tool{
		Name:  "retrieve",
		Title: "Retrieve context",
		Description: "Answer a question from memory with the passages that matter, their sources and a confidence, within a token budget. Use before assuming: when starting a task, when a person, project or term you do not recognise comes up, before a decision (past decisions and preferences). " +
			"Ask in plain words: \"how does Sarah like to be contacted?\".",
		Annotations: &sdk.ToolAnnotations{Title: "Retrieve context", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, map[string]string{"text": "query"}, nil, s.retrieveTool)

	addTool(s, &sdk.Tool{
		Name:        "context",
		Title:       "Session-start memory",
		Description: "The short <memory> block a session starts with: pinned entries, then the latest ones of this project and global ones. Use once at the start of a session if your client did not load it, or after your context was cleared.",
		Annotations: &sdk.ToolAnnotations{Title: "Session-start memory", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, nil, nil, s.contextTool)

	addTool(s, &sdk.Tool{
		Name:        "show",
		Title:       "Show an entry",
		Description: "Read one whole entry (frontmatter and body) by name (contacts/sarah-chen), unique slug (sarah-chen), title or alias. Use after search or retrieve, for the entries you need in full. Also readable as the resource ctx0://entry/NAME.",
		Annotations: &sdk.ToolAnnotations{Title: "Show an entry", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, map[string]string{"path": "name"}, nil, s.showTool)

	addTool(s, &sdk.Tool{
		Name:  "query",
		Title: "Run a learned query",
		Description: "Run one of the vault's learned queries: a named plan for a question that recurs (\"investor-updates\"), faster and more precise than retrieve. Call without a name to list them with their parameters. " +
			"Use when a learned query fits the question and speed matters; retrieve runs one by itself when the question matches one of its phrases.",
		Annotations: &sdk.ToolAnnotations{Title: "Run a learned query", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, nil, nil, s.queryTool)

	addTool(s, &sdk.Tool{
		Name:  "archive_now",
		Title: "Archive this session",
		Description: "Hand this session, as said so far, to the librarian, which files what matters into the vault. Use when an important task is done, when the user asks to save progress, or before starting a very different task. " +
			"Claude Code's hooks do this at compaction and session end; this is for doing it now.",
		Annotations: &sdk.ToolAnnotations{Title: "Archive this session", OpenWorldHint: ptr(false)},
	}, nil, nil, s.archiveTool)

	addTool(s, &sdk.Tool{
		Name:  "memory",
		Title: "Memory files (/memories)",
		Description: "The memory directory /memories, which is this vault: markdown entries in folders (contacts/, projects/, decisions/, knowledge/, ...) and your own files, under the names you give them. Commands: " +
			"view (a folder's files two levels deep, or a file with line numbers; view_range [start, end]), create (path, file_text; fails if the file exists), str_replace (path, old_str that occurs exactly once, new_str), insert (path, insert_line: 0 for the top, insert_text), delete (path: a file or a folder), rename (old_path, new_path). " +
			"A .md file shows and edits its body; ctx0 keeps its frontmatter (title, type, dates). Every write is a git commit, so a deleted file stays in history. Use it as you would your memory directory: view /memories at the start of a task, and keep notes on progress and what you learn.",
		Annotations: &sdk.ToolAnnotations{Title: "Memory files", OpenWorldHint: ptr(false)},
	}, nil, func(sc *jsonschema.Schema) {
		sc.Properties["command"].Enum = []any{"view", "create", "str_replace", "insert", "delete", "rename"}
	}, s.memoryTool)
}

func ptr[T any](v T) *T { return &v }

// rememberIn is what the remember tool takes: one fact and how to file it.
type rememberIn struct {
	Content string   `json:"content" jsonschema:"the fact: clear, specific and standalone, within the vault's limit (see the tool's description). 'User prefers Bun over Node for new TypeScript projects', not 'likes Bun'; include the why when it matters"`
	Type    string   `json:"type,omitempty" jsonschema:"what kind of fact (see addTools)"`
	Tags    []string `json:"tags,omitempty" jsonschema:"labels such as preference, codebase, contact, infra, decision, pattern, debug"`
	Project string   `json:"project,omitempty" jsonschema:"the project it belongs to; leave out for a global fact"`
	Pin     bool     `json:"pin,omitempty" jsonschema:"load it into every session's context; use sparingly: pinned entries cost budget every session"`
	Links   []string `json:"links,omitempty" jsonschema:"names of related entries to link, such as projects/bot0"`
}

// rememberOut is what remember did.
type rememberOut struct {
	Name      string `json:"name"`
	Duplicate bool   `json:"duplicate"`
	Commit    string `json:"commit,omitempty"`
}

// typeAliases map the type names agents use for an update to an entry of a
// type (contact_update, facts…) to that type.
var typeAliases = map[string]string{"contact_update": "contact", "project_update": "project", "memory": "note", "facts": "fact"}

func (s *Server) rememberTool(ctx context.Context, req *sdk.CallToolRequest, in rememberIn) (*sdk.CallToolResult, rememberOut, error) {
	if strings.TrimSpace(in.Content) == "" {
		return nil, rememberOut{}, errors.New(`"content" is empty: give the fact to remember`)
	}
	t := strings.ToLower(strings.TrimSpace(in.Type))
	if a, ok := typeAliases[t]; ok {
		t = a
	}
	// The client's own limit first: a runaway client is refused before it
	// uses up the vault's.
	byClient, err := s.client.allow(req.Session, "remember")
	if err != nil {
		return nil, rememberOut{}, err
	}
	counted, err := s.remember.allow(ctx, "remember")
	if err != nil {
		s.client.undo(req.Session, byClient)
		return nil, rememberOut{}, err
	}
	r, err := s.opts.Memory.Vault.Remember(ctx, vault.RememberOptions{
		Text: in.Content, Type: t, Tags: in.Tags, Project: in.Project, Pinned: in.Pin, Links: in.Links,
	})
	if err != nil || r.Duplicate {
		s.remember.undo(ctx, counted)
		s.client.undo(req.Session, byClient)
	}
	if err != nil {
		return nil, rememberOut{}, err
	}
	out := rememberOut{Name: r.Name, Duplicate: r.Duplicate, Commit: r.Commit.Hash}
	if r.Duplicate {
		return textResult("Already in memory as %s; nothing was written.", r.Name), out, nil
	}
	pinned := ""
	if in.Pin {
		pinned = " (pinned)"
	}
	return textResult("Saved%s as %s.%s", pinned, r.Name, redactedNote(r.Commit)), out, nil
}

// redactedNote tells the agent what a write redacted, so it knows the
// entry does not hold the secret it sent: "" when nothing was.
func redactedNote(c vault.Commit) string {
	if len(c.Redacted) == 0 {
		return ""
	}
	return fmt.Sprintf(" Redacted before storing: %s.", redact.Summary(c.Redacted))
}

type searchIn struct {
	Query   string `json:"query" jsonschema:"a question or words to find; strict: a AND b, \"exact phrase\", OR, NOT, prefix*, title:word"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many results (default 10, at most 50)"`
	Scope   string `json:"scope,omitempty" jsonschema:"only this folder and below, such as contacts or episodes/2026-01"`
	Type    string `json:"type,omitempty" jsonschema:"only entries of this type"`
	Tag     string `json:"tag,omitempty" jsonschema:"only entries with this tag"`
	Project string `json:"project,omitempty" jsonschema:"only entries of this project"`
	Since   string `json:"since,omitempty" jsonschema:"only entries that happened (the session they were learned in, else the day filed under, else updated) since this date (2026-01-28), RFC 3339 time or time in words (last week)"`
	Until   string `json:"until,omitempty" jsonschema:"only entries that happened before the end of this date, time or time in words"`
	All     bool   `json:"all,omitempty" jsonschema:"also superseded and archived entries"`
}

// searchRow is one compact search result: open it with show.
type searchRow struct {
	Name    string  `json:"name"`
	Title   string  `json:"title"`
	Snippet string  `json:"snippet"`
	Score   float64 `json:"score"`
}

type searchOut struct {
	Results []searchRow `json:"results"`
}

func (s *Server) searchTool(ctx context.Context, _ *sdk.CallToolRequest, in searchIn) (*sdk.CallToolResult, searchOut, error) {
	q := index.Query{Text: in.Query, Limit: in.Limit, Type: in.Type, Tag: in.Tag, Project: in.Project, Scope: in.Scope, All: in.All}
	w, err := s.timeRange(in.Since, in.Until)
	if err != nil {
		return nil, searchOut{}, err
	}
	q.Since, q.Until = w.Since, w.Until
	if err := q.Check(s.memory().Time()); err != nil {
		return nil, searchOut{}, err
	}
	res, _, err := extractor.Search(ctx, s.memory(), q)
	if err != nil {
		return nil, searchOut{}, err
	}
	out := searchOut{Results: []searchRow{}}
	var b strings.Builder
	for _, r := range res {
		out.Results = append(out.Results, searchRow{Name: r.Name, Title: r.Title, Snippet: r.Snippet, Score: roundScore(r.Score)})
		fmt.Fprintf(&b, "%s — %s (%s, score %.3g)\n", r.Name, r.Title, r.Type, r.Score)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(r.Snippet, "\n", " "))
		}
	}
	if len(res) == 0 {
		return textResult("No entries match %q. Try fewer or other words, a prefix*, or retrieve with a question.", q.Text), out, nil
	}
	return textResult("%s", strings.TrimRight(b.String(), "\n")), out, nil
}

func roundScore(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}

type retrieveIn struct {
	Query  string   `json:"query" jsonschema:"what you need to know, in plain words"`
	Scope  []string `json:"scope,omitempty" jsonschema:"only these folders (contacts, projects/bot0, decisions); sessions for past conversations"`
	Budget int      `json:"budget,omitempty" jsonschema:"the most tokens the answer may take (default 2000)"`
	Since  string   `json:"since,omitempty" jsonschema:"only what happened since this date (2026-01-28), RFC 3339 time or time in words (last week)"`
	Until  string   `json:"until,omitempty" jsonschema:"only what happened before the end of this date, time or time in words"`
}

// timeRange reads a tool's since and until arguments (see when.Range).
func (s *Server) timeRange(since, until string) (when.Window, error) {
	return when.Range(s.memory().Time(), when.Bound{Name: `"since"`, Text: since}, when.Bound{Name: `"until"`, Text: until})
}

func (s *Server) retrieveTool(ctx context.Context, _ *sdk.CallToolRequest, in retrieveIn) (*sdk.CallToolResult, any, error) {
	w, err := s.timeRange(in.Since, in.Until)
	if err != nil {
		return nil, nil, err
	}
	req := extractor.Request{Query: in.Query, Scope: in.Scope, Budget: in.Budget, Project: s.opts.Project, Since: w.Since, Until: w.Until}
	if req.Budget == 0 {
		req.Budget = s.opts.Budgets.RetrieveBudget
	}
	if err := req.Check(s.memory().Time()); err != nil {
		return nil, nil, err
	}
	b, err := extractor.Retrieve(ctx, s.memory(), req)
	if err != nil {
		return nil, nil, err
	}
	return textResult("%s", b.Text()), nil, nil
}

type contextIn struct {
	Project string `json:"project,omitempty" jsonschema:"the project worked on (default: the one the server runs in)"`
	Budget  int    `json:"budget,omitempty" jsonschema:"the most tokens the block may take (default 1500)"`
}

func (s *Server) contextTool(ctx context.Context, _ *sdk.CallToolRequest, in contextIn) (*sdk.CallToolResult, any, error) {
	def := s.opts.Budgets.ContextBudget
	if def == 0 {
		def = extractor.DefaultContextBudget
	}
	n, err := extractor.CheckBudget(in.Budget, def, extractor.MinContextBudget)
	if err != nil {
		return nil, nil, err
	}
	project := in.Project
	if project == "" {
		project = s.opts.Project
	}
	b, err := extractor.Context(ctx, s.memory(), extractor.ContextOptions{Project: project, Budget: n, Usage: extractor.UsageMCP})
	if err != nil {
		return nil, nil, err
	}
	return textResult("%s", b.Text), nil, nil
}

type showIn struct {
	Name string `json:"name" jsonschema:"the entry: name (contacts/sarah-chen), unique slug, title or alias"`
	At   string `json:"at,omitempty" jsonschema:"show it as it was at this git revision (a commit, HEAD~3)"`
}

func (s *Server) showTool(ctx context.Context, _ *sdk.CallToolRequest, in showIn) (*sdk.CallToolResult, any, error) {
	ref := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(in.Name), "ctx0://entry/"))
	ref = strings.TrimPrefix(ref, "/memories/")
	if ref == "" {
		return nil, nil, errors.New(`"name" is empty: give an entry's name, such as one from search results`)
	}
	var d vault.Doc
	var err error
	if in.At != "" {
		d, err = s.opts.Memory.Vault.GetAt(ctx, ref, in.At)
	} else {
		d, err = s.opts.Memory.Vault.Get(ctx, ref)
	}
	if err != nil {
		return nil, nil, explain(err, ref)
	}
	return textResult("%s\n%s", "# "+d.Name, string(d.Entry.Bytes())), nil, nil
}

type queryIn struct {
	Name   string            `json:"name,omitempty" jsonschema:"the learned query to run; leave out to list them"`
	Params map[string]string `json:"params,omitempty" jsonschema:"values of the query's parameters, such as {\"days\": \"30\"}"`
	Budget int               `json:"budget,omitempty" jsonschema:"the most tokens the answer may take (default 2000)"`
}

func (s *Server) queryTool(ctx context.Context, _ *sdk.CallToolRequest, in queryIn) (*sdk.CallToolResult, any, error) {
	qs, err := extractor.LoadQueries(s.opts.Memory.Vault.Root())
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return textResult("%s", listQueries(qs)), nil, nil
	}
	def := s.opts.Budgets.RetrieveBudget
	if def == 0 {
		def = extractor.DefaultBudget
	}
	n, err := extractor.CheckBudget(in.Budget, def, extractor.MinBudget)
	if err != nil {
		return nil, nil, err
	}
	b, err := extractor.RunQuery(ctx, s.memory(), strings.TrimSpace(in.Name), in.Params, n, s.opts.Project)
	switch {
	case errors.Is(err, extractor.ErrNoQuery):
		return nil, nil, fmt.Errorf("%w\n%s", err, listQueries(qs))
	case err != nil:
		return nil, nil, err
	}
	return textResult("%s", b.Text()), nil, nil
}

func listQueries(qs extractor.Queries) string {
	if len(qs) == 0 {
		return "The vault has no learned queries yet; use retrieve. (A person saves them with ctx0 query save.)"
	}
	var b strings.Builder
	b.WriteString("Learned queries (run with name and params):\n")
	for _, q := range qs {
		fmt.Fprintf(&b, "- %s", q.Name)
		if q.Description != "" {
			fmt.Fprintf(&b, ": %s", q.Description)
		}
		var ps []string
		for _, p := range q.Params {
			if p.Default != "" {
				ps = append(ps, p.Name+"="+p.Default)
			} else {
				ps = append(ps, p.Name)
			}
		}
		if len(ps) > 0 {
			fmt.Fprintf(&b, " (params: %s)", strings.Join(ps, ", "))
		}
		if len(q.Phrases) > 0 {
			fmt.Fprintf(&b, "; asked as: %s", strings.Join(slices.Clip(q.Phrases), "; "))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// ArchiveRequest names the session to archive; empty fields: the newest
// session of the folder the server runs in.
type ArchiveRequest struct {
	SessionID      string `json:"session_id,omitempty" jsonschema:"the session's id, if you know it"`
	TranscriptPath string `json:"transcript_path,omitempty" jsonschema:"the session's transcript file, if you know it"`
	Summary        string `json:"summary,omitempty" jsonschema:"what matters in this session, for the librarian; saved as an episode entry"`
}

// ArchiveResult says what archive_now did.
type ArchiveResult struct {
	Transcript string `json:"transcript"`
	Messages   int    `json:"messages"` // new messages read
	Queued     int    `json:"queued"`   // conversations handed to the librarian
}

func (s *Server) archiveTool(ctx context.Context, req *sdk.CallToolRequest, in ArchiveRequest) (*sdk.CallToolResult, any, error) {
	var note string
	if strings.TrimSpace(in.Summary) != "" {
		counted, err := s.remember.allow(ctx, "remember (archive_now's summary)")
		if err != nil {
			return nil, nil, err
		}
		r, err := s.opts.Memory.Vault.Remember(ctx, vault.RememberOptions{Text: in.Summary, Type: "episode", Project: s.opts.Project})
		if err != nil {
			s.remember.undo(ctx, counted)
			return nil, nil, fmt.Errorf("summary: %w", err)
		}
		note = fmt.Sprintf("The summary is saved as %s. ", r.Name)
	}
	if s.opts.Archive == nil {
		return nil, nil, fmt.Errorf("%sthis server cannot read agents' sessions; the session was not queued (ctx0 hooks install claude-code archives sessions at compaction and session end)", note)
	}
	res, err := s.opts.Archive.Archive(ctx, in)
	if err != nil {
		return nil, nil, fmt.Errorf("%s%w", note, err)
	}
	return textResult("%sSession %s: %d new messages read; %d conversations handed to the librarian.", note, res.Transcript, res.Messages, res.Queued), nil, nil
}
