package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves s over MCP's streamable HTTP transport, one client session
// per Mcp-Session-Id. Sessions idle for half an hour are closed.
func (s *Server) Handler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{Logger: s.opts.Logger, SessionTimeout: 30 * time.Minute})
}

// ErrNotLoopback is returned for an address beyond this machine.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckAddr checks that addr (host:port) listens on this machine only: the
// vault is readable and writable by whoever reaches the server, and the
// server has no authentication. allowRemote lifts the check.
func CheckAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want HOST:PORT, such as 127.0.0.1:8765", addr)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: %w: the server has no authentication, so anyone who reaches it reads and writes the vault; listen on 127.0.0.1, or force it with --allow-remote", addr, ErrNotLoopback)
}

// ListenAndServe serves s over streamable HTTP on addr until ctx ends.
// ready, if not nil, is called with the server's URL once it listens.
func (s *Server) ListenAndServe(ctx context.Context, addr string, allowRemote bool, ready func(url string)) error {
	if err := CheckAddr(addr, allowRemote); err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", s.Handler())
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
