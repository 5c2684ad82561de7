package ui

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// page is a signed-in browser on a test vault's page.
type page struct {
	t      *testing.T
	v      *vault.Vault
	srv    *Server
	base   string // http://127.0.0.1:PORT
	port   int
	client *http.Client
	token  string // the form token, read from a page
}

// testVault is a vault with a few entries and its index as catalog.
func testVault(t *testing.T) (*vault.Vault, *index.Index) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("these tests check the vault with the git binary")
	}
	ctx := t.Context()
	v, _, err := vault.Init(ctx, filepath.Join(t.TempDir(), "vault"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	v.SetCatalog(ix)
	body := func(s string) *string { return &s }
	for _, o := range []vault.AddOptions{
		{Name: "contacts/sarah-chen", Meta: vault.Meta{Type: "contact", Title: "Sarah Chen", Aliases: []string{"Sarah"}, Tags: []string{"investor"}},
			Body: body("Partner at Example Ventures; see [[projects/bot0]].\n\n<script>alert(1)</script>\n")},
		{Name: "projects/bot0", Meta: vault.Meta{Type: "project", Title: "bot0", Pinned: true},
			Body: body("A coding agent. People: [[Sarah Chen]].\n")},
	} {
		if _, _, err := v.Add(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	return v, ix
}

// open serves the page for v and signs a browser in.
func open(t *testing.T, v *vault.Vault, ix *index.Index) *page {
	t.Helper()
	srv, err := New(Services{Vault: v, Index: ix,
		Memory: func(context.Context) (extractor.Memory, extractor.Config, error) {
			cfg, err := extractor.ParseConfig(v.Settings())
			return extractor.Memory{Vault: v, Index: ix}, cfg, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	p := &page{t: t, v: v, srv: srv, base: ts.URL, port: ln.Addr().(*net.TCPAddr).Port, client: &http.Client{Jar: jar}}
	// The sign-in link sets the session cookie, for this page alone and
	// out of scripts' reach, and sends the browser to an address without
	// the key.
	res, err := (&http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}).Get(srv.SignInURL())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cs := res.Cookies()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" || len(cs) != 1 ||
		!cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Path != "/" || cs[0].Domain != "" {
		t.Fatalf("sign in: %d, Location %q, cookies %+v", res.StatusCode, res.Header.Get("Location"), cs)
	}
	code, body := p.get("/")
	if code != http.StatusOK || !strings.Contains(body, "<h1>Entries</h1>") {
		t.Fatalf("after sign in: %d\n%s", code, body)
	}
	_, body = p.get("/entry?name=sarah")
	m := regexp.MustCompile(`name="token" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no form token in the page")
	}
	p.token = m[1]
	return p
}

// get fetches u (a path or a URL) as the signed-in browser.
func (p *page) get(u string) (int, string) {
	p.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = p.base + u
	}
	res, err := p.client.Get(u)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// post submits a form from the page, with its token and Origin, and
// follows the redirect.
func (p *page) post(path string, form url.Values) (int, string) {
	p.t.Helper()
	form.Set("token", p.token)
	req, _ := http.NewRequest(http.MethodPost, p.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", p.base)
	res, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// git runs the real git binary in the vault.
func git(t *testing.T, v *vault.Vault, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = v.Root()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func checkClean(t *testing.T, v *vault.Vault) {
	t.Helper()
	git(t, v, "fsck", "--strict")
	if st := git(t, v, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
}

func TestBrowseAndEntry(t *testing.T) {
	v, ix := testVault(t)
	p := open(t, v, ix)
	code, body := p.get("/")
	if code != http.StatusOK {
		t.Fatalf("GET /: %d", code)
	}
	for _, want := range []string{`<h2>Pinned</h2>`, `href="/entry?name=contacts%2Fsarah-chen">Sarah Chen</a>`, `href="/?tag=investor"`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET / lacks %s", want)
		}
	}
	// By alias, as ctx0 show resolves it; wikilinks lead to entry pages;
	// raw HTML in a body is not the page's.
	code, body = p.get("/entry?name=Sarah")
	if code != http.StatusOK {
		t.Fatalf("GET /entry: %d\n%s", code, body)
	}
	for _, want := range []string{`<p class="name">contacts/sarah-chen.md</p>`, `<th>aliases</th><td>Sarah</td>`, `add contacts/sarah-chen`, `<a href="/entry?name=projects%2Fbot0">projects/bot0</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("entry page lacks %s\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>alert") {
		t.Error("an entry's raw HTML reached the page")
	}
	// A filter link carries its value once escaped, and leads to the
	// entries it names.
	if _, _, err := v.Set(t.Context(), "sarah", "project", "github.com/me/bot0"); err != nil {
		t.Fatal(err)
	}
	_, body = p.get("/")
	link := regexp.MustCompile(`href="(/\?project=[^"]*)"`).FindStringSubmatch(body)
	if link == nil {
		t.Fatal("no project link")
	}
	if _, body = p.get(strings.ReplaceAll(link[1], "&amp;", "&")); !strings.Contains(body, "Sarah Chen") || strings.Contains(body, ">bot0</a>") {
		t.Errorf("the project link %s does not list the project's entries alone:\n%s", link[1], body)
	}
	if code, _ := p.get("/entry?name=nobody"); code != http.StatusNotFound {
		t.Errorf("unknown entry: %d, want 404", code)
	}
	if code, _ := p.get("/?page=0"); code != http.StatusBadRequest {
		t.Errorf("page 0: %d, want 400", code)
	}
}

func TestBrowsePages(t *testing.T) {
	v, ix := testVault(t)
	ctx := t.Context()
	for i := range pageSize + 5 {
		if _, _, err := v.Add(ctx, vault.AddOptions{Name: "knowledge/fact-" + strconv.Itoa(i), Meta: vault.Meta{Type: "fact"}}); err != nil {
			t.Fatal(err)
		}
	}
	p := open(t, v, ix)
	_, first := p.get("/?type=fact")
	if n := strings.Count(first, `href="/entry?name=knowledge%2Ffact-`); n != pageSize {
		t.Errorf("first page lists %d facts, want %d", n, pageSize)
	}
	if !strings.Contains(first, `href="/?page=2&amp;type=fact" rel="next"`) {
		t.Fatalf("no link to the next page, with the filter:\n%s", first)
	}
	_, second := p.get("/?page=2&type=fact")
	if n := strings.Count(second, `href="/entry?name=knowledge%2Ffact-`); n != 5 {
		t.Errorf("second page lists %d facts, want 5", n)
	}
	if strings.Contains(second, `rel="next"`) || strings.Contains(second, "<h2>Pinned</h2>") {
		t.Error("the last page links further, or repeats the pinned entries")
	}
}

func TestEditsGoThroughTheWritePath(t *testing.T) {
	v, ix := testVault(t)
	p := open(t, v, ix)
	steps := []struct {
		path string
		form url.Values
		want string // in the page after
	}{
		{"/entry/set", url.Values{"name": {"contacts/sarah-chen"}, "field": {"pinned"}, "value": {"true"}}, "Set pinned in commit"},
		{"/entry/write", url.Values{"name": {"sarah"}, "body": {"Now at Other Ventures.\r\nkey: AKIAIOSFODNN7EXAMPLE\r\n"}}, "Secrets were redacted"},
		{"/entry/supersede", url.Values{"name": {"projects/bot0"}, "text": {"bot0 is a coding agent with memory."}}, "Superseded by this entry"},
		{"/entry/archive", url.Values{"name": {"projects/bot0"}}, "Archived"},
	}
	for _, s := range steps {
		code, body := p.post(s.path, s.form)
		if code != http.StatusOK || !strings.Contains(body, s.want) {
			t.Fatalf("POST %s: %d, want a page saying %q:\n%s", s.path, code, s.want, body)
		}
		checkClean(t, v)
	}
	sarah, err := os.ReadFile(filepath.Join(v.Root(), "contacts", "sarah-chen.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sarah), "pinned: true") || strings.Contains(string(sarah), "AKIAIOSFODNN7EXAMPLE") || strings.Contains(string(sarah), "\r") {
		t.Errorf("sarah-chen.md after the edits:\n%s", sarah)
	}
	_, body := p.get("/entry?name=archive/projects/bot0")
	if !strings.Contains(body, `class="state archived"`) || !strings.Contains(body, `class="state superseded"`) {
		t.Errorf("the archived, superseded entry is not shown as such:\n%s", body)
	}
	// The same checks as the CLI: a bad name is refused, nothing written.
	head := git(t, v, "rev-parse", "HEAD")
	if code, _ := p.post("/entry/set", url.Values{"name": {"sarah"}, "field": {"type"}, "value": {"nonsense"}}); code != http.StatusBadRequest && code != http.StatusInternalServerError {
		t.Errorf("a bad type: %d", code)
	}
	if git(t, v, "rev-parse", "HEAD") != head {
		t.Error("a refused edit moved the branch")
	}
}

func TestReviewUndoAndConflicts(t *testing.T) {
	v, ix := testVault(t)
	ctx := t.Context()
	_, c, err := v.Set(ctx, "projects/bot0", "title", "bot0 by the run")
	if err != nil {
		t.Fatal(err)
	}
	p := open(t, v, ix)
	_, body := p.get("/review")
	if !strings.Contains(body, `href="/commit?hash=`+c.Hash+`"`) {
		t.Fatalf("the timeline lacks the change:\n%s", body)
	}
	_, body = p.get("/commit?hash=" + c.Hash)
	if !strings.Contains(body, `<span class="add">&#43;title: bot0 by the run</span>`) {
		t.Errorf("the change's diff is missing:\n%s", body)
	}
	// A newer edit of the same field: undoing the change keeps it and
	// keeps the disagreement aside as a conflict.
	if _, _, err := v.Set(ctx, "projects/bot0", "title", "bot0 by hand"); err != nil {
		t.Fatal(err)
	}
	code, body := p.post("/undo", url.Values{"commit": {c.Hash}})
	if code != http.StatusOK || !strings.Contains(body, "1 conflict(s) kept aside") {
		t.Fatalf("undo: %d\n%s", code, body)
	}
	checkClean(t, v)
	if got := git(t, v, "log", "-1", "--format=%s"); !strings.HasPrefix(got, "revert commit "+c.Hash[:10]) {
		t.Errorf("last commit %q, want the revert", got)
	}
	_, body = p.get("/conflicts")
	m := regexp.MustCompile(`id="conflict-([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil || !strings.Contains(body, "bot0 by hand") {
		t.Fatalf("the conflict is not listed:\n%s", body)
	}
	code, body = p.post("/conflicts/resolve", url.Values{"id": {m[1]}})
	if code != http.StatusOK || !strings.Contains(body, "Resolved 1 conflict(s).") || !strings.Contains(body, `id="no-conflicts"`) {
		t.Fatalf("resolve: %d\n%s", code, body)
	}
	checkClean(t, v)
	// Undone: a second undo has nothing to do.
	if code, _ := p.post("/undo", url.Values{"commit": {c.Hash}, "path": {"contacts/sarah-chen.md"}}); code != http.StatusConflict {
		t.Errorf("undo of a file the change did not touch: %d, want 409", code)
	}
}

func TestAskAndHealth(t *testing.T) {
	v, ix := testVault(t)
	p := open(t, v, ix)
	code, body := p.get("/ask?q=" + url.QueryEscape("who is Sarah?"))
	if code != http.StatusOK {
		t.Fatalf("ask: %d\n%s", code, body)
	}
	for _, want := range []string{`href="/entry?name=contacts%2Fsarah-chen">Sarah Chen</a>`, `What an agent gets`, `why: `, `&lt;memory&gt;`, `tokens`} {
		if !strings.Contains(body, want) {
			t.Errorf("ask page lacks %s", want)
		}
	}
	code, body = p.get("/health")
	if code != http.StatusOK || !strings.Contains(body, ` · project 1</td>`) || !strings.Contains(body, `id="doctor"`) {
		t.Errorf("health: %d\n%s", code, body)
	}
	// A broken link is a problem the doctor names.
	if _, _, err := v.Write(t.Context(), "sarah", "See [[nowhere]].\n"); err != nil {
		t.Fatal(err)
	}
	code, body = p.get("/health?doctor=1")
	if code != http.StatusOK || !strings.Contains(body, `id="problems"`) || !strings.Contains(body, "contacts/sarah-chen.md") {
		t.Errorf("health: %d\n%s", code, body)
	}
}
