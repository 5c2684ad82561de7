package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// A running watcher also answers searches, the way watchman and gopls serve
// many short commands. A search in a short-lived process starts with
// SQLite's caches cold, and on a large vault that costs it more than the
// search itself; the watcher's are warm. A reader in another process sends
// its query over a Unix socket next to the index, and the watcher runs it
// as a reader of its own would: after it has indexed every change made
// before the request (see syncLocal), so the answer is as fresh as a local
// search. Whatever fails, the reader searches locally.
//
// It also makes the writes of short-lived processes (ctx0 remember, add):
// a writer puts its write in the queue beside the vault lock and asks the
// watcher to take the queue in (TakeQueue), which it does as the lock's
// holder (vault.Vault.MakeQueued), with its index open. Whatever fails,
// the writer's write is made by the queue's rules: found in the commits,
// or made by the writer itself.

// socketPath is the watcher's socket, matched like the lock files by the
// vault's .gitignore pattern .ctx0/index.db-*.
func (ix *Index) socketPath() string { return ix.path + "-sock" }

// serveVersion changes whenever a request, its answer, or what a search
// returns changes: a reader and a watcher of other versions do not talk,
// the reader searches (or writes) on its own.
const serveVersion = 4

// serveTimeout bounds a whole exchange; a watcher that takes longer is
// busy or stuck, and the reader searches locally.
const serveTimeout = 2 * time.Second

// takeTimeout bounds a watcher's taking of the queue, most of it waiting
// for the vault lock behind other writers; a writer whose watcher takes
// longer waits for the lock itself, and finds its write answered or makes
// it.
const takeTimeout = 10 * time.Second

// watcherRequest is a search, or with Take, a request to take the queue
// beside the vault lock.
type watcherRequest struct {
	Version int   `json:"version"`
	Schema  int   `json:"schema"`
	Query   Query `json:"query"`
	Take    bool  `json:"take,omitempty"`
}

type watcherAnswer struct {
	Results []Result `json:"results"`
	Error   string   `json:"error,omitempty"`
}

// serve answers searches on the socket until ctx ends. It returns once it
// listens; a watcher that cannot listen (a path too long for a socket, a
// file system without them) still watches.
func (ix *Index) serve(ctx context.Context) (stop func(), err error) {
	// The socket is made under a name of its own and renamed into place
	// once it listens: between bind and listen its file exists but refuses
	// connections, and a reader that found it then would think the watcher
	// gone.
	sock := ix.socketPath()
	tmp := fmt.Sprintf("%s-%d", sock, os.Getpid())
	os.Remove(tmp)
	os.Remove(sock) // a crashed watcher's; we hold the watch lock
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "unix", tmp)
	if err != nil {
		return func() {}, fmt.Errorf("serve searches on %s: %w", sock, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // the file is renamed
	closeAll := func() {
		ln.Close()
		os.Remove(tmp)
		os.Remove(sock)
	}
	if err := os.Chmod(tmp, 0o600); err != nil { // the user's alone
		closeAll()
		return func() {}, fmt.Errorf("serve searches on %s: %w", sock, err)
	}
	if err := os.Rename(tmp, sock); err != nil {
		closeAll()
		return func() {}, fmt.Errorf("serve searches on %s: %w", sock, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // closed by stop
			}
			go ix.answer(ctx, conn)
		}
	}()
	return func() {
		closeAll()
		<-done
	}, nil
}

// answer runs the one search a connection asks for, or takes the queue.
func (ix *Index) answer(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	ix.touch()
	conn.SetDeadline(time.Now().Add(serveTimeout))
	var req watcherRequest
	var ans watcherAnswer
	switch err := json.NewDecoder(conn).Decode(&req); {
	case err != nil:
		ans.Error = fmt.Sprintf("bad request: %v", err)
	case req.Version != serveVersion || req.Schema != schemaVersion:
		ans.Error = fmt.Sprintf("version %d.%d, this watcher speaks %d.%d", req.Version, req.Schema, serveVersion, schemaVersion)
	case req.Take:
		conn.SetDeadline(time.Now().Add(takeTimeout + serveTimeout))
		tctx, cancel := context.WithTimeout(ctx, takeTimeout)
		// The writers are told as soon as their writes are answered,
		// before this watcher indexes them and lets go of the lock.
		answered := false
		err := ix.v.MakeQueued(tctx, func() {
			answered = true
			json.NewEncoder(conn).Encode(ans)
		})
		cancel()
		if answered {
			return
		}
		if err != nil {
			ans.Error = err.Error()
		}
	default:
		res, err := ix.searchHere(ctx, req.Query)
		if err != nil {
			ans.Error = err.Error()
		}
		ans.Results = res
	}
	json.NewEncoder(conn).Encode(ans)
}

// errNoWatcher: no watcher answers on the socket.
var errNoWatcher = errors.New("no watcher serves searches")

// dialWatcher connects to a watcher in another process, for an exchange
// that ends by ctx's deadline; errNoWatcher if none answers.
func (ix *Index) dialWatcher(ctx context.Context) (net.Conn, error) {
	if ix.localWatcher() != nil {
		return nil, errNoWatcher // this index is the watcher's
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", ix.socketPath())
	if err != nil {
		return nil, errNoWatcher
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	return conn, nil
}

// ask sends req on conn and reads the watcher's answer.
func ask(conn net.Conn, req watcherRequest) (watcherAnswer, error) {
	var ans watcherAnswer
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return ans, fmt.Errorf("ask the index watcher: %w", err)
	}
	if err := json.NewDecoder(conn).Decode(&ans); err != nil {
		return ans, fmt.Errorf("read the index watcher's answer: %w", err)
	}
	if ans.Error != "" {
		return ans, fmt.Errorf("the index watcher: %s", ans.Error)
	}
	return ans, nil
}

// searchWatcher asks a watcher in another process to run q. Any error
// means the caller searches locally.
func (ix *Index) searchWatcher(ctx context.Context, q Query) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, serveTimeout)
	defer cancel()
	conn, err := ix.dialWatcher(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ans, err := ask(conn, watcherRequest{Version: serveVersion, Schema: schemaVersion, Query: q})
	if err != nil {
		return nil, err
	}
	ix.mu.Lock()
	ix.last = Report{Check: CheckWatcher}
	ix.mu.Unlock()
	return ans.Results, nil
}

// TakeQueue asks the watcher running in another process to take the queue
// beside the vault lock, once queue has put this process's writes there
// (vault.QueueTaker); errNoWatcher when none runs, or this process is the
// watcher.
func (ix *Index) TakeQueue(ctx context.Context, queue func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, takeTimeout+serveTimeout)
	defer cancel()
	conn, err := ix.dialWatcher(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if !queue() {
		return nil
	}
	_, err = ask(conn, watcherRequest{Version: serveVersion, Schema: schemaVersion, Take: true})
	return err
}

// Running reports whether a watcher seems to run in another process: its
// socket is there (vault.QueueTaker). A watcher that died leaves it, and
// TakeQueue then finds nobody.
func (ix *Index) Running() bool {
	if ix.localWatcher() != nil {
		return false
	}
	fi, err := os.Stat(ix.socketPath())
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

var _ vault.QueueTaker = (*Index)(nil)
