package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/daemon"
	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
	"github.com/ctx0/ctx0/vault"
)

// pageSize is how many entries or commits a page lists.
const pageSize = 50

func (s *Server) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("/signin", s.signin)
	m.Handle("GET /static/", http.FileServerFS(assets))
	m.HandleFunc("GET /{$}", s.page("browse", s.browse))
	m.HandleFunc("GET /entry", s.page("entry", s.entry))
	m.HandleFunc("GET /ask", s.page("ask", s.ask))
	m.HandleFunc("GET /review", s.page("review", s.review))
	m.HandleFunc("GET /run", s.page("change", s.run))
	m.HandleFunc("GET /commit", s.page("change", s.commit))
	m.HandleFunc("GET /conversation", s.page("conversation", s.conversation))
	m.HandleFunc("GET /conflicts", s.page("conflicts", s.conflicts))
	m.HandleFunc("GET /health", s.page("health", s.health))
	m.HandleFunc("POST /undo", s.write(s.undo))
	m.HandleFunc("POST /entry/set", s.write(s.set))
	m.HandleFunc("POST /entry/write", s.write(s.writeBody))
	m.HandleFunc("POST /entry/archive", s.write(s.archive))
	m.HandleFunc("POST /entry/supersede", s.write(s.supersede))
	m.HandleFunc("POST /conflicts/resolve", s.write(s.resolve))
	return m
}

// view is what every page's template gets.
type view struct {
	Nav   string // the tab the page belongs to
	Title string
	Token string // the form token every POST carries
	Msg   string // what the last change did
	Data  any
}

// page serves a page: load's data rendered with the template name, or the
// error it returned.
func (s *Server) page(name string, load func(r *http.Request) (title string, data any, err error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		title, data, err := load(r)
		if err != nil {
			s.fail(w, err)
			return
		}
		s.render(w, http.StatusOK, name, view{Nav: name, Title: title, Token: s.form, Msg: r.URL.Query().Get("msg"), Data: data})
	}
}

// write serves a change: do returns where to go next and what to say.
func (s *Server) write(do func(r *http.Request) (next, msg string, err error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// A change, once begun, is finished even if the browser goes
		// away: the write path is safe either way, but half a request's
		// work is no use to anyone.
		next, msg, err := do(r.WithContext(context.WithoutCancel(r.Context())))
		if err != nil {
			s.fail(w, err)
			return
		}
		u, _ := url.Parse(next)
		q := u.Query()
		q.Set("msg", msg)
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
	}
}

// badRequest marks an error in what the request asked.
type badRequest struct{ error }

func (s *Server) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var bad badRequest
	switch {
	case errors.Is(err, vault.ErrNotFound), errors.Is(err, agent.ErrNoRun), errors.Is(err, sessions.ErrNoConversation):
		code = http.StatusNotFound
	case errors.As(err, &bad), errors.Is(err, vault.ErrBadName), errors.Is(err, vault.ErrOutside),
		errors.Is(err, vault.ErrLink), errors.Is(err, vault.ErrTooLong), errors.Is(err, vault.ErrExists):
		code = http.StatusBadRequest
	case errors.Is(err, vault.ErrNothingToRevert):
		code = http.StatusConflict
	}
	s.render(w, code, "error", view{Title: http.StatusText(code), Token: s.form, Data: err.Error()})
}

func (s *Server) render(w http.ResponseWriter, code int, name string, v view) {
	var b bytes.Buffer
	if err := pages()[name].ExecuteTemplate(&b, "layout", v); err != nil {
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// pageNumber reads ?page=, 1 by default.
func pageNumber(r *http.Request) (int, error) {
	p := r.URL.Query().Get("page")
	if p == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, badRequest{fmt.Errorf("page %q: want a number from 1", p)}
	}
	return n, nil
}

// browseData is the list of entries.
type browseData struct {
	Filter  url.Values
	Pinned  []index.Result
	Entries []index.Result
	Page    int
	Prev    template.URL // the page before, "" on the first
	Next    template.URL // the page after, "" on the last
}

// browse lists the entries from the index, the most recently changed
// first, pinned ones above on the first page, a page at a time.
func (s *Server) browse(r *http.Request) (string, any, error) {
	ctx := r.Context()
	q := r.URL.Query()
	page, err := pageNumber(r)
	if err != nil {
		return "", nil, err
	}
	l := index.Listing{Type: q.Get("type"), Tag: q.Get("tag"), Scope: q.Get("folder"), All: q.Get("all") != ""}
	if p := q.Get("project"); p != "" {
		l.Projects = []string{p}
	}
	d := browseData{Filter: url.Values{}, Page: page}
	for _, k := range []string{"type", "tag", "folder", "project", "all"} {
		if v := q.Get(k); v != "" {
			d.Filter.Set(k, v)
		}
	}
	ix, err := s.svc.Index.Checked(ctx) // one check for both lists
	if err != nil {
		return "", nil, err
	}
	if page == 1 {
		pl := l
		pl.Pinned, pl.Limit = true, pageSize
		if d.Pinned, err = ix.Latest(ctx, pl); err != nil {
			return "", nil, err
		}
	}
	l.Limit, l.Offset = pageSize+1, (page-1)*pageSize
	if d.Entries, err = ix.Latest(ctx, l); err != nil {
		return "", nil, err
	}
	at := func(n int) template.URL {
		v := url.Values{}
		for k, vs := range d.Filter {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(n))
		return template.URL("/?" + v.Encode())
	}
	if len(d.Entries) > pageSize {
		d.Entries, d.Next = d.Entries[:pageSize], at(page+1)
	}
	if page > 1 {
		d.Prev = at(page - 1)
	}
	return "Entries", d, nil
}

// field is one frontmatter field as the page shows it.
type field struct{ Key, Value string }

// entryData is one entry in full.
type entryData struct {
	Name, Path, Title string
	Fields            []field
	Body              string // as written, for the editor
	HTML              any    // rendered (template.HTML)
	Aliases           []string
	Archived          string
	SupersededBy      string
	Pinned            bool
	Conversation      string // the Ref of the conversation it was filed from
	Backlinks         []index.Link
	History           []change // each commit, and the run it merged
}

func (s *Server) entry(r *http.Request) (string, any, error) {
	ctx := r.Context()
	name := r.URL.Query().Get("name")
	if name == "" {
		return "", nil, badRequest{errors.New("which entry? (name=)")}
	}
	doc, err := s.svc.Vault.Get(ctx, name)
	if err != nil {
		return "", nil, err
	}
	e := doc.Entry
	d := entryData{
		Name: doc.Name, Path: vault.EntryPath(doc.Name), Title: e.Title(), Body: e.Body(),
		Aliases: e.Aliases(), SupersededBy: e.SupersededBy(), Pinned: e.Pinned(),
	}
	if t := e.Archived(); !t.IsZero() {
		d.Archived = t.Format("2006-01-02 15:04")
	}
	for _, k := range e.Keys() {
		v, _ := e.Get(k)
		d.Fields = append(d.Fields, field{k, fieldText(v)})
	}
	if ref, ok := e.Get(sessions.RefField); ok {
		if _, _, valid := sessions.ParseRef(fieldText(ref)); valid {
			d.Conversation = fieldText(ref)
		}
	}
	if d.HTML, err = renderMarkdown(e.Body()); err != nil {
		return "", nil, fmt.Errorf("render %s: %w", d.Path, err)
	}
	if d.Backlinks, err = s.svc.Index.Backlinks(ctx, doc.Name); err != nil {
		return "", nil, err
	}
	log, err := s.svc.Vault.History(ctx, doc.Name)
	if err != nil {
		return "", nil, err
	}
	if d.History, err = s.withRuns(ctx, log); err != nil {
		return "", nil, err
	}
	title := d.Title
	if title == "" {
		title = d.Name
	}
	return title, d, nil
}

// fieldText is a frontmatter value as one line.
func fieldText(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fieldText(x)
		}
		return strings.Join(parts, ", ")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// askData is what an agent would see for a question.
type askData struct {
	Query   string
	Results []index.HybridResult
	Bundle  *extractor.Bundle
	Text    string // the bundle as the agent reads it
	Block   extractor.Block
}

func (s *Server) openMemory(ctx context.Context) (*memory, error) {
	if s.memory == nil {
		m, cfg, err := s.svc.Memory(ctx)
		if err != nil {
			return nil, err
		}
		s.memory = &memory{m, cfg}
	}
	return s.memory, nil
}

// ask shows for a question the search results, the retrieve bundle an
// agent gets, and the session-start block: what the agent sees.
func (s *Server) ask(r *http.Request) (string, any, error) {
	ctx := r.Context()
	mem, err := s.openMemory(ctx)
	if err != nil {
		return "", nil, err
	}
	d := askData{Query: strings.TrimSpace(r.URL.Query().Get("q"))}
	if d.Query != "" {
		// The question is read once, for the search and the bundle.
		req := extractor.Request{Query: d.Query, Budget: mem.cfg.Extractor.RetrieveBudget, Project: s.svc.Project}
		if err := req.Check(mem.m.Time()); err != nil {
			return "", nil, err
		}
		q := index.Query{Text: req.Query, Plan: req.Plan}
		if err := q.Check(mem.m.Time()); err != nil {
			return "", nil, err
		}
		if d.Results, _, err = extractor.Search(ctx, mem.m, q); err != nil {
			return "", nil, err
		}
		b, err := extractor.Retrieve(ctx, mem.m, req)
		if err != nil {
			return "", nil, err
		}
		d.Bundle, d.Text = &b, b.Text()
	}
	if d.Block, err = extractor.Context(ctx, mem.m, extractor.ContextOptions{Project: s.svc.Project, Budget: mem.cfg.Extractor.ContextBudget}); err != nil {
		return "", nil, err
	}
	return "Ask", d, nil
}

// change is one row of the timeline: a commit, and the run it merged if
// it did.
type change struct {
	vault.LogEntry
	Run *agent.Run
}

type reviewData struct {
	Changes []change
	Runs    []agent.Run // runs whose changes never reached the branch
	Prev    template.URL
	Next    template.URL
}

// review is the timeline of the branch's commits, newest first, each run
// named where it was merged.
func (s *Server) review(r *http.Request) (string, any, error) {
	ctx := r.Context()
	page, err := pageNumber(r)
	if err != nil {
		return "", nil, err
	}
	log, err := s.svc.Vault.Log(ctx, page*pageSize+1)
	if err != nil {
		return "", nil, err
	}
	var d reviewData
	if page == 1 {
		runs, err := agent.List(ctx, s.svc.Vault.Root())
		if err != nil {
			return "", nil, err
		}
		for _, r := range runs {
			if r.Merged == "" {
				d.Runs = append(d.Runs, r)
			}
		}
	}
	if len(log) > page*pageSize {
		log = log[:page*pageSize]
		d.Next = template.URL("/review?page=" + strconv.Itoa(page+1))
	}
	if page > 1 {
		d.Prev = template.URL("/review?page=" + strconv.Itoa(page-1))
	}
	if d.Changes, err = s.withRuns(ctx, log[min((page-1)*pageSize, len(log)):]); err != nil {
		return "", nil, err
	}
	return "Review", d, nil
}

// withRuns names, beside each commit of log, the agent run it merged, if
// it merged one.
func (s *Server) withRuns(ctx context.Context, log []vault.LogEntry) ([]change, error) {
	runs, err := agent.List(ctx, s.svc.Vault.Root())
	if err != nil {
		return nil, err
	}
	byCommit := map[string]*agent.Run{}
	for i := range runs {
		if runs[i].Merged != "" {
			byCommit[runs[i].Merged] = &runs[i]
		}
	}
	out := make([]change, len(log))
	for i, e := range log {
		out[i] = change{e, byCommit[e.Hash]}
	}
	return out, nil
}

// changeData is what a run or a commit changed.
type changeData struct {
	Run *agent.Run
	// Conversation is the Ref of the conversation a librarian run filed,
	// from its trigger ("conversation ID (REF)"); "" for other runs.
	Conversation string
	Commit       string
	Diff         vault.Diff
	Patches      []filePatch
}

// filePatch is the part of a diff about one file.
type filePatch struct {
	vault.FileChange
	Patch string
}

// splitPatch cuts a unified diff into its files' parts: each starts at
// the line "diff --git a/PATH b/PATH" of one of d's files.
func splitPatch(d vault.Diff) []filePatch {
	header := make(map[string]string, len(d.Files))
	for _, f := range d.Files {
		header["diff --git a/"+f.Path+" b/"+f.Path+"\n"] = f.Path
	}
	byPath := map[string]*strings.Builder{}
	var cur *strings.Builder
	for _, line := range strings.SplitAfter(d.Patch, "\n") {
		if strings.HasPrefix(line, "diff --git ") {
			cur = nil
			if p, ok := header[line]; ok {
				cur = &strings.Builder{}
				byPath[p] = cur
			}
		}
		if cur != nil {
			cur.WriteString(line)
		}
	}
	out := make([]filePatch, 0, len(d.Files))
	for _, f := range d.Files {
		fp := filePatch{FileChange: f}
		if b := byPath[f.Path]; b != nil {
			fp.Patch = b.String()
		}
		out = append(out, fp)
	}
	return out
}

func (s *Server) run(r *http.Request) (string, any, error) {
	ctx := r.Context()
	run, err := agent.Get(ctx, s.svc.Vault.Root(), r.URL.Query().Get("id"))
	if err != nil {
		return "", nil, err
	}
	d := changeData{Run: &run}
	if d.Diff, err = agent.Changes(ctx, s.svc.Vault, run); err != nil {
		return "", nil, err
	}
	if i := strings.LastIndexByte(run.Trigger, '('); i >= 0 && strings.HasSuffix(run.Trigger, ")") {
		if ref := run.Trigger[i+1 : len(run.Trigger)-1]; ref != "" {
			if _, _, ok := sessions.ParseRef(ref); ok {
				d.Conversation = ref
			}
		}
	}
	d.Patches = splitPatch(d.Diff)
	return "Run " + run.ID, d, nil
}

// commitHash is a commit as the page names it: hex only, so no revision
// syntax reaches git.
var commitHash = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

func checkCommit(h string) error {
	if !commitHash.MatchString(h) {
		return badRequest{fmt.Errorf("commit %q: want a commit hash", h)}
	}
	return nil
}

func (s *Server) commit(r *http.Request) (string, any, error) {
	ctx := r.Context()
	h := r.URL.Query().Get("hash")
	if err := checkCommit(h); err != nil {
		return "", nil, err
	}
	d := changeData{Commit: h}
	var err error
	if d.Diff, err = s.svc.Vault.Diff(ctx, h+"~1", h); err != nil {
		// The first commit has no parent to compare with.
		if _, herr := s.svc.Vault.TreeAt(ctx, h); herr != nil {
			return "", nil, badRequest{herr}
		}
		d.Diff = vault.Diff{}
	}
	d.Patches = splitPatch(d.Diff)
	return "Commit " + h[:min(10, len(h))], d, nil
}

// undo reverts a run or a commit, or some files of it, with a new commit.
func (s *Server) undo(r *http.Request) (string, string, error) {
	ctx := r.Context()
	f := r.PostForm
	paths := f["path"]
	var (
		res vault.Reverted
		err error
	)
	switch id, h := f.Get("run"), f.Get("commit"); {
	case id != "":
		res, err = agent.Undo(ctx, s.svc.Vault, id, paths...)
	case h != "":
		if err := checkCommit(h); err != nil {
			return "", "", err
		}
		res, err = s.svc.Vault.Revert(ctx, vault.RevertOptions{Commit: h, Paths: paths})
	default:
		return "", "", badRequest{errors.New("undo what? (run= or commit=)")}
	}
	if err != nil {
		return "", "", err
	}
	msg := "Undone in commit " + res.Hash[:10] + "."
	if res.Conflicts > 0 {
		msg += fmt.Sprintf(" %d conflict(s) kept aside: see Conflicts.", res.Conflicts)
	}
	return "/review", msg, nil
}

func entryURL(name string) string { return "/entry?name=" + url.QueryEscape(name) }

// set sets one frontmatter field, with the checks ctx0 set makes.
func (s *Server) set(r *http.Request) (string, string, error) {
	f := r.PostForm
	name, c, err := s.svc.Vault.Set(r.Context(), f.Get("name"), strings.TrimSpace(f.Get("field")), f.Get("value"))
	if err != nil {
		return "", "", err
	}
	return entryURL(name), written("Set "+f.Get("field"), c), nil
}

// writeBody replaces the body, as ctx0 write does.
func (s *Server) writeBody(r *http.Request) (string, string, error) {
	f := r.PostForm
	body := strings.ReplaceAll(f.Get("body"), "\r\n", "\n")
	name, c, err := s.svc.Vault.Write(r.Context(), f.Get("name"), body)
	if err != nil {
		return "", "", err
	}
	return entryURL(name), written("Saved the body", c), nil
}

// archive archives the entry, as ctx0 rm does.
func (s *Server) archive(r *http.Request) (string, string, error) {
	name, c, err := s.svc.Vault.Remove(r.Context(), r.PostForm.Get("name"), false)
	if err != nil {
		return "", "", err
	}
	return entryURL(name), written("Archived", c), nil
}

// supersede saves a newer version, as ctx0 supersede does.
func (s *Server) supersede(r *http.Request) (string, string, error) {
	f := r.PostForm
	name, c, err := s.svc.Vault.Supersede(r.Context(), f.Get("name"), strings.TrimSpace(f.Get("text")), "user")
	if err != nil {
		return "", "", err
	}
	return entryURL(name), written("Superseded by this entry", c), nil
}

// written says what a write did.
func written(what string, c vault.Commit) string {
	if c.Hash == "" {
		return what + ": nothing changed."
	}
	msg := what + " in commit " + c.Hash[:10] + "."
	if len(c.Redacted) > 0 {
		msg += " Secrets were redacted before storing."
	}
	return msg
}

// conversationData is a conversation an agent had, as the librarian read
// it.
type conversationData struct {
	sessions.Conversation
	Ref        string
	Transcript string
}

// conversation shows the ingested conversation whose Ref is ref=: the
// source an entry or a run was filed from.
func (s *Server) conversation(r *http.Request) (string, any, error) {
	ctx := r.Context()
	ref := r.URL.Query().Get("ref")
	if _, _, ok := sessions.ParseRef(ref); !ok {
		return "", nil, badRequest{fmt.Errorf("conversation %q: want SESSION@TIME, as an entry's conversation field holds it", ref)}
	}
	if s.svc.Conversations == nil {
		return "", nil, fmt.Errorf("conversation %s: %w on this machine", ref, sessions.ErrNoConversation)
	}
	st, err := s.svc.Conversations(ctx)
	if err != nil {
		return "", nil, err
	}
	c, err := st.ConversationByRef(ctx, ref)
	if err != nil {
		return "", nil, fmt.Errorf("%w on this machine (it was ingested elsewhere, or not kept)", err)
	}
	msgs, err := st.Messages(ctx, c.ID)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	if err := transcript.Render(&b, msgs, time.Local); err != nil {
		return "", nil, fmt.Errorf("show conversation %s: %w", ref, err)
	}
	return "Conversation " + ref, conversationData{c, ref, b.String()}, nil
}

func (s *Server) conflicts(r *http.Request) (string, any, error) {
	cs, _, err := s.svc.Vault.Conflicts(r.Context())
	if err != nil {
		return "", nil, err
	}
	return "Conflicts", cs, nil
}

// resolve marks conflicts resolved, as ctx0 conflicts resolve does.
func (s *Server) resolve(r *http.Request) (string, string, error) {
	f := r.PostForm
	n, _, err := s.svc.Vault.ResolveConflicts(r.Context(), f.Get("id"), f.Get("force") != "")
	if err != nil {
		return "", "", err
	}
	return "/conflicts", fmt.Sprintf("Resolved %d conflict(s).", n), nil
}

type healthData struct {
	Status    index.Status
	Types     []string
	Sync      *vault.SyncRecord
	Daemon    *daemon.Status
	Diagnosis *index.Diagnosis // nil until asked for: it reads every file
}

// health is what ctx0 status reports, and with ?doctor=1 what ctx0 doctor
// finds.
func (s *Server) health(r *http.Request) (string, any, error) {
	ctx := r.Context()
	var d healthData
	var err error
	if d.Status, err = s.svc.Index.Status(ctx); err != nil {
		return "", nil, err
	}
	for t := range d.Status.ByType {
		d.Types = append(d.Types, t)
	}
	slices.Sort(d.Types)
	if d.Sync, err = vault.LastSync(s.svc.Vault.Root()); err != nil {
		return "", nil, err
	}
	if d.Daemon, err = daemon.ReadStatus(s.svc.Vault.Root()); err != nil {
		return "", nil, err
	}
	if r.URL.Query().Get("doctor") != "" {
		diag, err := s.svc.Index.Doctor(ctx)
		if err != nil {
			return "", nil, err
		}
		d.Diagnosis = &diag
	}
	return "Health", d, nil
}
