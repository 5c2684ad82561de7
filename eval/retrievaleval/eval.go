// Package retrievaleval measures how often ctx0's searches find the
// evidence of a question, side by side with a plain BM25 over the same
// texts in the same run: `ctx0 search` over entries, `ctx0 search
// --sessions`, and `ctx0 retrieve`, with and without the offline
// librarian's entries in the vault. scripts/eval-retrieval.sh runs it over
// a labelled set of questions on the repository's real transcripts and
// over synthetic multi-session conversations (Synthesize).
//
// The vault is set up as a user does it, with the ctx0 binary (init,
// ingest --end, librarian run --all); the questions are then asked in
// process through the same functions the commands call.
package retrievaleval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// Dataset is sessions and the questions asked of them.
type Dataset struct {
	Name string
	// Files are session files to ingest as they are (the real
	// transcripts); Sessions are written as Claude Code files first.
	Files     []string
	Sessions  []Session
	Questions []Question
}

// Session is a generated session.
type Session struct {
	ID       string
	Project  string
	Start    time.Time
	Messages []Message
}

// Message is one message of a generated session.
type Message struct {
	Role string // user or assistant
	Text string
	Time time.Time
}

// Question is a question as people type it, the sessions that hold its
// evidence (session ids), and its answer: words that an entry or passage
// that answers it holds.
type Question struct {
	Text     string   `json:"question"`
	Sessions []string `json:"sessions"`
	Answer   string   `json:"answer"`
	Kind     string   `json:"kind,omitempty"`
}

// LoadQuestions reads a labelled question set (a JSON array of Question).
func LoadQuestions(path string) ([]Question, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	var qs []Question
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("read questions %s: %w", path, err)
	}
	for i, q := range qs {
		if strings.TrimSpace(q.Text) == "" || len(q.Sessions) == 0 || q.Answer == "" {
			return nil, fmt.Errorf("read questions %s: question %d needs a question, sessions and an answer", path, i+1)
		}
	}
	return qs, nil
}

// WriteJSONL writes s as a Claude Code session file.
func (s Session) WriteJSONL(path string) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i, m := range s.Messages {
		line := map[string]any{
			"type": m.Role, "sessionId": s.ID, "cwd": s.Project, "uuid": fmt.Sprintf("%s-%d", s.ID, i),
			"timestamp": m.Time.UTC().Format("2006-01-02T15:04:05.000Z"),
		}
		if m.Role == "user" {
			line["message"] = map[string]any{"role": "user", "content": m.Text}
		} else {
			line["message"] = map[string]any{"id": fmt.Sprintf("m-%s-%d", s.ID, i), "role": "assistant",
				"content": []map[string]string{{"type": "text", "text": m.Text}}}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Options say where and with what a run works.
type Options struct {
	Ctx0 string // the ctx0 binary that sets the vault up
	Work string // a folder for the vault and the session files
	// Reuse asks the questions of vaults a run with the same dataset set
	// up in Work before, when there are: the setup (ingest, librarian)
	// takes most of a run, and a change to how questions are answered
	// needs none of it again.
	Reuse bool
}

// Vaults in Work: the sessions ingested, then a copy filed by the
// librarian.
const (
	sessionsVault = "vault"
	filedVault    = "vault-filed"
)

// Run sets up a vault of ds's sessions, asks every question before and
// after the librarian files them, and returns the measures.
func Run(ctx context.Context, ds Dataset, o Options) (*Report, error) {
	sessionDir := filepath.Join(o.Work, "sessions")
	if err := os.MkdirAll(sessionDir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range ds.Files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		// In a folder of its folder's name: Gemini CLI's sessions are
		// told by their chats folder, Cursor's by agent-transcripts.
		dir := filepath.Join(sessionDir, filepath.Base(filepath.Dir(f)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			return nil, err
		}
	}
	for _, s := range ds.Sessions {
		if err := s.WriteJSONL(filepath.Join(sessionDir, s.ID+".jsonl")); err != nil {
			return nil, fmt.Errorf("write session %s: %w", s.ID, err)
		}
	}
	root, filed := filepath.Join(o.Work, sessionsVault), filepath.Join(o.Work, filedVault)
	ready := filepath.Join(o.Work, "ready")
	if _, err := os.Stat(ready); !o.Reuse || err != nil {
		if err := setUp(ctx, o, sessionDir, root, filed); err != nil {
			return nil, err
		}
		if err := os.WriteFile(ready, nil, 0o644); err != nil {
			return nil, err
		}
	}
	// A person asks each question once: what earlier runs asked of kept
	// vaults must not add retrieve's "asked N times" line to a bundle.
	for _, v := range []string{root, filed} {
		if err := extractor.ForgetQuestions(ctx, v); err != nil {
			return nil, err
		}
	}
	rep := &Report{Dataset: ds.Name, Questions: len(ds.Questions)}
	before, err := ask(ctx, root, ds, false)
	if err != nil {
		return nil, err
	}
	after, err := ask(ctx, filed, ds, true)
	if err != nil {
		return nil, err
	}
	rep.Sessions, rep.SessionsBM25, rep.SessionHits = before.sessions, before.sessionsBM25, before.sessionHits
	rep.Retrieve, rep.RetrieveFiled = before.retrieve, after.retrieve
	rep.Entries, rep.EntriesBM25, rep.EntryQuestions = after.entries, after.entriesBM25, after.entryQuestions
	rep.Docs, rep.Entryc = before.docs, after.entryc
	rep.Misses = after.misses
	rep.RetrieveMisses = after.retrieveMisses
	rep.SessionMisses = before.sessionMisses
	rep.AnswerRetrieve, rep.AnswerTurns, rep.AnswerSession = before.answer, before.answerTurns, before.answerSession
	rep.AnswerRetrieveFiled, rep.AnswerTurnsFiled = after.answer, after.answerTurns
	rep.AnswerMisses, rep.AnswerMissesSessions = after.answerMisses, before.answerMisses
	rep.FirstMissesSessions = before.firstMisses
	for i, f := range after.firsts {
		if g := before.firsts[i]; g.evidence != f.evidence {
			rep.FirstChanged = append(rep.FirstChanged, fmt.Sprintf("%q: from the evidence %v → %v; without entries %s %.2f, with them %s %.2f",
				f.question, g.evidence, f.evidence, g.item, g.score, f.item, f.score))
		}
	}
	return rep, nil
}

// setUp makes the two vaults of a run as a user does, with the ctx0
// binary: root with the sessions ingested, and filed, a copy of it in
// which the librarian filed them.
func setUp(ctx context.Context, o Options, sessionDir, root, filed string) error {
	for _, dir := range []string{root, filed} {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	ctx0 := func(vault string, args ...string) error {
		cmd := exec.CommandContext(ctx, o.Ctx0, append([]string{"--vault", vault}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+o.Work)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("ctx0 %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if out, err := exec.CommandContext(ctx, o.Ctx0, "init", root).CombinedOutput(); err != nil {
		return fmt.Errorf("ctx0 init: %w: %s", err, out)
	}
	if err := ctx0(root, "ingest", "--dir", sessionDir, "--end"); err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, "cp", "-a", root, filed).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the vault: %w: %s", err, out)
	}
	return ctx0(filed, "librarian", "run", "--all")
}

// answers are the measures of one state of the vault.
type answers struct {
	sessions, sessionsBM25 Ranks
	sessionHits            Ranks
	entries, entriesBM25   Ranks
	entryQuestions         int
	retrieve               RetrieveStats
	docs, entryc           int
	misses                 []string
	retrieveMisses         []string
	sessionMisses          []string
	// firsts are retrieve's first item per question, in order, and
	// whether it is from the evidence.
	firsts []first
	// firstMisses are the questions whose first item is not from the
	// evidence, with the first item and the evidence's best.
	firstMisses []string
	// answer recall of retrieve's bundle, of plain BM25 over single
	// turns at as many tokens, and of BM25's top whole session.
	answer, answerTurns, answerSession AnswerRecall
	answerMisses                       []string
}

// first is the first item of a question's bundle.
type first struct {
	question, item string
	score          float64
	evidence       bool
}

// refRE finds the conversations an entry was filed from: its
// conversation field, and the markers of an episode's sections.
var refRE = regexp.MustCompile("(?m)(?:^conversation: |Conversation: `)([^@\\s`]+)@")

func ask(ctx context.Context, root string, ds Dataset, filed bool) (*answers, error) {
	v, err := vault.Open(ctx, root)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(ctx, v)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	// Questions are asked a day after the last session.
	at := time.Now()
	now := func() time.Time { return at }
	st, err := sessions.Open(ctx, root, sessions.WithClock(now))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	convs, err := st.Conversations(ctx, "")
	if err != nil {
		return nil, err
	}
	// Whole sessions, for the plain BM25.
	var last time.Time
	for _, c := range convs {
		if c.Last.After(last) {
			last = c.Last
		}
	}
	if !last.IsZero() {
		at = last.Add(24 * time.Hour)
	}
	convSession := map[int64]string{}
	var turns []string
	text := map[string]*strings.Builder{}
	var order []string
	for _, c := range convs {
		convSession[c.ID] = c.Session
		msgs, err := st.Messages(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		b := text[c.Session]
		if b == nil {
			b = &strings.Builder{}
			text[c.Session] = b
			order = append(order, c.Session)
		}
		for _, m := range msgs {
			turns = append(turns, m.Text)
			b.WriteString(m.Text)
			for _, t := range m.Tools {
				b.WriteString("\n" + t.Name + " " + t.Target)
			}
			b.WriteString("\n")
		}
	}
	sessionDocs := make([]string, len(order))
	for i, s := range order {
		sessionDocs[i] = text[s].String()
	}
	sessionBM25 := NewBM25(sessionDocs)
	turnBM25 := NewBM25(turns)

	// The entries, their text and the sessions they were filed from.
	var names, entryDocs []string
	from := map[string][]string{}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".md")
		if name == "CONTEXT" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		names = append(names, name)
		entryDocs = append(entryDocs, string(data))
		for _, m := range refRE.FindAllStringSubmatch(string(data), -1) {
			from[name] = append(from[name], m[1])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	entryBM25 := NewBM25(entryDocs)

	m := extractor.Memory{Vault: v, Index: ix, Sessions: st, Now: now}
	a := &answers{docs: len(sessionDocs), entryc: len(names)}
	for _, q := range ds.Questions {
		evidence := func(session string) bool { return slices.Contains(q.Sessions, session) }
		// search --sessions: the sessions of the hits, each once, in order.
		hits, err := extractor.SearchSessions(ctx, st, sessions.Query{Text: q.Text, Limit: 50}, at)
		if err != nil {
			return nil, err
		}
		var got, shown []string
		for i, h := range hits {
			if !slices.Contains(got, h.Session) {
				got = append(got, h.Session)
			}
			if i < sessions.DefaultLimit {
				shown = append(shown, h.Session)
			}
		}
		a.sessions.add(rankOf(got, evidence))
		a.sessionHits.add(rankOf(shown, evidence))
		var bm []string
		for _, i := range sessionBM25.Rank(q.Text, 10) {
			bm = append(bm, order[i])
		}
		a.sessionsBM25.add(rankOf(bm, evidence))
		if rk, bmRk := rankOf(got, evidence), rankOf(bm, evidence); inTop5(rk) != inTop5(bmRk) {
			a.sessionMisses = append(a.sessionMisses, fmt.Sprintf("%q (evidence %q): search --sessions at %d, plain BM25 at %d; search --sessions gave %q, BM25 %q",
				q.Text, q.Sessions, rk, bmRk, got[:min(len(got), 5)], bm[:min(len(bm), 5)]))
		}

		// search over entries: those that hold the answer and were filed
		// from an evidence session.
		answer := strings.ToLower(q.Answer)
		relevant := func(name string) bool {
			i := slices.Index(names, name)
			return i >= 0 && strings.Contains(strings.ToLower(entryDocs[i]), answer) && slices.ContainsFunc(from[name], evidence)
		}
		if filed && slices.ContainsFunc(names, relevant) {
			a.entryQuestions++
			res, _, err := extractor.Search(ctx, m, index.Query{Text: q.Text})
			if err != nil {
				return nil, err
			}
			var found []string
			for _, r := range res {
				found = append(found, r.Name)
			}
			rk := rankOf(found, relevant)
			a.entries.add(rk)
			if rk == 0 || rk > 5 {
				a.misses = append(a.misses, fmt.Sprintf("%q (answer %q): entries search gave %q", q.Text, q.Answer, found[:min(len(found), 5)]))
			}
			var bmFound []string
			for _, i := range entryBM25.Rank(q.Text, 10) {
				bmFound = append(bmFound, names[i])
			}
			a.entriesBM25.add(rankOf(bmFound, relevant))
		}

		// retrieve: is the first item, or any, from an evidence source?
		b, err := extractor.Retrieve(ctx, m, extractor.Request{Query: q.Text})
		if err != nil {
			return nil, err
		}
		isEvidence := func(it extractor.Item) bool {
			if id, ok := strings.CutPrefix(it.Name, "conversation:"); ok {
				var n int64
				fmt.Sscan(id, &n)
				return evidence(convSession[n])
			}
			return slices.ContainsFunc(from[it.Name], evidence)
		}
		a.retrieve.add(b, isEvidence)
		bt := bundleText(b)
		a.answer.add(q.Kind, bt, q.Answer, b.Tokens)
		bmTurns := fill(turnBM25, turns, q.Text, b.Tokens)
		a.answerTurns.add(q.Kind, bmTurns, q.Answer, extractor.Tokens(bmTurns))
		topSession := ""
		if top := sessionBM25.Rank(q.Text, 1); len(top) > 0 {
			topSession = sessionDocs[top[0]]
		}
		a.answerSession.add(q.Kind, topSession, q.Answer, extractor.Tokens(topSession))
		if !HoldsAnswer(bt, q.Answer) {
			var held []string
			if HoldsAnswer(bmTurns, q.Answer) {
				held = append(held, "BM25's turns")
			}
			if HoldsAnswer(topSession, q.Answer) {
				held = append(held, "BM25's top session")
			}
			if len(held) > 0 {
				a.answerMisses = append(a.answerMisses, fmt.Sprintf("%q (answer %q, held by %s; kind %q, %d tokens):\n\n```\n%s```", q.Text, q.Answer, strings.Join(held, " and "), q.Kind, b.Tokens, b.Text()))
			}
		}
		f := first{question: q.Text}
		if len(b.Items) > 0 {
			f.item, f.score, f.evidence = b.Items[0].Name, b.Items[0].Score, isEvidence(b.Items[0])
		}
		if len(b.Items) > 1 {
			f.item += fmt.Sprintf(" (then %s %.2f)", b.Items[1].Name, b.Items[1].Score)
		}
		a.firsts = append(a.firsts, f)
		if len(b.Items) > 0 && !f.evidence {
			ev := "none"
			if i := slices.IndexFunc(b.Items, isEvidence); i >= 0 {
				ev = fmt.Sprintf("%s %.2f at %d", b.Items[i].Name, b.Items[i].Score, i+1)
			}
			a.firstMisses = append(a.firstMisses, fmt.Sprintf("%q (evidence %q): first %s %.2f; evidence item %s", q.Text, q.Sessions, b.Items[0].Name, b.Items[0].Score, ev))
		}
		if !slices.ContainsFunc(b.Items, isEvidence) {
			var items []string
			for _, it := range b.Items {
				items = append(items, fmt.Sprintf("%s %.2f", it.Name, it.Score))
			}
			var left []string
			for _, o := range b.Omitted {
				left = append(left, o.Name+": "+o.Reason)
			}
			var convs []int64
			for id, s := range convSession {
				if evidence(s) {
					convs = append(convs, id)
				}
			}
			slices.Sort(convs)
			a.retrieveMisses = append(a.retrieveMisses, fmt.Sprintf("%q (evidence %q, conversations %v, first of search --sessions at %d; %d tokens): items %q; left out %q",
				q.Text, q.Sessions, convs, rankOf(got, evidence), b.Tokens, items, left))
		}
	}
	return a, nil
}

func inTop5(rank int) bool { return rank > 0 && rank <= 5 }

// rankOf returns the 1-based rank of the first of got that is relevant, 0
// if none is.
func rankOf(got []string, relevant func(string) bool) int {
	for i, g := range got {
		if relevant(g) {
			return i + 1
		}
	}
	return 0
}
