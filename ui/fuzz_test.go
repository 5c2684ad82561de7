package ui

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault"
)

// FuzzOwnOrigin: an Origin or Host is taken only when it names this
// server, a loopback name on its port, exactly.
func FuzzOwnOrigin(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "null", "",
		"http://127.0.0.1.evil.example:8080", "http://127.0.0.1:8080/", "https://127.0.0.1:8080", "http://user@127.0.0.1:8080"} {
		f.Add(s)
	}
	s := &Server{port: 8080}
	f.Fuzz(func(t *testing.T, origin string) {
		ok := s.ownOrigin(origin)
		if !ok {
			return
		}
		u, err := url.Parse(origin)
		if err != nil {
			t.Fatalf("%q taken, yet no URL: %v", origin, err)
		}
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil || port != strconv.Itoa(s.port) || u.Scheme != "http" || u.User != nil && u.User.String() != "" {
			t.Fatalf("%q taken", origin)
		}
		switch host {
		case "127.0.0.1", "localhost", "::1":
		default:
			t.Fatalf("%q taken: host %q", origin, host)
		}
	})
}

// FuzzSplitPatch: every file of a diff gets the part of the patch that
// names it, and nothing is invented.
func FuzzSplitPatch(f *testing.F) {
	f.Add("a.md", "diff --git a/a.md b/a.md\n--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-x\n+y\n")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, path, patch string) {
		d := vault.Diff{Files: []vault.FileChange{{Path: path, Action: "changed"}}, Patch: patch}
		got := splitPatch(d)
		if len(got) != 1 || got[0].Path != path {
			t.Fatalf("files %v", got)
		}
		if p := got[0].Patch; p != "" && (!strings.Contains(patch, p) || !strings.HasPrefix(p, "diff --git a/"+path+" b/")) {
			t.Fatalf("part %q of %q for %q", p, patch, path)
		}
	})
}
