package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"

	"github.com/ctx0/ctx0/transcript"
)

// session writes a Claude Code session of users user messages and tools
// tool uses, starting at start, a minute apart.
func session(t *testing.T, root, name, id string, start time.Time, users, tools int) File {
	t.Helper()
	var b strings.Builder
	for i := range max(users, tools) {
		at := start.Add(time.Duration(i) * time.Minute)
		if i < users {
			b.WriteString(line(id, "user", fmt.Sprintf("request %d", i), at))
		}
		if i < tools {
			b.WriteString(`{"type":"assistant","sessionId":"` + id + `","cwd":"/src/app","timestamp":"` + at.Add(time.Second).Format(time.RFC3339) +
				`","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"make test"}}]}}` + "\n")
		}
	}
	return writeFile(t, root, name, b.String())
}

func statuses(t *testing.T, s *Store) string {
	t.Helper()
	list, err := s.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list {
		out = append(out, string(c.Status))
	}
	return strings.Join(out, " ")
}

// TestLifecycle walks conversations through their statuses: the clock
// makes them ready, a hook queues them, the significance filter skips the
// trivial ones, and a librarian run claims and files them.
func TestLifecycle(t *testing.T) {
	s, root := testStore(t)
	now := testNow
	s.now = func() time.Time { return now }
	recent := now.Add(-10 * time.Minute)
	old := now.Add(-3 * time.Hour)

	worth := session(t, root, "p/worth.jsonl", "w", old, 3, 2)
	trivial := session(t, root, "p/trivial.jsonl", "t", old, 2, 1)
	live := session(t, root, "p/live.jsonl", "l", recent, 3, 3)
	ingest(t, s, []File{worth, trivial, live}, Options{})
	if got := statuses(t, s); got != "ready skipped active" {
		t.Fatalf("after ingest: %s", got)
	}
	list, _ := s.Conversations(t.Context(), Skipped)
	if len(list) != 1 || !strings.Contains(list[0].Note, "trivial") {
		t.Errorf("skipped: %+v, want the trivial one with a note", list)
	}

	// A Stop hook queues what is finished, not the live conversation.
	if n, err := s.Queue(t.Context(), worth.Key, false); err != nil || n != 1 {
		t.Errorf("queue worth: %d, %v", n, err)
	}
	if n, err := s.Queue(t.Context(), live.Key, false); err != nil || n != 0 {
		t.Errorf("queue live: %d, %v", n, err)
	}
	// The session ends: the live one is finished and queued too.
	if n, err := s.Queue(t.Context(), live.Key, true); err != nil || n != 1 {
		t.Errorf("end live: %d, %v", n, err)
	}
	if got := statuses(t, s); got != "queued skipped queued" {
		t.Fatalf("after queueing: %s", got)
	}
	// New words after a handover start a new conversation.
	f, err := os.OpenFile(live.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line("l", "user", "one more thing", now.Add(-time.Minute)))
	f.Close()
	ingest(t, s, []File{live}, Options{})
	if got := statuses(t, s); got != "queued skipped queued active" {
		t.Fatalf("after more words: %s", got)
	}

	// A run asked for one conversation claims it, not the oldest; a
	// conversation that is not queued cannot be claimed.
	convs, err := s.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	picked, err := s.ClaimID(t.Context(), convs[2].ID)
	if err != nil || picked.ID != convs[2].ID || picked.Status != Processing {
		t.Fatalf("claim conversation 3: %+v, %v", picked, err)
	}
	if got := statuses(t, s); got != "queued skipped processing active" {
		t.Fatalf("after claiming the third: %s", got)
	}
	if err := s.Finish(t.Context(), picked, Queued, ""); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 3} {
		if _, err := s.ClaimID(t.Context(), convs[i].ID); !errors.Is(err, ErrNoWork) {
			t.Errorf("claim the %s conversation: %v, want ErrNoWork", convs[i].Status, err)
		}
	}

	// A librarian run claims the oldest queued conversation.
	c, err := s.Claim(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.File != worth.Key || c.Status != Processing {
		t.Errorf("claimed %+v, want %s processing", c.Conversation, worth.Key)
	}
	// Another process opening the state leaves a live claim alone.
	other, err := Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	if got := statuses(t, s); got != "processing skipped queued active" {
		t.Fatalf("a live claim was taken back: %s", got)
	}
	if err := s.Finish(t.Context(), c, Archived, ""); err != nil {
		t.Fatal(err)
	}
	// A run that dies (its lock released without finishing) is put back in
	// the queue by the next start.
	c2, err := s.Claim(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c2.lock.Unlock()
	s2, err := Open(t.Context(), root, WithClock(s.now))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := statuses(t, s2); got != "archived skipped queued active" {
		t.Fatalf("after a dead run: %s", got)
	}
	if _, err := s2.Claim(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Claim(t.Context()); !errors.Is(err, ErrNoWork) {
		t.Errorf("claim with nothing queued: %v, want ErrNoWork", err)
	}
}

func TestSelfSavesSkip(t *testing.T) {
	s, root := testStore(t)
	at := testNow.Add(-5 * time.Hour)
	var b strings.Builder
	for i := range 4 {
		b.WriteString(line("s", "user", fmt.Sprintf("fact %d", i), at.Add(time.Duration(i)*time.Minute)))
	}
	for i, name := range []string{"mcp__ctx0__remember", "Bash"} {
		in := `{"text":"x"}`
		if name == "Bash" {
			in = `{"command":"ctx0 remember 'Sarah prefers email'"}`
		}
		b.WriteString(`{"type":"assistant","sessionId":"s","timestamp":"` + at.Add(time.Duration(10+i)*time.Minute).Format(time.RFC3339) +
			`","message":{"role":"assistant","content":[{"type":"tool_use","name":"` + name + `","input":` + in + `}]}}` + "\n")
	}
	f := writeFile(t, root, "p/s.jsonl", b.String())
	ingest(t, s, []File{f}, Options{})
	list, _ := s.Conversations(t.Context(), "")
	if len(list) != 1 || list[0].Status != Skipped || list[0].Note != "the agent saved 2 memories itself" {
		t.Errorf("got %+v", list)
	}
}

// TestSearch finds a phrase from every published session that has
// messages. (The two sub-agent files hold only sidechain lines, which
// ingest leaves out.)
func TestSearch(t *testing.T) {
	s, _ := testStore(t)
	files := publishedFiles(t)
	ingest(t, s, files, Options{})
	searched := 0
	for _, f := range files {
		msgs := parsed(t, f)
		var phrase string
		var want transcript.Message
		for _, m := range msgs {
			words := strings.FieldsFunc(m.Text, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
			if len(words) >= 6 {
				phrase, want = strings.Join(words[2:6], " "), m
				break
			}
		}
		if phrase == "" {
			if len(msgs) > 0 {
				t.Errorf("%s: no phrase to search for", f.Key)
			}
			continue
		}
		searched++
		hits, err := s.Search(t.Context(), Query{Text: `"` + phrase + `"`, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range hits {
			c, err := s.Conversation(t.Context(), h.Conversation)
			if err != nil {
				t.Fatal(err)
			}
			if c.File == f.Key && h.Session == want.Session && h.Speaker == want.Role && h.Time.Equal(want.Time.Truncate(time.Millisecond)) &&
				strings.Contains(h.Snippet, "«") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: search for %q found %+v, want the %s message of %s", f.Key, phrase, hits, want.Role, want.Time)
		}
	}
	if searched < 8 {
		t.Errorf("searched %d sessions, want all 8 with messages", searched)
	}
	// Stemming, and a query FTS5 cannot take as it is.
	tests := []struct {
		q    Query
		hits int
	}{
		{Query{Text: "scrolls"}, 1},                                                   // stemmed
		{Query{Text: "xterm", Project: "/home/marco/projects/spotter"}, 1},            // in a project
		{Query{Text: "xterm", Project: "github.com/acme/other"}, 0},                   // not in it
		{Query{Text: "xterm", Since: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}, 0}, // too old
		{Query{Text: "title:xterm"}, 1},                                               // a field transcripts lack: the word is searched in the text
		{Query{Text: "title:xterm AND nowhere"}, 0},                                   // still strict
		{Query{Text: "  "}, 0},
	}
	for _, tt := range tests {
		hits, err := s.Search(t.Context(), tt.q)
		if err != nil || (len(hits) > 0) != (tt.hits > 0) {
			t.Errorf("Search(%+v) = %d hits, %v; want hits: %v", tt.q, len(hits), err, tt.hits > 0)
		}
	}
}

// TestSessionLog: a dumped session is stored and queued; dumping it again
// with more messages stores only the new ones, as a new conversation.
func TestSessionLog(t *testing.T) {
	s, _ := testStore(t)
	doc := func(n int) []byte {
		var msgs []string
		for i := range n {
			msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":"step %d of the migration","timestamp":"2026-05-01T10:%02d:00Z"}`, i, i))
		}
		return []byte(`{"sessionId":"b-1","agent":"bot0","context":{"workingDir":"/src/app","project":"billing"},"toolCalls":[{"tool":"bash","input":{"command":"make"},"timestamp":"2026-05-01T10:00:30Z"},{"tool":"bash","input":{"command":"make test"},"timestamp":"2026-05-01T10:00:40Z"}],"messages":[` + strings.Join(msgs, ",") + `]}`)
	}
	lg, err := transcript.ParseSessionLog(doc(3), testNow)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.IngestLog(t.Context(), lg)
	if err != nil || rep.Messages != 5 || rep.Queued != 1 {
		t.Fatalf("first dump: %+v, %v", rep, err)
	}
	lg, _ = transcript.ParseSessionLog(doc(5), testNow)
	if rep, err = s.IngestLog(t.Context(), lg); err != nil || rep.Messages != 2 {
		t.Fatalf("second dump: %+v, %v", rep, err)
	}
	list, _ := s.Conversations(t.Context(), "")
	if len(list) != 2 || list[0].Project != "billing" || list[0].Messages != 5 || list[1].Messages != 2 || list[1].Status != Skipped {
		t.Errorf("conversations %+v", list)
	}
	if n := countRows(t, s.db, "messages"); n != 7 {
		t.Errorf("%d messages stored, want 7", n)
	}
}

func TestNormalizeRemote(t *testing.T) {
	for in, want := range map[string]string{
		"git@github.com:ctx0/ctx0.git":               "github.com/ctx0/ctx0",
		"https://github.com/ctx0/ctx0":               "github.com/ctx0/ctx0",
		"https://user:token@GitHub.com/ctx0/ctx0/":   "github.com/ctx0/ctx0",
		"ssh://git@github.com:22/ctx0/ctx0.git":      "github.com/ctx0/ctx0",
		"git://example.org/x/y.git":                  "example.org/x/y",
		"github.com:ctx0/ctx0":                       "github.com/ctx0/ctx0",
		"/srv/git/app.git":                           "/srv/git/app",
		"file:///srv/git/app.git":                    "/srv/git/app",
		"":                                           "",
		"https://gitlab.example.com/group/sub/repo/": "gitlab.example.com/group/sub/repo",
	} {
		if got := NormalizeRemote(in); got != want {
			t.Errorf("NormalizeRemote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProject: two checkouts of one repository share a project; two
// folders of the same name without a remote do not.
func TestProject(t *testing.T) {
	s, _ := testStore(t)
	dir := t.TempDir()
	for _, c := range []struct{ path, url string }{
		{"a/app", "git@github.com:acme/app.git"},
		{"b/app", "https://github.com/acme/app"},
		{"c/app", ""},
		{"d/app", ""},
	} {
		repo, err := git.PlainInit(filepath.Join(dir, c.path), false)
		if err != nil {
			t.Fatal(err)
		}
		if c.url != "" {
			if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{c.url}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "a/app/src/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cwd, recorded, want string }{
		{"a/app/src/deep", "", "github.com/acme/app"},
		{"b/app", "", "github.com/acme/app"},
		{"c/app", "", filepath.Join(dir, "c/app")},
		{"d/app", "", filepath.Join(dir, "d/app")},
		{"gone/app", "git@github.com:acme/old.git", "github.com/acme/old"},
	} {
		if got := s.project(filepath.Join(dir, c.cwd), c.recorded); got != c.want {
			t.Errorf("project(%s) = %s, want %s", c.cwd, got, c.want)
		}
		if c.recorded == "" {
			if got := ProjectOf(filepath.Join(dir, c.cwd)); got != c.want {
				t.Errorf("ProjectOf(%s) = %s, want %s", c.cwd, got, c.want)
			}
		}
	}
}

// TestWatch follows a session as it is written: each append is read as it
// lands, a new session folder is picked up, and the idle trigger makes a
// silent conversation ready.
func TestWatch(t *testing.T) {
	s, root := testStore(t)
	now := testNow
	s.now = func() time.Time { return now }
	dir := filepath.Join(root, "sessions")
	events := make(chan Event, 16)
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- s.Watch(ctx, []string{dir}, WatchOptions{Tick: tick, Notify: func(e Event) { events <- e }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	next := func() Event {
		t.Helper()
		select {
		case e := <-events:
			return e
		case err := <-done:
			t.Fatalf("watch ended: %v", err)
		}
		return Event{}
	}
	if e := next(); !e.Started {
		t.Fatalf("first event %+v, want the start", e)
	}
	// The folder did not exist; the watch waits for it, and for the
	// folders and files made in it, whatever the order of their events.
	p := filepath.Join(dir, "proj", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(text string, at time.Time) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line("s1", "user", text, at)); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write("first words", now.Add(-2*time.Minute))
	for got := 0; got < 1; {
		got += next().Report.Messages
	}
	write("second words", now.Add(-time.Minute))
	write("third words", now.Add(-time.Minute))
	for got := 0; got < 2; {
		got += next().Report.Messages
	}
	if got := statuses(t, s); got != "active" {
		t.Fatalf("statuses %s, want active", got)
	}
	// An hour later the idle trigger fires.
	now = now.Add(2 * time.Hour)
	tick <- now
	e := next()
	if len(e.Finished) != 1 || e.Finished[0].Status != Ready || e.Finished[0].Messages != 3 {
		t.Errorf("idle trigger: %+v", e)
	}
}
