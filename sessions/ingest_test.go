package sessions

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/transcript"
)

// TestPublishedSessions ingests every published session file: each keeps
// all its messages, nothing is stored twice on a second run, and the
// conversations match the golden file.
func TestPublishedSessions(t *testing.T) {
	s, _ := testStore(t)
	files := publishedFiles(t)
	rep := ingest(t, s, files, Options{})
	want := 0
	for _, f := range files {
		n := len(parsed(t, f))
		want += n
		var got int
		if err := s.db.QueryRow(`SELECT count(*) FROM messages WHERE file = ?`, f.Key).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Errorf("%s: %d messages stored, the parser reads %d", f.Key, got, n)
		}
	}
	if rep.Messages != want || rep.Read != len(files) {
		t.Errorf("report %+v: want %d messages from %d files", rep, want, len(files))
	}
	before := dump(t, s)
	again := ingest(t, s, files, Options{})
	if again.Messages != 0 || again.Read != 0 || dump(t, s) != before {
		t.Errorf("a second ingest changed the state: %+v", again)
	}
	list, err := s.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "conversations.golden.json"), append(got, '\n'), *update)
}

// TestGapSplitting: messages split into conversations on silences longer
// than the gap, in time order even where the file is not.
func TestGapSplitting(t *testing.T) {
	at := func(min int) time.Time {
		return time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC).Add(time.Duration(min) * time.Minute)
	}
	tests := []struct {
		name    string
		gap     int
		minutes []int // message times, in file order
		want    [][2]int
	}{
		{"one conversation", 60, []int{0, 10, 70, 130}, [][2]int{{0, 130}}},
		{"a gap of exactly the limit does not split", 60, []int{0, 60}, [][2]int{{0, 60}}},
		{"a longer silence splits", 60, []int{0, 10, 71, 80}, [][2]int{{0, 10}, {71, 80}}},
		{"three parts", 30, []int{0, 31, 62, 63, 200}, [][2]int{{0, 0}, {31, 31}, {62, 63}, {200, 200}}},
		{"out of file order", 60, []int{80, 0, 75, 5}, [][2]int{{0, 5}, {75, 80}}},
		{"a late line inside a conversation", 60, []int{0, 20, 200, 10}, [][2]int{{0, 20}, {200, 200}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, root := testStore(t, WithConfig(Config{GapMinutes: tt.gap, MinUserMessages: 1}))
			var b strings.Builder
			for i, m := range tt.minutes {
				b.WriteString(line("s1", "user", fmt.Sprintf("message %d", i), at(m)))
			}
			f := writeFile(t, root, "p/s1.jsonl", b.String())
			ingest(t, s, []File{f}, Options{})
			list, err := s.Conversations(t.Context(), "")
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]int
			total := 0
			for _, c := range list {
				got = append(got, [2]int{int(c.First.Sub(at(0)).Minutes()), int(c.Last.Sub(at(0)).Minutes())})
				total += c.Messages
			}
			if !reflect.DeepEqual(got, tt.want) || total != len(tt.minutes) {
				t.Errorf("conversations %v holding %d messages, want %v holding %d", got, total, tt.want, len(tt.minutes))
			}
		})
	}
}

// TestAppendWhileIngesting: a writer appends a session file in pieces of
// any size, cutting lines anywhere, while ingest runs again and again with
// small chunks. The end state equals one ingest of the whole file.
func TestAppendWhileIngesting(t *testing.T) {
	var whole []byte
	for _, f := range publishedFiles(t) {
		if f.Source != transcript.ClaudeCode {
			continue
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, data...)
	}
	for _, chunk := range []int{1 << 10, 64 << 10} {
		t.Run(fmt.Sprint("chunk ", chunk), func(t *testing.T) {
			s, root := testStore(t, WithChunkSize(chunk))
			f := writeFile(t, root, "proj/session.jsonl", "")
			out, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			var wg sync.WaitGroup
			done := make(chan struct{})
			wg.Go(func() {
				defer close(done)
				r := rand.New(rand.NewPCG(1, uint64(chunk)))
				for off := 0; off < len(whole); {
					n := min(len(whole)-off, 1+r.IntN(32<<10))
					if _, err := out.Write(whole[off : off+n]); err != nil {
						t.Error(err)
						return
					}
					off += n
				}
			})
			runs := 0
			for running := true; running; runs++ {
				select {
				case <-done:
					running = false
				default:
				}
				ingest(t, s, []File{f}, Options{})
			}
			wg.Wait()
			ingest(t, s, []File{f}, Options{})

			ref, refRoot := testStore(t)
			g := writeFile(t, refRoot, "proj/session.jsonl", string(whole))
			ingest(t, ref, []File{g}, Options{})
			if got, want := dump(t, s), dump(t, ref); got != want {
				t.Errorf("after %d ingests while appending, the state differs from one ingest of the whole file:\n%s", runs, golden.Diff([]byte(want), []byte(got)))
			}
		})
	}
}

// TestRewritten: a file that shrank, or whose read part changed, is read
// again from the start; --reimport starts over; the statuses the librarian
// depends on survive.
func TestRewritten(t *testing.T) {
	at := func(min int) time.Time {
		return time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC).Add(time.Duration(min) * time.Minute)
	}
	s, root := testStore(t)
	var b strings.Builder
	for i := range 6 {
		b.WriteString(line("s1", "user", fmt.Sprintf("question %d", i), at(i)))
		b.WriteString(`{"type":"assistant","sessionId":"s1","timestamp":"` + at(i).Add(time.Second).Format(time.RFC3339) + `","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"make"}},{"type":"tool_use","name":"Read","input":{"file_path":"x"}}]}}` + "\n")
	}
	orig := b.String()
	f := writeFile(t, root, "p/s1.jsonl", orig)
	ingest(t, s, []File{f}, Options{})
	if n, err := s.Queue(t.Context(), f.Key, true); err != nil || n != 1 {
		t.Fatalf("queued %d (%v), want 1", n, err)
	}
	messages := func() string {
		rows, err := s.db.Query(`SELECT text FROM messages WHERE role = 'user' ORDER BY pos`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return strings.Join(out, "|")
	}
	status := func() string {
		list, err := s.Conversations(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range list {
			out = append(out, fmt.Sprintf("%s:%d", c.Status, c.Messages))
		}
		return strings.Join(out, " ")
	}
	// Same size, other bytes: rewritten in place.
	edited := strings.Replace(orig, "question 0", "QUESTION 0", 1)
	writeFile(t, root, "p/s1.jsonl", edited)
	if rep := ingest(t, s, []File{f}, Options{}); rep.Reread != 1 {
		t.Errorf("rewritten in place: %+v, want a reread", rep)
	}
	if got := messages(); !strings.HasPrefix(got, "QUESTION 0|question 1") {
		t.Errorf("after the rewrite: %s", got)
	}
	if got := status(); got != "queued:12" {
		t.Errorf("statuses after the rewrite: %s, want the queued conversation kept", got)
	}
	// Shorter.
	writeFile(t, root, "p/s1.jsonl", line("s1", "user", "only this", at(0)))
	if rep := ingest(t, s, []File{f}, Options{}); rep.Reread != 1 || messages() != "only this" {
		t.Errorf("shrunk: %+v, messages %s", rep, messages())
	}
	// Reimport of an unchanged file reads it all again and keeps the rest.
	writeFile(t, root, "p/s1.jsonl", orig)
	ingest(t, s, []File{f}, Options{})
	before := dump(t, s)
	if rep := ingest(t, s, []File{f}, Options{Reimport: true}); rep.Reread != 1 || rep.Messages != 12 {
		t.Errorf("reimport: %+v", rep)
	}
	if after := dump(t, s); after != before {
		t.Errorf("reimport changed the state:\n%s", golden.Diff([]byte(before), []byte(after)))
	}
}

// TestPartialLine: a line still being written waits; once the writer has
// been silent for the gap, or the session ends, a last line without its
// newline is read.
func TestPartialLine(t *testing.T) {
	s, root := testStore(t)
	old := time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC)
	first := line("s1", "user", "first", old)
	last := strings.TrimSuffix(line("s1", "user", "last", old.Add(time.Minute)), "\n")
	f := writeFile(t, root, "p/s1.jsonl", first+last[:20])
	// The file was just written: as far as the clock knows, it is live.
	s.now = func() time.Time { return time.Now() }
	ingest(t, s, []File{f}, Options{})
	if n := countRows(t, s.db, "messages"); n != 1 {
		t.Fatalf("%d messages, want 1: half a line must wait", n)
	}
	writeFile(t, root, "p/s1.jsonl", first+last)
	ingest(t, s, []File{f}, Options{})
	if n := countRows(t, s.db, "messages"); n != 1 {
		t.Fatalf("%d messages, want 1: a line without its newline waits while the writer may go on", n)
	}
	ingest(t, s, []File{f}, Options{End: true})
	if n := countRows(t, s.db, "messages"); n != 2 {
		t.Fatalf("%d messages, want 2 once the session ended", n)
	}
}

// TestUnreadable: a file that cannot be read is reported; the others are
// still read.
func TestUnreadable(t *testing.T) {
	s, root := testStore(t)
	good := writeFile(t, root, "p/good.jsonl", line("s1", "user", "hello", testNow))
	gone := File{Path: filepath.Join(root, "p", "gone.jsonl"), Key: "claude-code/p/gone.jsonl", Source: transcript.ClaudeCode}
	rep, err := s.Ingest(t.Context(), []File{gone, good}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "gone.jsonl") || rep.Messages != 1 {
		t.Errorf("report %+v: want one error naming gone.jsonl and the good file read", rep)
	}
}

func TestKeys(t *testing.T) {
	tests := []struct {
		path string
		src  transcript.Source
		want string
	}{
		{"/home/u/.claude/projects/-home-u-app/5b53.jsonl", transcript.ClaudeCode, "claude-code/-home-u-app/5b53.jsonl"},
		{"/backup/projects-backup/-home-u-app/5b53.jsonl", transcript.ClaudeCode, "claude-code/-home-u-app/5b53.jsonl"},
		{"/home/u/.claude/projects/-home-u-app/5b53/subagents/agent-a1.jsonl", transcript.ClaudeCode, "claude-code/-home-u-app/5b53/subagents/agent-a1.jsonl"},
		{"/home/u/.codex/sessions/2025/08/25/rollout-2025-08-25T08-13-30-fce9.jsonl", transcript.Codex, "codex/rollout-2025-08-25T08-13-30-fce9.jsonl"},
		{"/s.jsonl", transcript.ClaudeCode, "claude-code/s.jsonl"},
		{"/home/u/.gemini/tmp/0e5b/chats/session-2026-01-28T09-50-5f1c.jsonl", transcript.Gemini, "gemini/0e5b/chats/session-2026-01-28T09-50-5f1c.json"},
		{"/home/u/.gemini/tmp/0e5b/chats/session-2026-01-28T09-50-5f1c.json", transcript.Gemini, "gemini/0e5b/chats/session-2026-01-28T09-50-5f1c.json"},
		{"/home/u/.cursor/projects/src-app/agent-transcripts/3f1e.jsonl", transcript.Cursor, "cursor/agent-transcripts/3f1e.jsonl"},
	}
	for _, tt := range tests {
		if got := keyOf(tt.path, tt.src); got != tt.want {
			t.Errorf("keyOf(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
	home := "/home/u"
	env := map[string]string{"CODEX_HOME": "/opt/codex"}
	if got := DefaultDirs(home, func(k string) string { return env[k] }); !reflect.DeepEqual(got, []string{"/home/u/.claude/projects", "/opt/codex/sessions", "/home/u/.gemini/tmp", "/home/u/.cursor/projects"}) {
		t.Errorf("DefaultDirs = %v", got)
	}
}

// TestSecretsRedacted: a key pasted into a session is stored as a marker
// and cannot be found.
func TestSecretsRedacted(t *testing.T) {
	s, root := testStore(t)
	const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
	f := writeFile(t, root, "p/s.jsonl",
		line("s", "user", "use ANTHROPIC_API_KEY="+key+" for the deploy", testNow)+
			`{"type":"assistant","sessionId":"s","timestamp":"2026-05-01T12:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"curl -H 'Authorization: Bearer abcdef0123456789abcdef0123456789' https://api.example.com"}}]}}`+"\n")
	ingest(t, s, []File{f}, Options{})
	var all strings.Builder
	for _, q := range []string{`SELECT text || tools FROM messages`, `SELECT text FROM blocks_fts`} {
		rows, err := s.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var x string
			rows.Scan(&x)
			all.WriteString(x)
		}
		rows.Close()
	}
	if strings.Contains(all.String(), key) || strings.Contains(all.String(), "abcdef0123456789abcdef") {
		t.Errorf("a secret was stored: %s", all.String())
	}
	if !strings.Contains(all.String(), "[REDACTED:anthropic-key]") || !strings.Contains(all.String(), "Bearer [REDACTED:bearer]") {
		t.Errorf("no redaction markers in %s", all.String())
	}
	if hits, err := s.Search(t.Context(), Query{Text: "abcdefghijklmnopqrstuvwxyz0123"}); err != nil || len(hits) != 0 {
		t.Errorf("search for the key found %v (%v)", hits, err)
	}
}

// TestOutcomes: the outcomes of tool uses survive storage, read in chunks
// smaller than the distance between a call and its result, and come back
// on the tools from Messages as a whole read of the file marks them.
func TestOutcomes(t *testing.T) {
	for _, f := range publishedFiles(t) {
		t.Run(filepath.Base(f.Path), func(t *testing.T) {
			s, _ := testStore(t, WithChunkSize(1<<10), WithConfig(Config{MinUserMessages: 1}))
			ingest(t, s, []File{f}, Options{End: true})
			data, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			var st transcript.State
			c := transcript.Parse(f.Source, data, 0, &st, true)
			transcript.Mark(c.Messages, c.Outcomes)
			want := map[string]transcript.Outcome{}
			for _, m := range c.Messages {
				for _, tl := range m.Tools {
					want[tl.ID] = tl.Outcome
				}
			}
			list, err := s.Conversations(t.Context(), "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]transcript.Outcome{}
			for _, cv := range list {
				msgs, err := s.Messages(t.Context(), cv.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range msgs {
					for _, tl := range m.Tools {
						got[tl.ID] = tl.Outcome
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stored tools have outcomes %v, the file %v", got, want)
			}
		})
	}
}

// TestOldState: a state written before outcomes were kept (schema 1, tools
// without ids) opens, reads its conversations as they were, and keeps
// ingesting.
func TestOldState(t *testing.T) {
	s, root := testStore(t)
	at := time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC)
	f := writeFile(t, root, "p/s1.jsonl", line("s1", "user", "run the tests", at))
	ingest(t, s, []File{f}, Options{})
	for _, q := range []string{
		`DROP TABLE outcomes`,
		`UPDATE messages SET tools = '[{"name":"Bash","kind":"command","target":"make"}]'`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err := Open(t.Context(), root, WithClock(func() time.Time { return testNow }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("schema version %d (%v), want %d", v, err, schemaVersion)
	}
	more := `{"type":"assistant","sessionId":"s1","cwd":"/src/app","timestamp":"2026-01-28T09:01:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}` + "\n" +
		`{"type":"user","sessionId":"s1","cwd":"/src/app","timestamp":"2026-01-28T09:01:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 2"}]}}` + "\n"
	out, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.WriteString(more); err != nil {
		t.Fatal(err)
	}
	out.Close()
	ingest(t, s, []File{f}, Options{})
	list, err := s.Conversations(t.Context(), "")
	if err != nil || len(list) != 1 {
		t.Fatalf("conversations %+v (%v), want one", list, err)
	}
	msgs, err := s.Messages(t.Context(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []transcript.Tool{
		{Name: "Bash", Kind: transcript.Command, Target: "make"},
		{ID: "t1", Name: "Bash", Kind: transcript.Command, Target: "make", Outcome: transcript.Failed},
	}
	if len(msgs) != 2 || !reflect.DeepEqual(msgs[0].Tools, want[:1]) || !reflect.DeepEqual(msgs[1].Tools, want[1:]) {
		t.Errorf("messages %+v, want the old one without an id and the new one failed", msgs)
	}
}

// TestOpenTogether opens the state of new vaults from several processes
// at once, as a hook and ingest --watch do on a new vault: each open
// succeeds, rather than one failing with "database is locked" while
// another switches the new file to WAL. Processes, not goroutines: SQLite
// locks between processes, and within one it shares what it holds.
func TestOpenTogether(t *testing.T) {
	if root := os.Getenv("CTX0_TEST_OPEN_STATE"); root != "" {
		s, err := Open(t.Context(), root)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		return
	}
	for range 25 {
		root := t.TempDir()
		var wg sync.WaitGroup
		outs := make([][]byte, 4)
		errs := make([]error, len(outs))
		for i := range outs {
			wg.Go(func() {
				cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestOpenTogether$")
				cmd.Env = append(os.Environ(), "CTX0_TEST_OPEN_STATE="+root)
				outs[i], errs[i] = cmd.CombinedOutput()
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%v: %s", err, outs[i])
			}
		}
	}
}

// TestGeminiMigration: Gemini CLI moves a legacy session-….json to
// session-….jsonl when the session is resumed; read before and after, the
// session's messages are stored once and only the new turn is new.
func TestGeminiMigration(t *testing.T) {
	s, _ := testStore(t)
	chats := filepath.Join(t.TempDir(), ".gemini", "tmp", "0e5b", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	legacy := "{\n  \"sessionId\": \"s1\",\n  \"projectHash\": \"0e5b\",\n  \"messages\": [\n" +
		"    {\"id\": \"u1\", \"timestamp\": \"2026-04-30T10:00:00.000Z\", \"type\": \"user\", \"content\": \"Fix the parser.\"},\n" +
		"    {\"id\": \"g1\", \"timestamp\": \"2026-04-30T10:00:05.000Z\", \"type\": \"gemini\", \"content\": \"Fixed.\"}\n  ]\n}\n"
	if err := os.WriteFile(filepath.Join(chats, "session-2026-04-30T10-00-s1.json"), []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := FindFiles(t.Context(), chats)
	if err != nil || len(files) != 1 {
		t.Fatalf("found %v, %v", files, err)
	}
	if rep := ingest(t, s, files, Options{}); rep.Messages != 2 {
		t.Fatalf("legacy file: %+v", rep)
	}
	migrated := `{"sessionId":"s1","projectHash":"0e5b","kind":"main"}
{"id":"u1","timestamp":"2026-04-30T10:00:00.000Z","type":"user","content":"Fix the parser."}
{"id":"g1","timestamp":"2026-04-30T10:00:05.000Z","type":"gemini","content":"Fixed."}
{"$set":{"sessionId":"s1"}}
{"id":"u2","timestamp":"2026-04-30T10:01:00.000Z","type":"user","content":"And add a test."}
`
	if err := os.WriteFile(filepath.Join(chats, "session-2026-04-30T10-00-s1.jsonl"), []byte(migrated), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err = FindFiles(t.Context(), chats)
	if err != nil || len(files) != 1 || filepath.Ext(files[0].Path) != ".jsonl" {
		t.Fatalf("after the move, found %v, %v", files, err)
	}
	ingest(t, s, files, Options{})
	if n := countRows(t, s.db, "messages"); n != 3 {
		t.Errorf("%d messages stored, want 3: the two of the legacy file once, and the new one", n)
	}
}

// The vault's config is read through the vault's one way into its files:
// one pushed as a link to a file outside the vault is refused, not read.
func TestOpenRefusesALinkedConfig(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "private.yaml")
	if err := os.WriteFile(outside, []byte("ingest:\n  gap_minutes: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".ctx0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".ctx0", "config.yaml")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), root)
	if err == nil {
		s.Close()
		t.Fatal("Open read a config that is a link out of the vault")
	}
	if !strings.Contains(err.Error(), ".ctx0/config.yaml") || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Open: %v; want the linked config named", err)
	}
}

// TestWorkFolder: a session that records no folder works where the files
// it read and wrote all sit; the agent's own files, failed and refused
// uses, relative paths and folders that are no project do not count.
func TestWorkFolder(t *testing.T) {
	tool := func(kind transcript.ToolKind, target string, o transcript.Outcome) transcript.Tool {
		return transcript.Tool{Name: "t", Kind: kind, Target: target, Outcome: o}
	}
	r := func(p string) transcript.Tool { return tool(transcript.Read, p, "") }
	w := func(p string) transcript.Tool { return tool(transcript.Write, p, "") }
	for _, tt := range []struct {
		name  string
		tools []transcript.Tool
		want  string
	}{
		{"one folder", []transcript.Tool{w("/Users/y/dev/pomodoro/index.html"), w("/Users/y/dev/pomodoro/style.css")}, "/Users/y/dev/pomodoro"},
		{"nested folders", []transcript.Tool{r("/home/m/app/src/a.go"), w("/home/m/app/test/b.go"), r("/home/m/app/go.mod")}, "/home/m/app"},
		{"the agent's own files", []transcript.Tool{r("/Users/d/.cursor/skills/babysit/SKILL.md"), w("/Users/d/dev/luke/scripts/check.sh"), r("/Users/d/dev/luke/AGENTS.md")}, "/Users/d/dev/luke"},
		{"a failed read elsewhere", []transcript.Tool{tool(transcript.Read, "/Users/d/CLAUDE.md", transcript.Failed), w("/Users/d/dev/luke/a.md")}, "/Users/d/dev/luke"},
		{"a home is no project", []transcript.Tool{r("/Users/d/notes.txt"), w("/Users/d/dev/luke/a.md")}, ""},
		{"a top folder is no project", []transcript.Tool{w("/tmp/a.txt"), w("/tmp/b.txt")}, ""},
		{"apart", []transcript.Tool{w("/srv/one/a.txt"), w("/opt/two/b.txt")}, ""},
		{"relative paths name no folder", []transcript.Tool{w("src/a.go"), w("src/b.go")}, ""},
		{"commands and searches are not files", []transcript.Tool{tool(transcript.Command, "/usr/bin/make", ""), tool(transcript.Search, "/srv/app", "")}, ""},
		{"windows", []transcript.Tool{w(`C:\Users\y\dev\app\main.go`), r(`C:\Users\y\dev\app\lib\x.go`)}, "C:/Users/y/dev/app"},
		{"nothing", nil, ""},
	} {
		if got := WorkFolder(tt.tools); got != tt.want {
			t.Errorf("%s: WorkFolder = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestGeminiProjectFromWork: the published Gemini CLI session records no
// folder; every file it wrote is under one, which is its project.
func TestGeminiProjectFromWork(t *testing.T) {
	s, _ := testStore(t)
	fs, err := FindFiles(t.Context(), filepath.Join("..", "transcript", "testdata", "gemini"))
	if err != nil {
		t.Fatal(err)
	}
	ingest(t, s, fs, Options{End: true})
	convs, err := s.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 {
		t.Fatalf("%d conversations, want 1", len(convs))
	}
	if c := convs[0]; c.CWD != "" || c.Project != "/Users/yoavfarhi/dev/pomodoro/gemini" {
		t.Errorf("cwd %q, project %q; want no cwd and project /Users/yoavfarhi/dev/pomodoro/gemini", c.CWD, c.Project)
	}
}
