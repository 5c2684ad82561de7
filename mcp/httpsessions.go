package mcp

import (
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each HTTP client session holds memory until it ends, and a client can
// open one per initialize request. The SDK closes sessions idle for
// StreamableHTTPOptions.SessionTimeout but sets no bound on their number,
// so sessionLimit keeps at most max alive: a new session first closes the
// one idle the longest, and is refused with 503 when every session is in
// the middle of a request.

// DefaultMaxSessions and DefaultIdleTimeout bound the HTTP server's client
// sessions when HTTPOptions leave them zero. An agent keeps one session for
// as long as it runs, and starts a new one when its session is gone.
const (
	DefaultMaxSessions = 64
	DefaultIdleTimeout = 10 * time.Minute
)

// sessionIDHeader is the streamable HTTP transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// sessionLimit wraps the SDK's handler for srv's sessions.
type sessionLimit struct {
	srv *sdk.Server
	max int

	mu      sync.Mutex
	known   map[string]*liveSession // by session id
	opening int                     // new sessions being made
}

// liveSession is what sessionLimit knows of one session.
type liveSession struct {
	used time.Time // when its last request ended (or began)
	busy int       // its requests being served
}

func newSessionLimit(srv *sdk.Server, max int) *sessionLimit {
	return &sessionLimit{srv: srv, max: max, known: map[string]*liveSession{}}
}

// wrap counts the requests of each session and makes room for new ones.
func (l *sessionLimit) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionIDHeader)
		if id != "" {
			l.begin(id)
			defer l.end(id)
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r) // the SDK answers it; no session is made
			return
		}
		arrived := time.Now()
		if !l.admit() {
			w.Header().Set("Retry-After", "5")
			http.Error(w, "Service Unavailable: every client session of this server is busy; try again", http.StatusServiceUnavailable)
			return
		}
		// The SDK names the new session in the response's header. It is
		// recorded as the header goes out, before the client can use it:
		// the handler may return only after the client has moved on.
		rw := &openingWriter{ResponseWriter: w, open: func() {
			l.opened(w.Header().Get(sessionIDHeader), arrived)
		}}
		next.ServeHTTP(rw, r)
		rw.opened()
	})
}

// openingWriter calls open once, when the response's header is written (or
// when the handler returns without writing one).
type openingWriter struct {
	http.ResponseWriter
	open func()
	done bool
}

func (w *openingWriter) opened() {
	if !w.done {
		w.done = true
		w.open()
	}
}

func (w *openingWriter) WriteHeader(code int) {
	w.opened()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(b []byte) (int, error) {
	w.opened()
	return w.ResponseWriter.Write(b)
}

// Flush keeps the SDK's event streams flowing through the wrapper.
func (w *openingWriter) Flush() {
	w.opened()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (l *sessionLimit) begin(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.known[id]; s != nil {
		s.busy++
		s.used = time.Now()
	}
}

func (l *sessionLimit) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.known[id]; s != nil {
		s.busy--
		s.used = time.Now()
	}
}

// admit makes room for one more session, closing those idle the longest
// while the sessions alive and being made reach max. It returns false when
// no room can be made.
func (l *sessionLimit) admit() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.known)+l.opening >= l.max {
		// Only at the bound: the scan costs the number of sessions.
		l.forgetClosed()
	}
	for len(l.known)+l.opening >= l.max {
		var oldest string
		for id, s := range l.known {
			if s.busy == 0 && (oldest == "" || s.used.Before(l.known[oldest].used)) {
				oldest = id
			}
		}
		if oldest == "" {
			return false
		}
		delete(l.known, oldest)
		l.close(oldest)
	}
	l.opening++
	return true
}

// opened records a session the SDK made (id "" if it made none) for the
// request that arrived at arrived. Sessions are aged from their request's
// arrival, not from when its handler returned: the client may already be
// using the session (or opening the next) before then.
func (l *sessionLimit) opened(id string, arrived time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opening--
	if id != "" {
		// One the SDK closed at once (a failed initialize) is forgotten
		// at the next scan.
		l.known[id] = &liveSession{used: arrived}
	}
}

// forgetClosed drops the sessions that ended otherwise (the client's
// DELETE, the SDK's idle timeout). Call it with l.mu held.
func (l *sessionLimit) forgetClosed() {
	alive := l.alive()
	for id := range l.known {
		if !alive[id] {
			delete(l.known, id)
		}
	}
}

func (l *sessionLimit) alive() map[string]bool {
	ids := map[string]bool{}
	for ss := range l.srv.Sessions() {
		ids[ss.ID()] = true
	}
	return ids
}

// close ends session id. An idle session has no request to drain, so Close
// returns at once; the SDK then drops it from its handler.
func (l *sessionLimit) close(id string) {
	for ss := range l.srv.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
			return
		}
	}
}
