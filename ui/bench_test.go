package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ctx0/ctx0/eval/synthvault"
	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// BenchmarkFirstPage measures the server time of the entries page (its
// first page and its 100th) on the vault in $CTX0_BENCH_VAULT (made with
// scripts/genvault), or else on a generated vault of 2,000 entries, with
// the index kept fresh by a watcher as ctx0 ui keeps it. The baseline, in
// the same run, is the bare index query the page is made from
// (index.Latest of one page). It reports medians.
func BenchmarkFirstPage(b *testing.B) {
	ctx := b.Context()
	dir := synthvault.BenchVault(b)
	v, err := vault.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(ctx, v)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	v.SetCatalog(ix)
	wctx, stop := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() { watched <- ix.Watch(wctx, nil) }()
	defer func() { stop(); <-watched }()
	for {
		if w, ok := ix.RunningWatcher(); ok && w.PID == os.Getpid() {
			break
		}
		select {
		case err := <-watched:
			b.Fatal(err)
		case <-time.After(time.Millisecond):
		}
	}
	srv, err := New(Services{Vault: v, Index: ix, Memory: func(context.Context) (extractor.Memory, extractor.Config, error) {
		return extractor.Memory{}, extractor.Config{}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := srv.Listen("")
	if err != nil {
		b.Fatal(err)
	}
	ln.Close()
	host := "127.0.0.1:" + strconv.Itoa(srv.port)
	// Sign in as a browser would, then serve requests in process: the
	// server's time, no network.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, srv.SignInURL(), nil)
	srv.ServeHTTP(rec, req)
	cookie := rec.Result().Cookies()[0]
	serve := func(path string) time.Duration {
		req := httptest.NewRequest(http.MethodGet, "http://"+host+path, nil)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		t0 := time.Now()
		srv.ServeHTTP(rec, req)
		d := time.Since(t0)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body)
		}
		return d
	}
	var first, later, bare []time.Duration
	serve("/") // SQLite's caches warm, as after the page's first load
	b.ResetTimer()
	for range b.N {
		first = append(first, serve("/"))
		later = append(later, serve("/?page=100"))
		t0 := time.Now()
		if _, err := ix.Latest(ctx, index.Listing{Limit: pageSize + 1}); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t0))
	}
	b.StopTimer()
	med := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / float64(time.Millisecond)
	}
	b.ReportMetric(med(first), "ms/first-page")
	b.ReportMetric(med(later), "ms/page-100")
	b.ReportMetric(med(bare), "ms/bare-latest")
	b.ReportMetric(0, "ns/op")
}
