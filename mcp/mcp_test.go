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
		return &fixture{v: f.v, ix: f.ix, s: New(Options{Vault: f.v, Index: f.ix, Now: f.clock.now, RememberRate: perVault}), clock: f.clock}
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
	other := &fixture{v: g.v, ix: g.ix, s: New(Options{Vault: g.v, Index: g.ix, Now: g.clock.now, WriteRate: Rate{N: 2, Per: time.Minute}}), clock: g.clock}
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

	// create: a file at the top, with an extension of its own.
	out := mem(map[string]any{"command": "create", "path": "/memories/user_preferences.txt", "file_text": "# Preferences\nlikes tea\nlikes tea\nwrites Go\n"})
	if !strings.HasPrefix(out, "File created successfully at: /memories/user_preferences.txt") {
		t.Errorf("create: %s", out)
	}
	data, err := os.ReadFile(filepath.Join(root, "user-preferences.txt.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"title: Preferences", "type: note", "source: agent", "created: ", "\n# Preferences\nlikes tea\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("created file lacks %q:\n%s", want, data)
		}
	}
	// In a folder: the folder's type.
	mem(map[string]any{"command": "create", "path": "/memories/contacts/bob.md", "file_text": "Bob runs ops."})
	if d, err := f.v.Get(t.Context(), "contacts/bob"); err != nil || d.Entry.Type() != "contact" {
		t.Errorf("contacts/bob: %v, %v", d, err)
	}
	if !slices.ContainsFunc(strings.Split(mem(map[string]any{"command": "view", "path": "/memories"}), "\n"), func(l string) bool {
		return strings.HasSuffix(l, "\t/memories/user-preferences.txt")
	}) {
		t.Error("view does not list the new file by the name it was given")
	}

	view = mem(map[string]any{"command": "view", "path": "/memories/user_preferences.txt"})
	want := "Here's the content of /memories/user_preferences.txt with line numbers:\n     1\t# Preferences\n     2\tlikes tea\n     3\tlikes tea\n     4\twrites Go"
	if view != want {
		t.Errorf("view:\ngot  %q\nwant %q", view, want)
	}
	if got := mem(map[string]any{"command": "view", "path": "/memories/user_preferences.txt", "view_range": []int{2, -1}}); !strings.HasSuffix(got, "     2\tlikes tea\n     3\tlikes tea\n     4\twrites Go") || strings.Contains(got, "Preferences\n") {
		t.Errorf("view_range: %q", got)
	}
	fails(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/user_preferences.txt", "view_range": []int{9, 10}}, "view_range")

	// str_replace: zero matches, two matches, one.
	fails(t, cs, "memory", map[string]any{"command": "str_replace", "path": "/memories/user_preferences.txt", "old_str": "likes coffee", "new_str": "x"},
		"No replacement was performed, old_str `likes coffee` did not appear verbatim in /memories/user_preferences.txt.")
	fails(t, cs, "memory", map[string]any{"command": "str_replace", "path": "/memories/user_preferences.txt", "old_str": "likes tea", "new_str": "x"},
		"Multiple occurrences of old_str `likes tea` in lines: 2, 3. Please ensure it is unique")
	out = mem(map[string]any{"command": "str_replace", "path": "/memories/user_preferences.txt", "old_str": "writes Go", "new_str": "writes Go and Rust"})
	if !strings.Contains(out, "has been edited") || !strings.Contains(out, "     4\twrites Go and Rust") {
		t.Errorf("str_replace: %s", out)
	}
	// insert at the top and at the end.
	mem(map[string]any{"command": "insert", "path": "/memories/user_preferences.txt", "insert_line": 0, "insert_text": "(kept by the agent)\n"})
	mem(map[string]any{"command": "insert", "path": "/memories/user_preferences.txt", "insert_line": 5, "insert_text": "last line"})
	fails(t, cs, "memory", map[string]any{"command": "insert", "path": "/memories/user_preferences.txt", "insert_line": 99, "insert_text": "x"}, "It should be within the range [0, 6]")
	d, err := f.v.Get(t.Context(), "user-preferences.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Entry.Body(), "(kept by the agent)\n# Preferences\nlikes tea\nlikes tea\nwrites Go and Rust\nlast line\n"; got != want {
		t.Errorf("body:\ngot  %q\nwant %q", got, want)
	}
	if d.Entry.Title() != "Preferences" {
		t.Errorf("the frontmatter was not kept: %s", d.Entry.Bytes())
	}
	// The index follows the writes.
	if found := ok(t, cs, "search", map[string]any{"query": "rust"}); !strings.Contains(found, "user-preferences.txt") {
		t.Errorf("search after edits: %s", found)
	}

	// create over an existing file overwrites its body.
	mem(map[string]any{"command": "create", "path": "/memories/contacts/bob.md", "file_text": "Bob runs ops and on-call."})
	if d, _ := f.v.Get(t.Context(), "contacts/bob"); d.Entry.Body() != "Bob runs ops and on-call.\n" || d.Entry.Type() != "contact" {
		t.Errorf("overwrite: %s", d.Entry.Bytes())
	}

	// rename a file, then a folder.
	out = mem(map[string]any{"command": "rename", "old_path": "/memories/contacts/bob.md", "new_path": "/memories/contacts/robert.md"})
	if !strings.Contains(out, "Successfully renamed") {
		t.Errorf("rename: %s", out)
	}
	fails(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/contacts/bob.md"}, "does not exist")
	fails(t, cs, "memory", map[string]any{"command": "rename", "old_path": "/memories/contacts/robert.md", "new_path": "/memories/me.md"}, "already exists")
	mem(map[string]any{"command": "rename", "old_path": "/memories/contacts", "new_path": "/memories/people"})
	if _, err := f.v.Read(t.Context(), "people/robert"); err != nil {
		t.Errorf("folder rename: %v", err)
	}

	// delete: archived, out of the way.
	out = mem(map[string]any{"command": "delete", "path": "/memories/people/robert.md"})
	if !strings.Contains(out, "Successfully deleted /memories/people/robert.md") || !strings.Contains(out, "/memories/archive/people/robert.md") {
		t.Errorf("delete: %s", out)
	}
	fails(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/people/robert.md"}, "does not exist")
	fails(t, cs, "memory", map[string]any{"command": "delete", "path": "/memories"}, "Cannot delete the /memories directory itself")

	// Each write was one commit, and git finds the repository sound.
	if got := commits(t, root) - before; got != 9 {
		t.Errorf("%d commits for 9 writes:\n%s", got, git(t, root, "log", "--oneline"))
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
		{map[string]any{"command": "view", "path": "/etc/passwd"}, "not under /memories"},
		{map[string]any{"command": "view", "path": "/memories/.git/config"}, "hidden"},
		{map[string]any{"command": "create", "path": "/memories/.ctx0/config.yaml", "file_text": "x"}, "hidden"},
		{map[string]any{"command": "create", "path": "/memories/knowledge/../../x.md", "file_text": "x"}, "escape /memories"},
		{map[string]any{"command": "create", "path": `/memories/..\..\x.md`, "file_text": "x"}, "escape /memories"},
		{map[string]any{"command": "view", "path": "/memories/knowledge/link/secret.md"}, "symbolic link"},
		{map[string]any{"command": "create", "path": "/memories/knowledge/link/new.md", "file_text": "x"}, "symbolic link"},
		{map[string]any{"command": "view", "path": "/memories/knowledge/link"}, "symbolic link"},
		{map[string]any{"command": "view", "path": "/memories/knowledge/inner.md"}, "symbolic link"},
		{map[string]any{"command": "str_replace", "path": "/memories/knowledge/inner.md", "old_str": "a", "new_str": "b"}, "symbolic link"},
		{map[string]any{"command": "create", "path": "/memories/knowledge/people/x.md", "file_text": "x"}, "symbolic link"},
		{map[string]any{"command": "rename", "old_path": "/memories/me.md", "new_path": "/memories/knowledge/people/me.md"}, "symbolic link"},
		{map[string]any{"command": "rename", "old_path": "/memories/me.md", "new_path": "/memories/../me.md"}, "escape /memories"},
		{map[string]any{"command": "delete", "path": "/memories/../../tmp"}, "escape /memories"},
		{map[string]any{"command": "create", "path": "/memories/CONTEXT.md", "file_text": "x"}, "read-only"},
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
	g := &fixture{v: f.v, ix: f.ix, s: New(Options{Vault: f.v, Index: f.ix, Now: f.clock.now,
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

// A file added by hand under a name that is not normalized can be read,
// and is not written through a name that could resolve to another entry.
func TestMemoryToolHandNamedFile(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	if err := os.WriteFile(filepath.Join(f.v.Root(), "knowledge", "My Notes.md"), []byte("---\ntitle: Mine\n---\nby hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ok(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/knowledge/My Notes.md"}); !strings.HasSuffix(got, "     1\tby hand") {
		t.Errorf("view: %q", got)
	}
	fails(t, cs, "memory", map[string]any{"command": "str_replace", "path": "/memories/knowledge/My Notes.md", "old_str": "by hand", "new_str": "x"}, "git mv")
	fails(t, cs, "memory", map[string]any{"command": "delete", "path": "/memories/knowledge/My Notes.md"}, "git mv")
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
	g := &fixture{v: v, ix: f.ix, s: New(Options{Vault: v, Index: f.ix, Now: f.clock.now}), clock: f.clock}
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
