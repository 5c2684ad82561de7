package mcp

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions say who may call the server over HTTP.
type HTTPOptions struct {
	// AllowRemote lets the server listen beyond this machine. It then
	// needs a Token: whoever reaches the server reads and writes the vault.
	AllowRemote bool
	// Origins are the browser origins (scheme://host[:port]) whose pages
	// may call the server, besides this machine's own.
	Origins []string
	// Token, if set, must come with every request, as the header
	// "Authorization: Bearer TOKEN".
	Token string
	// MaxSessions bounds the client sessions alive at once
	// (DefaultMaxSessions if 0): a new one closes the one idle longest.
	MaxSessions int
	// IdleTimeout closes a session that has had no request for that long
	// (DefaultIdleTimeout if 0).
	IdleTimeout time.Duration
}

// TokenEnv is the environment variable that holds the HTTP server's token.
const TokenEnv = "CTX0_MCP_TOKEN"

// Handler serves s over MCP's streamable HTTP transport, one client session
// per Mcp-Session-Id, at most o.MaxSessions of them, each closed once idle
// for o.IdleTimeout: a client that initializes again and again holds no
// more than that. The SDK refuses a Host that is not this machine's on a
// loopback connection (DNS rebinding); Handler adds the Origin check and
// the token of o, before a request can make or end a session.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{Logger: s.opts.Logger, SessionTimeout: cmp.Or(o.IdleTimeout, DefaultIdleTimeout)})
	return guard(newSessionLimit(s.sdk, cmp.Or(o.MaxSessions, DefaultMaxSessions)).wrap(h), o)
}

// guard refuses a request whose Origin is not allowed, with 403 as the MCP
// specification requires of a server ("Servers MUST validate the Origin
// header on all incoming connections"): a web page the person visits must
// not drive the server from their browser. A request without Origin comes
// from a program, not a page, and passes. With a token set, a request
// without it is refused with 401.
func guard(next http.Handler, o HTTPOptions) http.Handler {
	allowed := make([]string, 0, len(o.Origins))
	for _, a := range o.Origins {
		allowed = append(allowed, normalOrigin(a))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, allowed) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q may not call this server (ctx0 mcp --allow-origin lets one)", origin), http.StatusForbidden)
			return
		}
		if o.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(o.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="ctx0"`)
				http.Error(w, "Unauthorized: send the token of "+TokenEnv+" as Authorization: Bearer TOKEN", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed tells whether a page of origin may call the server: one
// served by this machine (localhost, 127.0.0.0/8, [::1]), or one of
// allowed (normalized).
func originAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, normalOrigin(origin)) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" (a sandboxed page or a file) among others
	}
	return isLoopbackHost(u.Hostname())
}

// normalOrigin is origin as compared: lower case, without a trailing slash.
func normalOrigin(origin string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(origin)), "/")
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrNotLoopback is returned for an address beyond this machine.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckAddr checks that addr (host:port) listens on this machine only: the
// vault is readable and writable by whoever reaches the server.
// o.AllowRemote lifts the check, for a server with a token.
func CheckAddr(addr string, o HTTPOptions) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want HOST:PORT, such as 127.0.0.1:8765", addr)
	}
	if isLoopbackHost(host) {
		return nil
	}
	if !o.AllowRemote {
		return fmt.Errorf("%s: %w: anyone who reaches the server reads and writes the vault; listen on 127.0.0.1, or set %s and force it with --allow-remote", addr, ErrNotLoopback, TokenEnv)
	}
	if o.Token == "" {
		return fmt.Errorf("%s: --allow-remote needs a token: set %s to a long random secret, which clients send as Authorization: Bearer TOKEN", addr, TokenEnv)
	}
	return nil
}

// ListenAndServe serves s over streamable HTTP on addr until ctx ends.
// ready, if not nil, is called with the server's URL once it listens.
func (s *Server) ListenAndServe(ctx context.Context, addr string, o HTTPOptions, ready func(url string)) error {
	if err := CheckAddr(addr, o); err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", s.Handler(o))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready("http://" + l.Addr().String() + "/mcp")
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
		return nil
	}
}
