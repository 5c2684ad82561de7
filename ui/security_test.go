package ui

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// raw sends one request as it is, with no cookie jar: the test sets every
// header.
func (p *page) raw(method, path string, header http.Header, form url.Values) (int, string) {
	p.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, p.base+path, body)
	if err != nil {
		p.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, vs := range header {
		if k == "Host" {
			req.Host = vs[0]
			continue
		}
		req.Header[k] = vs
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestRefusesWhatIsNotThePage(t *testing.T) {
	v, ix := testVault(t)
	p := open(t, v, ix)
	own := "http://127.0.0.1:" + strconv.Itoa(p.port)
	u, _ := url.Parse(p.base)
	cookies := p.client.Jar.Cookies(u)
	if len(cookies) != 1 {
		t.Fatalf("cookies after sign-in: %v", cookies)
	}
	session := cookies[0].Name + "=" + cookies[0].Value
	wrong := cookies[0].Name + "=" + strings.Repeat("0", len(cookies[0].Value))
	head := git(t, v, "rev-parse", "HEAD")
	pin := url.Values{"name": {"sarah"}, "field": {"pinned"}, "value": {"true"}, "token": {p.token}}
	tests := []struct {
		name   string
		method string
		path   string
		header http.Header
		form   url.Values
		want   int
	}{
		{"the page, signed in", "GET", "/", http.Header{"Cookie": {session}}, nil, 200},
		{"by localhost", "GET", "/", http.Header{"Cookie": {session}, "Host": {"localhost:" + strconv.Itoa(p.port)}}, nil, 200},
		{"no cookie", "GET", "/", nil, nil, 403},
		{"a wrong cookie", "GET", "/entry?name=sarah", http.Header{"Cookie": {wrong}}, nil, 403},
		{"static files need the cookie too", "GET", "/static/style.css", nil, nil, 403},
		{"the sign-in link again", "GET", "/signin?key=" + strings.Repeat("a", 64), nil, nil, 403},
		{"DNS rebinding", "GET", "/", http.Header{"Cookie": {session}, "Host": {"attacker.example:" + strconv.Itoa(p.port)}}, nil, 403},
		{"another port", "GET", "/", http.Header{"Cookie": {session}, "Host": {"127.0.0.1:1"}}, nil, 403},
		{"a cross-site Origin", "GET", "/", http.Header{"Cookie": {session}, "Origin": {"http://attacker.example"}}, nil, 403},
		{"Origin null", "GET", "/", http.Header{"Cookie": {session}, "Origin": {"null"}}, nil, 403},
		{"a cross-site fetch", "GET", "/", http.Header{"Cookie": {session}, "Sec-Fetch-Site": {"cross-site"}}, nil, 403},
		{"a change by GET", "GET", "/entry/set?name=sarah&field=pinned&value=true&token=" + p.token, http.Header{"Cookie": {session}}, nil, 405},
		{"a change by PUT", "PUT", "/entry/set", http.Header{"Cookie": {session}, "Origin": {own}}, pin, 405},
		{"a change without the token", "POST", "/entry/set", http.Header{"Cookie": {session}, "Origin": {own}}, url.Values{"name": {"sarah"}, "field": {"pinned"}, "value": {"true"}}, 403},
		{"a change with a wrong token", "POST", "/undo", http.Header{"Cookie": {session}, "Origin": {own}}, url.Values{"commit": {head[:40]}, "token": {strings.Repeat("0", 64)}}, 403},
		{"a change without Origin", "POST", "/entry/set", http.Header{"Cookie": {session}}, pin, 403},
		{"a change from another site", "POST", "/entry/set", http.Header{"Cookie": {session}, "Origin": {"http://attacker.example"}}, pin, 403},
		{"a change from a sandboxed frame", "POST", "/entry/set", http.Header{"Cookie": {session}, "Origin": {"null"}}, pin, 403},
		{"a change without the cookie", "POST", "/entry/set", http.Header{"Origin": {own}}, pin, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := p.raw(tt.method, tt.path, tt.header, tt.form)
			if code != tt.want {
				t.Errorf("%s %s: %d, want %d\n%s", tt.method, tt.path, code, tt.want, body)
			}
		})
	}
	if got := git(t, v, "rev-parse", "HEAD"); got != head {
		t.Error("a refused request changed the vault")
	}
	checkClean(t, v)
}

func TestSignInOnce(t *testing.T) {
	v, ix := testVault(t)
	p := open(t, v, ix)
	// The link in the browser's history opens nothing now, and the page
	// it led to holds no secret in its address.
	if code, _ := p.raw("GET", strings.TrimPrefix(p.srv.SignInURL(), p.base), nil, nil); code != http.StatusForbidden {
		t.Errorf("second use of the sign-in link: %d, want 403", code)
	}
	res, err := p.client.Get(p.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if strings.Contains(res.Request.URL.String(), "key=") {
		t.Errorf("the page's address holds the key: %s", res.Request.URL)
	}
	u, _ := url.Parse(p.base)
	c := p.client.Jar.Cookies(u)[0]
	if strings.Contains(p.srv.SignInURL(), c.Value) {
		t.Error("the session cookie is the sign-in key")
	}
	code, body := p.raw("GET", "/signin?key=", nil, nil)
	if code != http.StatusForbidden || strings.Contains(body, c.Value) {
		t.Errorf("sign-in with no key: %d", code)
	}
}

func TestListenOnlyOnLoopback(t *testing.T) {
	v, ix := testVault(t)
	srv, err := New(Services{Vault: v, Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0", "example.com:0", "nonsense"} {
		if ln, err := srv.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", addr)
		}
	}
	for _, addr := range []string{"", "127.0.0.1:0", "localhost:0"} {
		ln, err := srv.Listen(addr)
		if err != nil {
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		ln.Close()
	}
}

// TestNoFileOutsideTheVault tries to reach a file beside the vault
// through every route, by name, by path and through a symbolic link in
// the vault: none serves it, none writes it.
func TestNoFileOutsideTheVault(t *testing.T) {
	v, ix := testVault(t)
	const secret = "the outside secret 7f3a"
	outside := filepath.Join(filepath.Dir(v.Root()), "outside.md")
	if err := os.WriteFile(outside, []byte("---\ntitle: Outside\n---\n"+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(v.Root(), "knowledge", "leak.md")); err != nil {
		t.Fatal(err)
	}
	p := open(t, v, ix)
	head := git(t, v, "rev-parse", "HEAD")
	gets := []string{
		"/entry?name=../outside", "/entry?name=..%2Foutside.md", "/entry?name=" + url.QueryEscape(outside),
		"/entry?name=knowledge/leak", "/entry?name=leak",
		"/static/../outside.md", "/static/..%2f..%2foutside.md", "/static/%2e%2e/%2e%2e/outside.md", "/../outside.md",
		"/run?id=../../outside", "/run?id=" + url.QueryEscape("../../../outside.md"),
		"/commit?hash=../outside", "/commit?hash=HEAD:../outside.md",
		"/ask?q=" + url.QueryEscape("outside secret"), "/?folder=../", "/?folder=" + url.QueryEscape(filepath.Dir(v.Root())),
		"/review", "/conflicts", "/health",
	}
	for _, g := range gets {
		_, body := p.get(g)
		if strings.Contains(body, secret) {
			t.Errorf("GET %s served the outside file", g)
		}
	}
	posts := []struct {
		path string
		form url.Values
	}{
		{"/entry/set", url.Values{"name": {"../outside"}, "field": {"title"}, "value": {"x"}}},
		{"/entry/set", url.Values{"name": {"knowledge/leak"}, "field": {"title"}, "value": {"x"}}},
		{"/entry/write", url.Values{"name": {"../outside"}, "body": {"x"}}},
		{"/entry/write", url.Values{"name": {"leak"}, "body": {"x"}}},
		{"/entry/archive", url.Values{"name": {"../outside"}}},
		{"/entry/supersede", url.Values{"name": {"../outside"}, "text": {"x"}}},
		{"/undo", url.Values{"commit": {head[:40]}, "path": {"../outside.md"}}},
		{"/undo", url.Values{"run": {"../../outside"}}},
		{"/conflicts/resolve", url.Values{"id": {"../../outside"}}},
	}
	for _, tt := range posts {
		code, body := p.post(tt.path, tt.form)
		if code == http.StatusOK || strings.Contains(body, secret) {
			t.Errorf("POST %s %v: %d", tt.path, tt.form, code)
		}
	}
	if data, _ := os.ReadFile(outside); !strings.Contains(string(data), secret) || strings.Contains(string(data), "title: x") {
		t.Errorf("the outside file changed:\n%s", data)
	}
	if got := git(t, v, "rev-parse", "HEAD"); got != head {
		t.Error("a refused request changed the vault")
	}
}
