// Package ui serves ctx0's local web page (ctx0 ui): browse the entries,
// ask what an agent would be handed for a question, review and undo what
// agent runs and other writers changed, settle conflicts and see the
// vault's health. It is an adapter, like cmd/ctx0 and mcp: each page calls
// the domain functions the CLI calls, and every write goes through the
// vault's write path with the CLI's checks.
//
// The page is for the person at this machine only. It listens on a
// loopback address; every request must carry the session cookie that the
// one-time sign-in link sets; the Host and Origin of every request must be
// this server's own (so a web page of another site, or one reached by DNS
// rebinding, gets 403); and writes are POSTs carrying the page's form token.
package ui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// Services are what the page reads and writes through, opened by the
// caller (cmd/ctx0's container) and shared by every request.
type Services struct {
	Vault *vault.Vault
	Index *index.Index // the vault's catalog
	// Memory opens what the extractor reads (search, retrieve and the
	// session-start block), with the vault's extractor settings. It is
	// called once, on the first question.
	Memory func(ctx context.Context) (extractor.Memory, extractor.Config, error)
	// Conversations opens the ingested sessions, the sources the
	// librarian filed entries from; nil when there are none to show.
	Conversations func(ctx context.Context) (*sessions.Store, error)
	// Project is the project the session-start block is made for; "" for
	// global entries only.
	Project string
}

// Server is the page's HTTP handler. One request is served at a time:
// the page is for one person, and the vault's writers queue anyway.
type Server struct {
	svc Services

	mu   sync.Mutex // serializes requests; guards the fields below
	port int        // the port Listen bound; 0 before
	// signIn is the one-time key of the sign-in link; "" once used, so
	// the link in the browser's history opens nothing.
	signIn string
	// session is the cookie's value, made at sign-in; form is the token
	// every POST carries.
	session, form string
	memory        *memory
	mux           *http.ServeMux
}

type memory struct {
	m   extractor.Memory
	cfg extractor.Config
}

// New makes the page's server for svc, with fresh secrets.
func New(svc Services) (*Server, error) {
	s := &Server{svc: svc}
	var err error
	if s.signIn, err = secret(); err != nil {
		return nil, err
	}
	if s.form, err = secret(); err != nil {
		return nil, err
	}
	s.mux = s.routes()
	return s, nil
}

// secret is 32 random bytes in hex.
func secret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a secret for the page: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// ErrNotLoopback is returned by Listen for an address other machines
// could reach, or one that is no host:port at all: a mistake in how the
// page was asked for, not a failure.
var ErrNotLoopback = errors.New("not a loopback address")

// Listen binds addr ("" means 127.0.0.1 on a free port), which must be a
// loopback address: the page answers to this machine only.
func (s *Server) Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w (%v)", addr, ErrNotLoopback, err)
	}
	if host != "localhost" {
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--addr %q: %w (use 127.0.0.1 or [::1])", addr, ErrNotLoopback)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.mu.Lock()
	s.port = ln.Addr().(*net.TCPAddr).Port
	s.mu.Unlock()
	return ln, nil
}

// SignInURL is the one-time link that opens the page: it sets the session
// cookie and sends the browser on to the page, so the address the browser
// keeps holds no live secret.
func (s *Server) SignInURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("http://127.0.0.1:%d/signin?key=%s", s.port, s.signIn)
}

// Serve serves the page on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}

// cookieName names the session cookie after the port, since cookies are
// shared by every port of a host: two pages of two vaults keep theirs.
func (s *Server) cookieName() string { return "ctx0-ui-" + strconv.Itoa(s.port) }

// ServeHTTP checks that the request comes from this server's own page,
// then serves it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// Not no-referrer: under it a browser sends "Origin: null" with the
	// page's own forms, which the check below must refuse.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	s.mu.Lock()
	defer s.mu.Unlock()
	if why := s.refuse(r); why != "" {
		http.Error(w, "403 forbidden: "+why, http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// refuse says why r is refused, or "" to serve it.
func (s *Server) refuse(r *http.Request) string {
	if !s.ownHost(r.Host) {
		return "this page answers only to 127.0.0.1, localhost or [::1] on its own port"
	}
	// A browser names the site a request comes from; only this page's
	// own may talk to it ("null", a sandboxed frame or a file, may not).
	if o := r.Header.Get("Origin"); o != "" && !s.ownOrigin(o) {
		return "cross-site request"
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return "cross-site request"
	}
	if r.URL.Path == "/signin" {
		return ""
	}
	c, err := r.Cookie(s.cookieName())
	if err != nil || s.session == "" || !same(c.Value, s.session) {
		return "no session: open the address ctx0 ui printed (each address opens the page once; run ctx0 ui again for a new one)"
	}
	if r.Method == http.MethodPost {
		// Every browser sends Origin with a POST; one without it is no
		// page's form.
		if r.Header.Get("Origin") == "" {
			return "a change needs the Origin header of this page"
		}
		r.Body = http.MaxBytesReader(nil, r.Body, 1<<20)
		if err := r.ParseForm(); err != nil {
			return "unreadable form"
		}
		if !same(r.PostForm.Get("token"), s.form) {
			return "the form's token is missing or wrong: reload the page"
		}
	}
	return ""
}

// ownHost tells whether host (a Host header) names this server: a
// loopback name on the port it listens on. A DNS name that resolves here
// (rebinding) is refused.
func (s *Server) ownHost(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(s.port) {
		return false
	}
	switch h {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// ownOrigin tells whether origin (an Origin header) is this server's own
// page, exactly as a browser names it.
func (s *Server) ownOrigin(origin string) bool {
	p := strconv.Itoa(s.port)
	switch origin {
	case "http://127.0.0.1:" + p, "http://localhost:" + p, "http://[::1]:" + p:
		return true
	}
	return false
}

// same compares secrets in constant time.
func same(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// signin takes the one-time key of the sign-in link, sets the session
// cookie and sends the browser to the page.
func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if s.signIn == "" || !same(r.URL.Query().Get("key"), s.signIn) {
		http.Error(w, "403 forbidden: this sign-in address was used already or is wrong; run ctx0 ui again for a new one", http.StatusForbidden)
		return
	}
	session, err := secret()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.signIn, s.session = "", session
	http.SetCookie(w, &http.Cookie{
		Name: s.cookieName(), Value: session, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
