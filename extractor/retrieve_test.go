package extractor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestRetrieveGolden compares bundles for questions over the fixture vault
// with testdata/bundles (go test -update rewrites them).
func TestRetrieveGolden(t *testing.T) {
	m := fixture(t)
	for _, c := range []struct {
		name string
		req  Request
		json bool
	}{
		{"sarah-contact", Request{Query: "how does Sarah like to be contacted?"}, true},
		{"deploy-key", Request{Query: "where is the staging deploy key?", Project: "github.com/me/bot0"}, false},
		{"why-sqlite", Request{Query: "why did we pick SQLite?", Budget: 250}, false},
		{"alias", Request{Query: "who is S. Chen?"}, false},
		{"scope", Request{Query: "sarah", Scope: []string{"episodes"}}, false},
		{"syntax", Request{Query: `"seed round" -partner`}, false},
		{"cjk", Request{Query: "東京のユーザー会はどこ?"}, false},
		{"nothing", Request{Query: "quantum chromodynamics"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := Retrieve(t.Context(), m, c.req)
			if err != nil {
				t.Fatal(err)
			}
			checkBudget(t, b)
			golden.Check(t, filepath.Join("testdata", "bundles/"+c.name+".txt"), []byte(b.Text()), *update)
			if c.json {
				golden.Check(t, filepath.Join("testdata", "bundles/"+c.name+".json"), jsonOf(t, b), *update)
			}
		})
	}
}

// checkBudget checks that a bundle's text fits its budget and that it
// says how many tokens it takes.
func checkBudget(t *testing.T, b Bundle) {
	t.Helper()
	if n := Tokens(b.Text()); n > b.Budget || n != b.Tokens {
		t.Errorf("bundle takes %d tokens, says %d, budget %d", n, b.Tokens, b.Budget)
	}
}

func TestRetrieveLeavesOutDuplicatesAndSuperseded(t *testing.T) {
	m := fixture(t)
	b, err := Retrieve(t.Context(), m, Request{Query: "staging deploy key 1Password"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.Omitted, Omitted{Name: "knowledge/staging-deploy-key-copy", Reason: "near-duplicate of knowledge/staging-deploy-key"}) {
		t.Errorf("omitted %v; want the copy left out as a near-duplicate", b.Omitted)
	}
	b, err = Retrieve(t.Context(), m, Request{Query: "dev server port"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range b.Items {
		if it.Name == "knowledge/superseded-port" {
			t.Errorf("a superseded entry is in the bundle: %+v", it)
		}
	}
	if len(b.Items) == 0 || b.Items[0].Name != "knowledge/dev-server-port" {
		t.Errorf("items %+v; want knowledge/dev-server-port first", b.Items)
	}
}

func TestRetrieveBudgetTooSmall(t *testing.T) {
	m := fixture(t)
	if _, err := Retrieve(t.Context(), m, Request{Query: "sarah", Budget: MinBudget - 1}); !errors.Is(err, ErrBudget) {
		t.Errorf("err = %v, want ErrBudget", err)
	}
}

// TestRetrieveFallsBackOnSessions checks that a question the entries do
// not cover is answered from a past session, with a pointer to it, and
// that one they cover is not.
func TestRetrieveFallsBackOnSessions(t *testing.T) {
	m := fixture(t)
	st := openSessions(t, m)
	f, err := sessions.FileAt(filepath.Join(transcripts, "claude-code", "spotter-tool_heavy-v2.1.38.jsonl"))
	if err != nil {
		t.Skipf("the shared transcripts: %v", err)
	}
	if _, err := st.Ingest(t.Context(), []sessions.File{f}, sessions.Options{}); err != nil {
		t.Fatal(err)
	}
	m.Sessions = st
	b, err := Retrieve(t.Context(), m, Request{Query: "how do we start phoenix in the background?"})
	if err != nil {
		t.Fatal(err)
	}
	var s *Item
	for i := range b.Items {
		if b.Items[i].Kind == "session" {
			s = &b.Items[i]
			break
		}
	}
	if s == nil {
		t.Fatalf("no past session in the bundle:\n%s", b.Text())
	}
	if !strings.HasPrefix(s.Source, "ctx0 conversation show ") || !strings.Contains(strings.ToLower(s.Passage), "phoenix") || !strings.Contains(s.Why, "no entry covers phoenix") {
		t.Errorf("session item %+v", *s)
	}
	b, err = Retrieve(t.Context(), m, Request{Query: "staging deploy key"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range b.Items {
		if it.Kind == "session" {
			t.Errorf("the entries cover the question, yet a session is in the bundle: %+v", it)
		}
	}
	// Named in the scope, sessions are searched whatever the entries say.
	b, err = Retrieve(t.Context(), m, Request{Query: "phoenix server", Scope: []string{"sessions"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || b.Items[0].Kind != "session" {
		t.Errorf("scope sessions: items %+v", b.Items)
	}
}

// TestRetrieveSuggestsLearnedQuery checks that a question asked a third
// time is offered as a learned query, and that once saved, the query
// answers it.
func TestRetrieveSuggestsLearnedQuery(t *testing.T) {
	m := fixture(t)
	q := "where is the staging deploy key?"
	var b Bundle
	for i := range 3 {
		var err error
		if b, err = Retrieve(t.Context(), m, Request{Query: q}); err != nil {
			t.Fatal(err)
		}
		if (b.Suggest != nil) != (i == 2) {
			t.Fatalf("ask %d: suggest %+v", i+1, b.Suggest)
		}
	}
	want := Suggestion{Name: "staging-deploy-key", Asked: 3, Command: `ctx0 query save staging-deploy-key --from "where is the staging deploy key?"`}
	if *b.Suggest != want {
		t.Errorf("suggest %+v, want %+v", *b.Suggest, want)
	}
	if !strings.Contains(b.Text(), want.Command) {
		t.Errorf("the text does not offer the command:\n%s", b.Text())
	}
	// Forgotten, the question is asked for the first time again.
	if err := ForgetQuestions(t.Context(), m.Vault.Root()); err != nil {
		t.Fatal(err)
	}
	if again, err := Retrieve(t.Context(), m, Request{Query: q}); err != nil || again.Suggest != nil {
		t.Fatalf("after ForgetQuestions: suggest %+v, %v", again.Suggest, err)
	}
	lq, err := FromQuestion(want.Name, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SaveQuery(t.Context(), m.Vault, lq); err != nil {
		t.Fatal(err)
	}
	if b, err = Retrieve(t.Context(), m, Request{Query: "Where is the staging deploy key"}); err != nil {
		t.Fatal(err)
	}
	if b.Plan.By != "query:staging-deploy-key" || b.Suggest != nil || len(b.Items) == 0 || b.Items[0].Name != "knowledge/staging-deploy-key" {
		t.Errorf("plan %+v, suggest %v, items %+v", b.Plan, b.Suggest, b.Items)
	}
	usage, err := QueryUsage(m.Vault.Root())
	if err != nil {
		t.Fatal(err)
	}
	if u := usage[want.Name]; u.Uses != 1 || u.LastUsed != clock {
		t.Errorf("usage %+v", u)
	}
}

// TestRetrieveReadsFilesAsTheyAre checks that an entry edited with plain
// file tools is quoted as it is now.
func TestRetrieveReadsFilesAsTheyAre(t *testing.T) {
	m := fixture(t)
	p := filepath.Join(m.Vault.Root(), "knowledge", "espresso-ratio.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "18 g of coffee in, 36 g out", "20 g of coffee in, 40 g out", 1)
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Retrieve(t.Context(), m, Request{Query: "espresso ratio"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || !strings.Contains(b.Items[0].Passage, "20 g of coffee in") {
		t.Errorf("items %s", fmt.Sprint(b.Items))
	}
}

// TestRetrieveBarSetByJudged checks that the score bar of a bundle is set
// by the candidates judged by their passages: a hit past the ones read
// keeps only its search rank, on another scale, and must not raise the bar
// over every passage and leave the bundle empty.
func TestRetrieveBarSetByJudged(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	// More hits than are read, alike, each holding one of the question's
	// two words in a long body: each passage's evidence is well below its
	// search rank.
	filler := strings.Repeat("Notes on the weekly sync of the platform group and its plans. ", 12)
	for i := range readLimit + 4 {
		body := fmt.Sprintf("---\ntype: note\ntitle: Broker note %d\n---\n\n%s The kafka broker was restarted.\n", i, filler)
		if err := writeFile(filepath.Join(v.Root(), fmt.Sprintf("notes/broker-%02d.md", i)), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, v.Root())
	m := open(t, v)
	b, err := Retrieve(t.Context(), m, Request{Query: "kafka retention"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 {
		t.Fatalf("empty bundle (omitted %v); want the notes that mention kafka", b.Omitted)
	}
}

// TestSaidJoinsAConversationsPassages checks that a past conversation is
// quoted by its best passage and the one of its other passages
// that adds words of the question, and by its best alone when none adds any.
func TestSaidJoinsAConversationsPassages(t *testing.T) {
	r := &retrieval{t: analyze("what present did I buy for Rosa")}
	r.match = matcher{t: r.t}
	hit := func(snippet string) sessions.Hit {
		return sessions.Hit{Conversation: 1, Speaker: "user", Snippet: snippet}
	}
	question := hit("…For «Rosa»'s birthday I ended up «buying» a board game, I hope she likes it.")
	answer := hit("…A board game sounds like a thoughtful «present» for «Rosa». User: I had lunch today…")
	other := hit("…Can you draft a polite reply to «Rosa» saying I'll look at it next week?")
	got := r.said([]sessions.Hit{question, other, answer})
	if !strings.Contains(got, "ended up buying") || !strings.Contains(got, "thoughtful present") || strings.Contains(got, "polite reply") {
		t.Errorf("said = %q, want the question's passage and the answer's, not the other", got)
	}
	if got := r.said([]sessions.Hit{answer, other}); strings.Contains(got, "polite reply") || strings.Contains(got, "«") {
		t.Errorf("said = %q, want the best passage alone, unmarked", got)
	}
	// Two hits that quote the same turn (one's reply is the other's
	// matched turn): the turn is read once, the rest of the other is.
	asked := hit("user: For «Rosa»'s birthday I ended up «buying» a board game, I hope she likes it.\nassistant: A board game sounds like a thoughtful gift for «Rosa».")
	replied := hit("assistant: …A board game sounds like a thoughtful gift for «Rosa».…\nuser: Thanks, I'll wrap the «present» tonight.")
	got = r.said([]sessions.Hit{asked, replied})
	if strings.Count(got, "thoughtful gift") != 1 || !strings.Contains(got, "wrap the present tonight") {
		t.Errorf("said = %q, want the shared turn once and the rest of the second passage", got)
	}
	if n := len(byConversation([]sessions.Hit{question, {Conversation: 2}, answer})); n != 2 {
		t.Errorf("byConversation: %d conversations, want 2", n)
	}
}

// TestRetrieveTitleCutFromFirstSentence checks that an entry titled by
// its own first sentence, as the librarian titles what it files, counts
// that sentence's words once: a name said there in passing must not put
// the entry above the past conversation that answers the question.
func TestRetrieveTitleCutFromFirstSentence(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	decision := "---\ntitle: For Beacon we decided to go with GitHub Actions as the CI, Sofia agreed after…\ntype: decision\nproject: beacon\n" +
		"conversation: s-ci@2026-01-10T09:00:00Z\n---\n" +
		"For Beacon we decided to go with GitHub Actions as the CI, Sofia agreed after the review\n\n## Why\n\nthe CI, Sofia agreed after the review\n"
	if err := writeFile(filepath.Join(v.Root(), "decisions/for-beacon-we-decided-to-go-with-github-actions.md"), []byte(decision)); err != nil {
		t.Fatal(err)
	}
	settle(t, v.Root())
	m := open(t, v)
	st := openSessions(t, m)
	// The conversation the decision was filed from, the one that tells
	// where Sofia moved, one more that names her, and others.
	dir := t.TempDir()
	convs := []chat{
		{"s-ci", time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC), []string{
			"For Beacon we decided to go with GitHub Actions as the CI, Sofia agreed after the review.",
			"Understood, GitHub Actions it is for the CI of Beacon."}},
		{"s-move", time.Date(2025, 12, 20, 11, 0, 0, 0, time.UTC), []string{
			"Big news from my sister Sofia: she just moved to Seville for a new job, so I'll visit her there in the summer.",
			"That's exciting for Sofia! Seville is a lovely place to visit in summer."}},
		{"s-reply", time.Date(2025, 12, 28, 10, 0, 0, 0, time.UTC), []string{
			"Can you draft a polite reply to Sofia saying I'll look at it next week?",
			"Here is a draft you can send as it is."}},
		{"s-profile", time.Date(2025, 12, 22, 10, 0, 0, 0, time.UTC), []string{
			"How do I profile memory usage in a long-running service?",
			"Start with the heap profile of the service under load."}},
		{"s-squash", time.Date(2025, 12, 24, 10, 0, 0, 0, time.UTC), []string{
			"I keep forgetting how to squash commits, walk me through it again.",
			"Run an interactive rebase and mark the commits to fold as squash."}},
		{"s-parser", time.Date(2026, 1, 4, 10, 0, 0, 0, time.UTC), []string{
			"Felix thinks we should rewrite the parser, I'm not convinced.",
			"Measure first, then decide."}},
		{"s-weather", time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC), []string{
			"The weather in Bergen is terrible this week, all rain.",
			"Sorry to hear that; a good week to stay in and write tests."}},
	}
	ingestChats(t, st, dir, "/home/felix/src/beacon", convs)
	m.Sessions = st
	b, err := Retrieve(t.Context(), m, Request{Query: "where does Sofia live now?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || b.Items[0].Kind != "session" || !strings.Contains(b.Items[0].Passage, "Seville") {
		t.Errorf("first item %+v, want the conversation that tells where Sofia moved:\n%s", b.Items[:min(len(b.Items), 1)], b.Text())
	}
	// A title of its own still counts as a title.
	if restates("Deploy key for staging", "The staging deploy key is in the team vault.") {
		t.Error("a title of its own is taken for the passage's first words")
	}
	if restates("Deploy key", "# Deploy key\n\nThe staging deploy key is in the team vault.") {
		t.Error("a heading that repeats the title is taken for the passage's first words")
	}
	if !restates("Use Postgres for the billing datab…", "Use Postgres for the billing database, it has the extensions we need.") {
		t.Error("a title cut within a word is not taken for the passage's first words")
	}
}

// chat is one conversation of a test: its session id, when it began, and
// its texts in turn from the user and the assistant.
type chat struct {
	id    string
	at    time.Time
	texts []string
}

// ingestChats writes each chat as a Claude Code session file in dir, of a
// session run in cwd, and ingests them all, ended, into st.
func ingestChats(t *testing.T, st *sessions.Store, dir, cwd string, chats []chat) {
	t.Helper()
	var files []sessions.File
	for _, c := range chats {
		p := filepath.Join(dir, c.id+".jsonl")
		if err := writeFile(p, claudeSession(t, c.id, cwd, c.at, c.texts...)); err != nil {
			t.Fatal(err)
		}
		f, err := sessions.FileAt(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if _, err := st.Ingest(t.Context(), files, sessions.Options{End: true}); err != nil {
		t.Fatal(err)
	}
}

// claudeSession is a Claude Code session file of one conversation: the
// texts in turn from the user and the assistant, a minute apart from
// start.
func claudeSession(t *testing.T, id, cwd string, start time.Time, texts ...string) []byte {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i, text := range texts {
		line := map[string]any{"sessionId": id, "cwd": cwd, "uuid": fmt.Sprintf("%s-%d", id, i),
			"timestamp": start.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")}
		if i%2 == 0 {
			line["type"], line["message"] = "user", map[string]any{"role": "user", "content": text}
		} else {
			line["type"], line["message"] = "assistant", map[string]any{"id": fmt.Sprintf("m-%d", i), "role": "assistant",
				"content": []map[string]string{{"type": "text", "text": text}}}
		}
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
	}
	return []byte(b.String())
}

// TestRetrieveQuotesMoreOfTheBestConversation: the conversation that goes
// first is quoted by more of its turns, the budget going to evidence
// first, so the bundle holds the reason the reply gives ("so each worker
// can keep its own persistent Codex auth volume"), which a passage of the
// usual length cuts off; and an episode filed from it that holds the
// question's words but not the reply does not stand in for its passage.
func TestRetrieveQuotesMoreOfTheBestConversation(t *testing.T) {
	const question = "why were codex jobs routed to the codex-1 and codex-2 queues?"
	episode := "---\ntitle: \"2025-11-13\"\ntype: episode\nsource: librarian\n---\n" +
		"## 2025-11-13 01:50 Responding to the note below, why would jobs be routed to codex-1 and codex-2\n\n" +
		"Conversation: `019a7ae6-1945-7c63-98f2-210adb922af9@2025-11-13T01:50:40Z` (codex, 25 messages, project [[projects/moonmind]])\n\n" +
		"- **Asked:** Responding to the note below, why would jobs be routed to codex-1 and codex-2? I thought the workers just pulled jobs from a central queue.\n" +
		"- **Done:** Wrote 1 file; ran 13 commands; decided: I want to update my spec to remove this queue separation and just have a codex queue\n"
	for _, filed := range []bool{false, true} {
		v := vaulttest.New(t, vault.WithClock(now))
		if filed {
			if err := writeFile(filepath.Join(v.Root(), "episodes/2025-11/2025-11-13.md"), []byte(episode)); err != nil {
				t.Fatal(err)
			}
			settle(t, v.Root())
		}
		m := open(t, v)
		st := openSessions(t, m)
		var files []sessions.File
		for _, name := range []string{"codex/rollout-2025-11-12T17-48-11-019a7ae6-1945-7c63-98f2-210adb922af9.jsonl", "codex/rollout-2025-10-31T19-02-58-c61729d4-da6d-46a4-9a29-ec2c614e5e23.jsonl", "claude-code/kiliman-test2-v1.0.57.jsonl"} {
			f, err := sessions.FileAt(filepath.Join(transcripts, filepath.FromSlash(name)))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if _, err := st.Ingest(t.Context(), files, sessions.Options{End: true}); err != nil {
			t.Fatal(err)
		}
		m.Sessions = st
		b, err := Retrieve(t.Context(), m, Request{Query: question})
		if err != nil {
			t.Fatal(err)
		}
		if text := b.Text(); !strings.Contains(text, "auth volume") {
			t.Errorf("with the episode filed %v: the bundle does not hold the reply's reason:\n%s", filed, text)
		}
	}
}

// TestRetrieveIssueCases: the questions a new user asked of the
// repository's own transcripts, of all four agents, get bundles that hold
// what a person expects: the winston logger error's fix, what was decided
// about MoonMind's queues, the Pomodoro timer session, and an answer given
// as an option's letter.
func TestRetrieveIssueCases(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	st := openSessions(t, m)
	for _, d := range []string{"claude-code", "codex", "gemini", "cursor"} {
		files, err := sessions.FindFiles(t.Context(), filepath.Join(transcripts, d))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Ingest(t.Context(), files, sessions.Options{End: true}); err != nil {
			t.Fatal(err)
		}
	}
	m.Sessions = st
	for _, c := range []struct{ q, want string }{
		{"how did we fix the winston logger error?", "import it directly"},
		{"what did we decide about the queues in MoonMind?", "single shared"},
		{"pomodoro timer", "Pomodoro"},
		{"how should requests be constructed in the modernized Resting API?", "multiple specialized request entry points"},
	} {
		b, err := Retrieve(t.Context(), m, Request{Query: c.q})
		if err != nil {
			t.Fatal(err)
		}
		_, text, _ := strings.Cut(b.Text(), "\n") // not the question's echo
		if !strings.Contains(text, c.want) {
			t.Errorf("%q: the bundle does not hold %q:\n%s", c.q, c.want, b.Text())
		}
	}
}

// TestRetrieveLeavesOutWeakPassages: the budget goes to evidence first. A
// conversation that holds a word or two of the question said of something
// else, scoring well under the one that answers, is not quoted beside it.
func TestRetrieveLeavesOutWeakPassages(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	st := openSessions(t, m)
	dir := t.TempDir()
	day := func(d int) time.Time { return time.Date(2026, 1, d, 9, 0, 0, 0, time.UTC) }
	convs := []chat{
		{"s-paddle", day(20), []string{
			"For Atlas we decided to go with Paddle as the payment service, Ravi agreed after the review.",
			"Understood, Paddle it is for the payment service of Atlas."}},
		{"s-logging", day(12), []string{
			"We should add logging to the payment service client of Atlas before the next release.",
			"Here is a draft you can adapt: thanks for sending this over, I will take a proper look next week."}},
		{"s-rename", day(14), []string{
			"Can you help me rename the handlers in the payment service module? The names are confusing.",
			"Done. I updated the code and the tests pass locally; let me know if you want a different approach."}},
		{"s-profile", day(5), []string{
			"How do I profile memory usage in a long-running service?",
			"Start with the heap profile of the service under load."}},
		{"s-squash", day(6), []string{
			"I keep forgetting how to squash commits, walk me through it again.",
			"Run an interactive rebase and mark the commits to fold as squash."}},
		{"s-weather", day(8), []string{
			"The weather in Bergen is terrible this week, all rain.",
			"Sorry to hear that; a good week to stay in and write tests."}},
	}
	ingestChats(t, st, dir, "/home/hana/src/atlas", convs)
	m.Sessions = st
	b, err := Retrieve(t.Context(), m, Request{Query: "which payment service are we using for Atlas now?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || !strings.Contains(b.Items[0].Passage, "Paddle") {
		t.Fatalf("want the conversation that answers first:\n%s", b.Text())
	}
	for _, it := range b.Items[1:] {
		if it.Score < 0.7 {
			t.Errorf("%s quoted at %.2f of the best:\n%s", it.Name, it.Score, b.Text())
		}
	}
}

// TestHomeRelative: a session's folder under a home folder is titled from
// the home on, the owner's name left out; other folders as they are.
func TestHomeRelative(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/home/omar/src/atlas", "~/src/atlas"},
		{"/Users/yoavfarhi/dev/pomodoro/gemini", "~/dev/pomodoro/gemini"},
		{"/home/omar", "/home/omar"},
		{"/home/omar/", "/home/omar/"},
		{"/srv/app", "/srv/app"},
		{"C:\\Users\\omar\\src", "C:\\Users\\omar\\src"},
		{"", ""},
	} {
		if got := homeRelative(c.in); got != c.want {
			t.Errorf("homeRelative(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRetrieveRanksByTheMatchedTurn: a conversation ranks by the best of
// its matched turn alone and its passage with the reply: a turn that holds
// the question (Felix's birthday) ranks its conversation however much of
// the exchange after it is quoted for the answer, and goes before another
// conversation whose shorter passage holds as much of the question.
func TestRetrieveRanksByTheMatchedTurn(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	st := openSessions(t, m)
	// Months before now, so that their dates barely count.
	day := func(d int) time.Time { return time.Date(2025, 6, d, 9, 0, 0, 0, time.UTC) }
	convs := []chat{
		{"s-pen", day(20), []string{
			"Felix's birthday was on Saturday, we had a small dinner.",
			"Sounds nice! Did you find something for her in the end?",
			"I did, a fountain pen with her initials on the cap, from the little shop near the station that sells notebooks, ink and old maps of the city, run by a man who repairs pens too. I hope she likes it.",
			"I'm sure she will."}},
		{"s-mat", day(10), []string{
			"For Felix's birthday I ended up buying a yoga mat after looking in half the shops in town for something she would use every day, I hope she likes it.",
			"A yoga mat sounds like a thoughtful present; she talked about starting again since the spring, and a good mat makes the first weeks easier."}},
		{"s-parser", day(4), []string{
			"Felix thinks we should rewrite the parser, I'm not convinced.",
			"Measure first, then decide."}},
		{"s-profile", day(5), []string{
			"How do I profile memory usage in a long-running service?",
			"Start with the heap profile of the service under load."}},
		{"s-weather", day(8), []string{
			"The weather in Bergen is terrible this week, all rain.",
			"Sorry to hear that; a good week to stay in and write tests."}},
	}
	ingestChats(t, st, t.TempDir(), "/home/hana/src/atlas", convs)
	m.Sessions = st
	b, err := Retrieve(t.Context(), m, Request{Query: "What did I get Felix for her birthday?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || !strings.Contains(b.Items[0].Passage, "fountain pen") {
		t.Fatalf("want the conversation of the birthday's dinner first, with the gift:\n%s", b.Text())
	}
}

// TestRetrieveLaterTellingFirst: of two conversations that tell the same
// thing in the same words (a birthday each year, and its gift), the later
// goes first though the search ranks the earlier's block a little higher:
// what was said later tells what holds now.
func TestRetrieveLaterTellingFirst(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	st := openSessions(t, m)
	// Months before now, so that their dates barely count.
	day := func(d int) time.Time { return time.Date(2025, 6, d, 9, 0, 0, 0, time.UTC) }
	told := func(hello, gift string) []string {
		return []string{
			hello + "Tomás's birthday was on Saturday, we had a small dinner.",
			"Sounds nice! Did you find something for her in the end?",
			"I did, " + gift + ". I hope she likes it.",
			"I'm sure she will."}
	}
	convs := []chat{
		{"s-pen", day(2), told("", "a fountain pen")},
		{"s-boots", day(16), told("Morning! ", "a pair of hiking boots")},
		{"s-parser", day(4), []string{
			"Tomás thinks we should rewrite the parser, I'm not convinced.",
			"Measure first, then decide."}},
		{"s-weather", day(8), []string{
			"The weather in Bergen is terrible this week, all rain.",
			"Sorry to hear that; a good week to stay in and write tests."}},
	}
	ingestChats(t, st, t.TempDir(), "/home/hana/src/atlas", convs)
	m.Sessions = st
	b, err := Retrieve(t.Context(), m, Request{Query: "What did I get Tomás for her birthday?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) < 2 || !strings.Contains(b.Items[0].Passage, "hiking boots") || !strings.Contains(b.Items[1].Passage, "fountain pen") {
		t.Fatalf("want the later birthday's conversation first, then the earlier:\n%s", b.Text())
	}
}

// A question whose words but the name it asks of are said nowhere ("how
// does Ines like to be contacted?", answered by "prefers Signal") has thin
// evidence: every conversation naming her is as good as any, and the
// bundle quotes them all, each by every passage that names her, not the
// seven best by their best passage alone.
func TestRetrieveThinEvidenceQuotesEveryMention(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	st := openSessions(t, m)
	day := func(d int) time.Time { return time.Date(2025, 6, d, 9, 0, 0, 0, time.UTC) }
	filler := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("Can you look at step %d of the build script?", i), "Done, the build passes.")
		}
		return out
	}
	// The answer is said in the oldest conversation, after another
	// mention of her, many turns apart.
	convs := []chat{{"s-first", day(1), slices.Concat(
		[]string{"Ines reviewed my pull request and asked for more tests.", "Sure, let's add them."},
		filler(8),
		[]string{"By the way, Ines really prefers Signal for anything about scheduling.", "Good to know."})}}
	remarks := []string{
		"Ines thinks we should rewrite the parser.", "Ines sent me an article about Lisbon startups.",
		"I had lunch with Ines, we talked about the new office.", "For Ines's birthday I bought a teapot.",
		"Ines is coming with me to the product launch.", "Ines moved to Porto for a new job.",
		"Ines asked about the release date.", "Ines found a bug in the importer.",
		"Ines says the standup should be shorter.", "Ines is on holiday, back soon.",
	}
	for i, r := range remarks {
		convs = append(convs, chat{fmt.Sprintf("s-%d", i), day(10 + i), []string{r, "Noted."}})
	}
	ingestChats(t, st, t.TempDir(), "/home/hana/src/atlas", convs)
	m.Sessions = st
	b, err := Retrieve(t.Context(), m, Request{Query: "how does Ines like to be contacted?"})
	if err != nil {
		t.Fatal(err)
	}
	text := b.Text()
	if !strings.Contains(text, "prefers Signal") {
		t.Errorf("want the mention that answers among every mention of Ines:\n%s", text)
	}
	for _, r := range remarks {
		if !strings.Contains(text, r) {
			t.Errorf("want every conversation naming Ines, %q missing:\n%s", r, text)
		}
	}
}

// Thin evidence is read by the weight of the words found, not their
// count: a word of the question said of something else in a few passages
// ("never picks up" for "what hobby did Mateo pick up?") weighs less than
// the one said nowhere, and the name every passage holds the least.
func TestThinEvidence(t *testing.T) {
	for _, tc := range []struct {
		question string
		w        []float64 // the terms' weights, in the question's order
		held     [][]int   // what each candidate holds
		want     bool
	}{
		{"where does Omar live now?", []float64{0.7, 2.9}, [][]int{{0}, {0}, {0}}, true},
		{"what hobby did Mateo pick up?", []float64{2.9, 0.7, 1.5}, [][]int{{1}, {1, 2}, {1, 2}, {1}}, true},
		{"which payment service are we using for Atlas now?", []float64{0.7, 0.7, 1.6, 0.9}, [][]int{{0, 1, 3}, {0, 1, 3}, {0, 1}}, false},
		// Every word held somewhere: not thin, however spread.
		{"What does Tomás do on Thursday evenings", []float64{0.7, 1.2, 1.2}, [][]int{{0}, {1, 2}}, false},
	} {
		r := &retrieval{t: analyze(tc.question), w: tc.w, cands: map[string]*candidate{}}
		if len(r.t.words) != len(tc.w) {
			t.Fatalf("%s: words %q, want %d weights", tc.question, r.t.words, len(tc.w))
		}
		for i, h := range tc.held {
			r.cands[fmt.Sprint(i)] = &candidate{held: h, score: 1}
		}
		if got := r.thinEvidence(); got != tc.want {
			t.Errorf("%s: thin = %v, want %v", tc.question, got, tc.want)
		}
	}
}

func TestUnechoed(t *testing.T) {
	r := &retrieval{t: analyze("when is the dentist appointment")}
	r.match = matcher{t: r.t}
	for _, tc := range []struct{ in, want string }{
		// An acknowledgement that says the message again, a date
		// written beside it when quoted or not.
		{"user: My dentist appointment is on Sunday 21 May 2023, at 10:30, and Omar is coming with me.\nassistant: Noted: dentist appointment on 21 May (2023-05-21) at 10:30, with Omar.",
			"user: My dentist appointment is on Sunday 21 May 2023, at 10:30, and Omar is coming with me."},
		{"user: Friday 26 May 2023, at 10:30.\nassistant: Noted, 10:30 on 26 May.",
			"user: Friday 26 May 2023, at 10:30."},
		// A reply that tells something new.
		{"user: Omar is coming to the dentist with me.\nassistant: Then book the appointment for two at the clinic on Main Street.",
			"user: Omar is coming to the dentist with me.\nassistant: Then book the appointment for two at the clinic on Main Street."},
		// A number the message does not say.
		{"user: The capture service listens on some port, fix it.\nassistant: The capture service now listens on port 8080.",
			"user: The capture service listens on some port, fix it.\nassistant: The capture service now listens on port 8080."},
		// The answer to a question, in the question's words.
		{"user: Which clinic does Omar's dentist work at, the Main Street one?\nassistant: Omar's dentist works at the Main Street clinic.",
			"user: Which clinic does Omar's dentist work at, the Main Street one?\nassistant: Omar's dentist works at the Main Street clinic."},
		// A word of the question the message does not hold.
		{"user: Omar is coming with me on 21 May.\nassistant: Noted: Omar, 21 May, dentist.",
			"user: Omar is coming with me on 21 May.\nassistant: Noted: Omar, 21 May, dentist."},
	} {
		if got := r.unechoed(tc.in); got != tc.want {
			t.Errorf("unechoed(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestUnrepeated(t *testing.T) {
	quoted := map[string]bool{"Ines thinks we should rewrite the parser.": true, "Measure first, then decide.": true}
	for _, tc := range []struct {
		in, want string
		fresh    bool
	}{
		// The stock reply said again is left out; the line an item is
		// quoted for stays, said before or not.
		{"user: Ines thinks we should rewrite the parser.\nassistant: Measure first, then decide.\nuser: Ines prefers Signal.",
			"user: Ines thinks we should rewrite the parser.\nuser: Ines prefers Signal.", true},
		{"user: Ines asked for tests.\nassistant: Measure first, then decide.",
			"user: Ines asked for tests.", true},
		// Every line quoted before: it tells nothing new.
		{"user: Ines thinks we should rewrite the parser.\nassistant: Measure first, then decide.",
			"user: Ines thinks we should rewrite the parser.", false},
	} {
		got, fresh := unrepeated(tc.in, quoted)
		if got != tc.want || fresh != tc.fresh {
			t.Errorf("unrepeated(%q) = %q, %v; want %q, %v", tc.in, got, fresh, tc.want, tc.fresh)
		}
	}
}
