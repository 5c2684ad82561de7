package mcp

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/vault"
)

func TestToolsAndResourcesListed(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 80 || !strings.Contains(strings.ToLower(tool.Description), "use") {
			t.Errorf("%s: the description must tell the agent when to use it: %q", tool.Name, tool.Description)
		}
		if tool.InputSchema == nil {
			t.Errorf("%s: no input schema", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"archive_now", "context", "memory", "query", "remember", "retrieve", "search", "show"}
	if !slices.Equal(names, want) {
		t.Errorf("tools: got %v, want %v", names, want)
	}
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "Retrieve before assuming") {
		t.Errorf("instructions: %q", ins)
	}
	tpls, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tpls.ResourceTemplates) != 1 || tpls.ResourceTemplates[0].URITemplate != "ctx0://entry/{+name}" {
		t.Errorf("resource templates: %v, %v", tpls, err)
	}
}

// An agent that knows nothing of ctx0: remember, search, show, retrieve,
// read the entry as a resource.
func TestRememberSearchShowRetrieve(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	out := ok(t, cs, "remember", map[string]any{"content": "Sarah Chen prefers email over phone calls for anything about the seed round.", "type": "preference", "tags": []string{"contact"}})
	if !strings.HasPrefix(out, "Saved as preferences/") {
		t.Fatalf("remember: %s", out)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(out, "Saved as "), ".")
	again := ok(t, cs, "remember", map[string]any{"content": "Sarah Chen prefers email over phone calls for anything about the seed round."})
	if !strings.Contains(again, "Already in memory as "+name) {
		t.Errorf("duplicate: %s", again)
	}
	// Without a type, it is told from the content.
	if out := ok(t, cs, "remember", map[string]any{"content": "We decided to keep the billing data in Postgres."}); out != "Saved as decisions/keep-the-billing-data-in-postgres." {
		t.Errorf("remember a decision without a type: %s", out)
	}
	found := ok(t, cs, "search", map[string]any{"query": "sarah email"})
	if !strings.Contains(found, name) || !strings.Contains(found, "«") {
		t.Errorf("search: %s", found)
	}
	// Agents ask questions: the tool reads them as the CLI does.
	for _, q := range []string{"how does Sarah like to be contacted", "what does Sarah prefer for the seed round?"} {
		if found := ok(t, cs, "search", map[string]any{"query": q}); !strings.Contains(found, name) {
			t.Errorf("search %q: %s", q, found)
		}
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "sarah"}})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := res.StructuredContent.(map[string]any)["results"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["name"] != name {
		t.Errorf("search rows: %v", res.StructuredContent)
	}
	shown := ok(t, cs, "show", map[string]any{"name": name})
	if !strings.Contains(shown, "type: preference") || !strings.Contains(shown, "source: agent") || !strings.Contains(shown, "prefers email") {
		t.Errorf("show: %s", shown)
	}
	bundle := ok(t, cs, "retrieve", map[string]any{"query": "how does Sarah like to be contacted?", "budget": 300})
	if !strings.Contains(bundle, name) {
		t.Errorf("retrieve: %s", bundle)
	}
	rr, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "ctx0://entry/" + name})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "prefers email") {
		t.Errorf("resource: %v, %v", rr, err)
	}
	if _, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "ctx0://entry/nobody"}); err == nil {
		t.Error("resource of no entry: want an error")
	}
	ctxBlock := ok(t, cs, "context", nil)
	if !strings.Contains(ctxBlock, "<memory") {
		t.Errorf("context: %s", ctxBlock)
	}
	// An agent with only MCP is told of the tools, not of commands to run.
	if !strings.Contains(ctxBlock, "call the retrieve tool") || strings.Contains(ctxBlock, "ctx0 retrieve") || strings.Contains(ctxBlock, "ctx0 supersede") {
		t.Errorf("context over MCP names commands, not tools: %s", ctxBlock)
	}
	fails(t, cs, "show", map[string]any{"name": "nobody-at-all"}, "search")
	listed := ok(t, cs, "query", nil)
	if !strings.Contains(listed, "no learned queries") {
		t.Errorf("query list: %s", listed)
	}
	fails(t, cs, "query", map[string]any{"name": "nope"}, "no such learned query")
	fails(t, cs, "archive_now", nil, "cannot read agents' sessions")
	git(t, f.v.Root(), "fsck", "--strict")
}

func TestRememberLimits(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.RememberClientRate = Rate{N: 5, Per: time.Minute} })
	cs := f.connect(t)
	long := strings.Repeat("word ", 401) // 2,005 characters
	fails(t, cs, "remember", map[string]any{"content": long}, "be more concise")
	fails(t, cs, "remember", map[string]any{"content": "  "}, "empty")
	fails(t, cs, "remember", map[string]any{"content": "A fact.", "type": "gossip"}, "unknown type")
	for i := range 5 { // refused calls do not count
		ok(t, cs, "remember", map[string]any{"content": fmt.Sprintf("Fact number %d about the deploy pipeline.", i)})
	}
	fails(t, cs, "remember", map[string]any{"content": "One fact too many."}, "at most 5 times a minute per client session (remember.per_client_per_minute in .ctx0/config.yaml); try again in 1m0s")
	f.clock.add(61 * time.Second)
	ok(t, cs, "remember", map[string]any{"content": "One fact too many."})
}

// The limit holds per vault: new sessions, a second server on the same
// vault and a restarted server are counted with the rest, so a client
// cannot get round it by reconnecting.
func TestRememberLimitPerVault(t *testing.T) {
	perVault := Rate{N: 5, Per: time.Minute}
	f := newFixture(t, func(o *Options) { o.RememberRate = perVault })
	second := func() *fixture { // another server process on the same vault
		return &fixture{v: f.v, ix: f.ix, s: New(Options{Memory: extractor.Memory{Vault: f.v, Index: f.ix, Now: f.clock.now}, RememberRate: perVault}), clock: f.clock}
	}
	before := commits(t, f.v.Root())
	sessions := []*sdk.ClientSession{f.connect(t), f.connect(t), second().connect(t), f.connect(t), second().connect(t)}
	for i, cs := range sessions {
		ok(t, cs, "remember", map[string]any{"content": fmt.Sprintf("Fact %d about the release train.", i)})
	}
	for i, cs := range []*sdk.ClientSession{f.connect(t), second().connect(t), sessions[0]} {
		fails(t, cs, "remember", map[string]any{"content": fmt.Sprintf("Fact %d over the limit.", i)}, "in this vault, by all clients together (remember.per_vault_per_minute in .ctx0/config.yaml)")
	}
	if n := commits(t, f.v.Root()) - before; n != 5 {
		t.Errorf("%d commits, want 5", n)
	}
	// The memory tool's writes are counted per vault the same way.
	g := newFixture(t, func(o *Options) { o.WriteRate = Rate{N: 2, Per: time.Minute} })
	other := &fixture{v: g.v, ix: g.ix, s: New(Options{Memory: extractor.Memory{Vault: g.v, Index: g.ix, Now: g.clock.now}, WriteRate: Rate{N: 2, Per: time.Minute}}), clock: g.clock}
	ok(t, g.connect(t), "memory", map[string]any{"command": "create", "path": "/memories/knowledge/a.md", "file_text": "a"})
	ok(t, other.connect(t), "memory", map[string]any{"command": "create", "path": "/memories/knowledge/b.md", "file_text": "b"})
	fails(t, g.connect(t), "memory", map[string]any{"command": "create", "path": "/memories/knowledge/c.md", "file_text": "c"}, "rate limited")
	g.clock.add(time.Minute)
	ok(t, other.connect(t), "memory", map[string]any{"command": "create", "path": "/memories/knowledge/c.md", "file_text": "c"})
}

func TestBadArgumentsAreToolErrors(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", nil, "query"},
		{"search", map[string]any{"query": "x", "limit": "many"}, "limit"},
		{"search", map[string]any{"query": "x", "bogus": 1}, "bogus"},
		{"search", map[string]any{"query": "x", "since": "someday"}, "since"},
		{"retrieve", map[string]any{"query": "x", "until": "someday"}, "until"},
		{"search", map[string]any{"query": "x", "scope": "../etc"}, "scope"},
		{"retrieve", map[string]any{"query": "x", "budget": 10}, "too small"},
		{"remember", map[string]any{"content": []any{1, 2}}, "content"},
		{"show", map[string]any{"name": ""}, "empty"},
		{"show", map[string]any{"name": "../../etc/passwd"}, "passwd"},
		{"memory", map[string]any{"command": "explode", "path": "/memories"}, "command"},
		{"memory", map[string]any{"command": "view"}, "path"},
		{"memory", map[string]any{"command": "create", "path": "/memories/x.md"}, "file_text"},
		{"memory", map[string]any{"command": "insert", "path": "/memories/me.md", "insert_text": "x"}, "insert_line"},
		{"context", map[string]any{"budget": 5}, "too small"},
	} {
		fails(t, cs, c.tool, c.args, c.want)
	}
	// The server still answers.
	ok(t, cs, "search", map[string]any{"query": "anything"})
}

// Models guess argument names and shapes; the common guesses work.
func TestArgumentAliases(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	out := ok(t, cs, "remember", map[string]any{"text": "The staging deploy key lives in 1Password under Infra.", "tags": "infra, deploy", "pinned": "true"})
	name := strings.TrimSuffix(strings.TrimPrefix(out, "Saved (pinned) as "), ".")
	shown := ok(t, cs, "show", map[string]any{"entry": name})
	for _, want := range []string{"pinned: true", "infra", "deploy"} {
		if !strings.Contains(shown, want) {
			t.Errorf("show: %q lacks %q", shown, want)
		}
	}
	found := ok(t, cs, "search", map[string]any{"q": "deploy key", "folder": "knowledge", "limit": "3"})
	if !strings.Contains(found, name) {
		t.Errorf("search with aliases: %s", found)
	}
	bundle := ok(t, cs, "retrieve", map[string]any{"question": "where is the deploy key?", "folder": "knowledge"})
	if !strings.Contains(bundle, name) {
		t.Errorf("retrieve with aliases: %s", bundle)
	}
	ok(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/knowledge/todo.md", "fileText": "one"})
	ok(t, cs, "memory", map[string]any{"command": "insert", "path": "/memories/knowledge/todo.md", "insertLine": "1", "insertText": "two"})
	view := ok(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/knowledge/todo.md"})
	if !strings.HasSuffix(view, "     1\tone\n     2\ttwo") {
		t.Errorf("view: %q", view)
	}
}

func TestMemoryTool(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	root := f.v.Root()
	mem := func(args map[string]any) string { t.Helper(); return ok(t, cs, "memory", args) }
	before := commits(t, root)

	view := mem(map[string]any{"command": "view", "path": "/memories"})
	for _, want := range []string{"/memories/contacts/", "/memories/me.md", "/memories/CONTEXT.md"} {
		if !strings.Contains(view, want) {
			t.Errorf("view /memories lacks %s:\n%s", want, view)
		}
	}
	if strings.Contains(view, ".git") || strings.Contains(view, ".ctx0") {
		t.Errorf("view shows hidden folders:\n%s", view)
	}

	// create: a text file is the agent's text, under its name, byte for byte.
	mem(map[string]any{"command": "create", "path": "/memories/user_preferences.txt", "file_text": "likes tea\n"})
	if data, err := os.ReadFile(filepath.Join(root, "user_preferences.txt")); err != nil || string(data) != "likes tea\n" {
		t.Errorf("user_preferences.txt = %q, %v", data, err)
	}
	// A .md file is an entry: ctx0's frontmatter, the folder's type, the
	// body as written; view and the listing's size are the body's.
	mem(map[string]any{"command": "create", "path": "/memories/contacts/Bob_Smith.md", "file_text": "# Bob\nBob runs ops."})
	data, err := os.ReadFile(filepath.Join(root, "contacts", "Bob_Smith.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"title: Bob\n", "type: contact\n", "source: agent\n", "created: ", "---\n# Bob\nBob runs ops."} {
		if !strings.Contains(string(data), want) {
			t.Errorf("created file lacks %q:\n%s", want, data)
		}
	}
	if !strings.HasSuffix(string(data), "Bob runs ops.") {
		t.Errorf("a line break was added to the body:\n%q", data)
	}
	listing := mem(map[string]any{"command": "view", "path": "/memories/contacts"})
	if !strings.Contains(listing, "\n19B\t/memories/contacts/Bob_Smith.md") {
		t.Errorf("the listing does not give the body's size (19B):\n%s", listing)
	}
	// Edits keep the frontmatter and bump updated; the index follows.
	f.clock.add(time.Hour)
	mem(map[string]any{"command": "str_replace", "path": "/memories/contacts/Bob_Smith.md", "old_str": "ops", "new_str": "ops and Rust services"})
	mem(map[string]any{"command": "insert", "path": "/memories/contacts/Bob_Smith.md", "insert_line": 2, "insert_text": "On call in March."})
	d, err := f.v.Get(t.Context(), "contacts/Bob_Smith")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Entry.Body(), "# Bob\nBob runs ops and Rust services.\nOn call in March."; got != want {
		t.Errorf("body:\ngot  %q\nwant %q", got, want)
	}
	if d.Entry.Title() != "Bob" || d.Entry.Type() != "contact" || !d.Entry.Updated().Equal(f.clock.now()) {
		t.Errorf("the frontmatter was not kept and updated: %s", d.Entry.Bytes())
	}
	if found := ok(t, cs, "search", map[string]any{"query": "rust services"}); !strings.Contains(found, "contacts/Bob_Smith") {
		t.Errorf("search after edits: %s", found)
	}

	// rename a file, then a folder: one commit each.
	mem(map[string]any{"command": "rename", "old_path": "/memories/contacts/Bob_Smith.md", "new_path": "/memories/contacts/robert.md"})
	mem(map[string]any{"command": "rename", "old_path": "/memories/contacts", "new_path": "/memories/people"})
	if _, err := f.v.Read(t.Context(), "people/robert"); err != nil {
		t.Errorf("folder rename: %v", err)
	}
	// delete a folder: gone from the view in one commit, kept in history.
	mem(map[string]any{"command": "delete", "path": "/memories/people"})
	fails(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/people"}, "does not exist")
	if strings.Contains(mem(map[string]any{"command": "view", "path": "/memories"}), "robert") {
		t.Error("the deleted file is still listed")
	}
	if got := git(t, root, "show", "HEAD~1:people/robert.md"); !strings.Contains(got, "On call in March.") {
		t.Errorf("history lost the deleted file: %s", got)
	}

	// Each write was one commit, and git finds the repository sound.
	if got := commits(t, root) - before; got != 7 {
		t.Errorf("%d commits for 7 writes:\n%s", got, git(t, root, "log", "--oneline"))
	}
	git(t, root, "fsck", "--strict")
	if st := git(t, root, "status", "--porcelain"); st != "" {
		t.Errorf("git status after the writes:\n%s", st)
	}
}

func TestMemoryToolRefusesTraversal(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("---\ntitle: s\n---\nsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.v.Root(), "knowledge", "link")); err != nil {
		t.Fatal(err)
	}
	// Links inside the vault are refused too, as every other path refuses
	// them: a file would otherwise be two entries.
	if err := os.Symlink("../me.md", filepath.Join(f.v.Root(), "knowledge", "inner.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../contacts", filepath.Join(f.v.Root(), "knowledge", "people")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "view", "path": "/memories/../etc/passwd"}, "escape /memories"},
		{map[string]any{"command": "view", "path": "/etc/passwd"}, "Path must start with /memories"},
		{map[string]any{"command": "view", "path": "memories/me.md"}, "Path must start with /memories"},
		{map[string]any{"command": "view", "path": "/memories/.git/config"}, "hidden"},
		{map[string]any{"command": "create", "path": "/memories/.ctx0/config.yaml", "file_text": "x"}, "hidden"},
		{map[string]any{"command": "create", "path": "/memories/knowledge/../../x.md", "file_text": "x"}, "escape /memories"},
		{map[string]any{"command": "create", "path": `/memories/..\..\x.md`, "file_text": "x"}, "hidden"},
		{map[string]any{"command": "create", "path": `/memories/a\b.md`, "file_text": "x"}, "not a valid memory path"},
		{map[string]any{"command": "view", "path": "/memories/knowledge/link/secret.md"}, "symbolic link"},
		{map[string]any{"command": "create", "path": "/memories/knowledge/link/new.md", "file_text": "x"}, "symbolic link"},
		{map[string]any{"command": "view", "path": "/memories/knowledge/link"}, "symbolic link"},
		{map[string]any{"command": "view", "path": "/memories/knowledge/inner.md"}, "symbolic link"},
		{map[string]any{"command": "str_replace", "path": "/memories/knowledge/inner.md", "old_str": "a", "new_str": "b"}, "symbolic link"},
		{map[string]any{"command": "create", "path": "/memories/knowledge/people/x.md", "file_text": "x"}, "symbolic link"},
		{map[string]any{"command": "rename", "old_path": "/memories/me.md", "new_path": "/memories/knowledge/people/me.md"}, "symbolic link"},
		{map[string]any{"command": "rename", "old_path": "/memories/me.md", "new_path": "/memories/../me.md"}, "escape /memories"},
		{map[string]any{"command": "delete", "path": "/memories/../../tmp"}, "escape /memories"},
		{map[string]any{"command": "create", "path": "/memories/CONTEXT.md", "file_text": "x"}, "File /memories/CONTEXT.md already exists"},
		{map[string]any{"command": "str_replace", "path": "/memories/CONTEXT.md", "old_str": "a", "new_str": "b"}, "read-only"},
		{map[string]any{"command": "delete", "path": "/memories/CONTEXT.md"}, "read-only"},
	} {
		fails(t, cs, "memory", c.args, c.want)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.md")); err == nil {
		t.Error("a file was written outside the vault")
	}
}

func TestMemoryFileLimit(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MemoryMaxChars = 50 })
	cs := f.connect(t)
	fails(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/big.md", "file_text": strings.Repeat("x", 51)}, "limit is 50")
	ok(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/small.md", "file_text": "short"})
	fails(t, cs, "memory", map[string]any{"command": "str_replace", "path": "/memories/small.md", "old_str": "short", "new_str": strings.Repeat("y", 60)}, "limit is 50")
}

// Two clients write at once, through one server and through two servers on
// the same vault: nothing is lost, and git finds the repository sound.
func TestConcurrentClients(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.RememberRate = Rate{N: 1000, Per: time.Minute}
		o.WriteRate = Rate{N: 1000, Per: time.Minute}
	})
	g := &fixture{v: f.v, ix: f.ix, s: New(Options{Memory: extractor.Memory{Vault: f.v, Index: f.ix, Now: f.clock.now},
		RememberRate: Rate{N: 1000, Per: time.Minute}, WriteRate: Rate{N: 1000, Per: time.Minute}}), clock: f.clock}
	ok(t, f.connect(t), "memory", map[string]any{"command": "create", "path": "/memories/logs/shared.md", "file_text": "start"})
	const each = 10
	clients := []*sdk.ClientSession{f.connect(t), f.connect(t), g.connect(t)}
	var wg sync.WaitGroup
	for c, cs := range clients {
		wg.Go(func() {
			for i := range each {
				ok(t, cs, "remember", map[string]any{"content": fmt.Sprintf("Client %d remembers fact %d.", c, i)})
				ok(t, cs, "memory", map[string]any{"command": "insert", "path": "/memories/logs/shared.md", "insert_line": 1, "insert_text": fmt.Sprintf("client %d line %d", c, i)})
			}
		})
	}
	wg.Wait()
	body := ok(t, clients[0], "memory", map[string]any{"command": "view", "path": "/memories/logs/shared.md"})
	for c := range clients {
		for i := range each {
			if !strings.Contains(body, fmt.Sprintf("client %d line %d\n", c, i)) && !strings.HasSuffix(body, fmt.Sprintf("client %d line %d", c, i)) {
				t.Errorf("lost the insert of client %d, line %d", c, i)
			}
		}
		found := ok(t, clients[0], "search", map[string]any{"query": fmt.Sprintf("\"client %d remembers\"", c), "limit": 50})
		if n := strings.Count(found, "score"); n != each {
			t.Errorf("client %d: %d of %d facts found", c, n, each)
		}
	}
	git(t, f.v.Root(), "fsck", "--strict")
}

// The same server over streamable HTTP, as an HTTP client connects to it.
func TestHTTP(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close) // after the client's Close, which ends its streams
	cs := dial(t, &sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp"})
	out := ok(t, cs, "remember", map[string]any{"content": "The office wifi password rotates every Monday."})
	name := strings.TrimSuffix(strings.TrimPrefix(out, "Saved as "), ".")
	if found := ok(t, cs, "search", map[string]any{"query": "wifi"}); !strings.Contains(found, name) {
		t.Errorf("search over HTTP: %s", found)
	}
	ok(t, cs, "memory", map[string]any{"command": "view", "path": "/memories"})
	fails(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/../x"}, "escape")
}

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		token  string
		ok     bool
	}{
		{"127.0.0.1:8765", false, "", true},
		{"127.0.0.2:8765", false, "", true},
		{"[::1]:8765", false, "", true},
		{"localhost:0", false, "", true},
		{"0.0.0.0:8765", false, "", false},
		{":8765", false, "", false},
		{"192.168.1.2:8765", false, "", false},
		{"example.com:80", false, "", false},
		{"0.0.0.0:8765", true, "", false},
		{"0.0.0.0:8765", true, "s3cret-token", true},
		{"0.0.0.0:8765", false, "s3cret-token", false},
		{"8765", false, "", false},
	} {
		if err := CheckAddr(c.addr, HTTPOptions{AllowRemote: c.remote, Token: c.token}); (err == nil) != c.ok {
			t.Errorf("CheckAddr(%q, remote %v, token %q) = %v", c.addr, c.remote, c.token, err)
		}
	}
}

// A file added by hand under a name that is not normalized is read and
// written under that name, never through another name it normalizes to.
func TestMemoryToolHandNamedFile(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	if err := os.WriteFile(filepath.Join(f.v.Root(), "knowledge", "My Notes.md"), []byte("---\ntitle: Mine\n---\nby hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ok(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/knowledge/My Notes.md"}); !strings.HasSuffix(got, "     1\tby hand\n     2\t") {
		t.Errorf("view: %q", got)
	}
	ok(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/knowledge/my-notes.md", "file_text": "another file"})
	ok(t, cs, "memory", map[string]any{"command": "str_replace", "path": "/memories/knowledge/My Notes.md", "old_str": "by hand", "new_str": "edited"})
	for name, want := range map[string]string{"My Notes.md": "---\ntitle: Mine\n", "my-notes.md": "another file"} {
		data, err := os.ReadFile(filepath.Join(f.v.Root(), "knowledge", name))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s = %q, %v", name, data, err)
		}
	}
	if got := ok(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/knowledge/My Notes.md"}); !strings.HasSuffix(got, "     1\tedited\n     2\t") {
		t.Errorf("view after the edit: %q", got)
	}
	ok(t, cs, "memory", map[string]any{"command": "delete", "path": "/memories/knowledge/My Notes.md"})
	if _, err := os.Stat(filepath.Join(f.v.Root(), "knowledge", "my-notes.md")); err != nil {
		t.Errorf("deleting My Notes.md touched my-notes.md: %v", err)
	}
}

func TestResourcesListEntries(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	out := ok(t, cs, "remember", map[string]any{"content": "Pinned rule: never deploy on Fridays.", "pin": true})
	name := strings.TrimSuffix(strings.TrimPrefix(out, "Saved (pinned) as "), ".")
	res, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range []string{"ctx0://context", "ctx0://entry/" + name, "ctx0://entry/me"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}
	rr, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "ctx0://context"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "never deploy on Fridays") {
		t.Errorf("ctx0://context: %v, %v", rr, err)
	}
}

func TestMemoryPrompt(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	ok(t, cs, "remember", map[string]any{"content": "Always answer in British English.", "pin": true})
	res, err := cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(*sdk.TextContent).Text
	for _, want := range []string{"Retrieve before assuming", "British English"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
}

// TestSearchTimeWords checks that the search tool reads a question's time
// words against the server's now, as the CLI does: "yesterday" keeps the
// entries of that day and is not searched for.
func TestSearchTimeWords(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	set := func(at time.Time) {
		f.clock.mu.Lock()
		f.clock.t = at
		f.clock.mu.Unlock()
	}
	set(time.Date(2026, 1, 10, 10, 0, 0, 0, time.UTC))
	yearly := strings.TrimSuffix(strings.TrimPrefix(ok(t, cs, "remember", map[string]any{"content": "We decided billing runs yearly, invoices in March.", "type": "decision"}), "Saved as "), ".")
	set(time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC))
	monthly := strings.TrimSuffix(strings.TrimPrefix(ok(t, cs, "remember", map[string]any{"content": "We decided billing runs monthly from the first.", "type": "decision"}), "Saved as "), ".")
	set(time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC))
	found := ok(t, cs, "search", map[string]any{"query": "what did we decide yesterday about billing"})
	if !strings.Contains(found, monthly) || strings.Contains(found, yearly) {
		t.Errorf("search: %s; want %s and not %s", found, monthly, yearly)
	}
}

// The remember limits come from the vault's config. Three clients saving as
// they work are never refused while a runaway client is slowed by its own
// limit, told which limit it hit and when to try again; after the window it
// saves again.
func TestRememberLimitSlowsOnlyTheRunaway(t *testing.T) {
	f := newFixture(t)
	root := f.v.Root()
	cfg := "remember:\n  per_client_per_minute: 10\n  per_vault_per_minute: 1000\n"
	if err := os.WriteFile(filepath.Join(root, ".ctx0", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, root, "add", ".ctx0/config.yaml")
	git(t, root, "commit", "-qm", "limits")
	v, err := vault.Open(t.Context(), root, vault.WithClock(f.clock.now))
	if err != nil {
		t.Fatal(err)
	}
	v.SetCatalog(f.ix)
	g := &fixture{v: v, ix: f.ix, s: New(Options{Memory: extractor.Memory{Vault: v, Index: f.ix, Now: f.clock.now}}), clock: f.clock}
	team := []*sdk.ClientSession{g.connect(t), g.connect(t), g.connect(t)}
	runaway := g.connect(t)
	before := commits(t, root)
	saved, refused := 0, 0
	for round := range 6 {
		for c, cs := range team {
			ok(t, cs, "remember", map[string]any{"content": fmt.Sprintf("Client %d learned fact %d about the build.", c, round)})
		}
		for i := range 4 {
			args := map[string]any{"content": fmt.Sprintf("Runaway note %d-%d, saved again and again.", round, i)}
			if round*4+i < 10 {
				ok(t, runaway, "remember", args)
				saved++
				continue
			}
			fails(t, runaway, "remember", args, "at most 10 times a minute per client session (remember.per_client_per_minute in .ctx0/config.yaml); try again in")
			refused++
		}
		g.clock.add(time.Second)
	}
	if n := commits(t, root) - before; n != 18+saved {
		t.Errorf("%d commits, want %d (18 by the team, %d by the runaway)", n, 18+saved, saved)
	}
	g.clock.add(time.Minute)
	ok(t, runaway, "remember", map[string]any{"content": "Runaway note after a minute's rest."})
	git(t, root, "fsck", "--strict")
}
