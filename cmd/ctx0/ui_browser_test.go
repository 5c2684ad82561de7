package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// browserPath finds a Chromium or Chrome to drive; "" when none is
// installed ($CTX0_BROWSER names one elsewhere).
func browserPath() string {
	if p := os.Getenv("CTX0_BROWSER"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless browser of its own (a fresh profile, nothing
// fetched from the network) for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := browserPath()
	if path == "" {
		t.Skip("no Chromium or Chrome installed (apt-get install chromium, or set CTX0_BROWSER): the browser tests are skipped")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1200, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// A hung browser must still end the test.
	actx, cancelTime := context.WithTimeout(actx, 8*time.Minute)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelTime(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// shots is where the browser tests save their screenshots:
// $CTX0_UI_SCREENSHOTS, else a temporary folder the test logs.
func shots(t *testing.T) string {
	if d := os.Getenv("CTX0_UI_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := t.TempDir()
	t.Logf("screenshots in %s (set CTX0_UI_SCREENSHOTS to keep them)", d)
	return d
}

// TestUIBrowser drives the page in a real headless browser after the
// quickstart: open it, search, open an entry, undo the librarian's run,
// resolve a conflict, and check the vault's files and git log after.
func TestUIBrowser(t *testing.T) {
	ctx := browser(t)
	dir, filed, before := demoVault(t)
	signIn := startUI(t, dir)
	base := strings.SplitN(signIn, "/signin", 2)[0]
	out := shots(t)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		// A step waits for what the page should show; a page that never
		// shows it fails the test rather than hanging it.
		ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		if err := chromedp.Do(ctx, steps...); err != nil {
			page, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Text(chromedp.CSS(`body`)))
			t.Fatalf("%v; the page shows:\n%s", err, page)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	do(chromedp.Navigate(signIn), chromedp.WaitVisible(chromedp.CSS(`table.entries`)))
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if location != base+"/" {
		t.Errorf("after signing in the browser is at %s, want %s/ (no key in the address)", location, base)
	}
	entries := text(`main`)
	for _, w := range []string{"Sarah Chen", "Staging deploys go out on Tuesdays", "Pinned"} {
		if !strings.Contains(entries, w) {
			t.Errorf("the entries page lacks %q", w)
		}
	}
	shot("entries")

	do(chromedp.SendKeys(chromedp.CSS(`header input[name=q]`), "when do staging deploys go out?\n"),
		chromedp.WaitVisible(chromedp.CSS(`#bundle`)))
	if bundle := text(`#bundle`); !strings.Contains(bundle, "knowledge/staging-deploys-go-out-on-tuesdays.md") || !strings.Contains(bundle, "why:") {
		t.Errorf("the bundle shown:\n%s", bundle)
	}
	shot("ask")
	do(chromedp.Click(chromedp.CSS(`ol.results a`)), chromedp.WaitVisible(chromedp.CSS(`#body`)))
	if body := text(`main`); !strings.Contains(body, "Staging deploys go out on Tuesdays") || !strings.Contains(body, "History") {
		t.Errorf("the entry page shows:\n%s", body)
	}
	shot("entry")

	do(chromedp.Navigate(base+"/review"),
		chromedp.Click(chromedp.CSS(`a[href="/run?id=`+url.QueryEscape(filed.ID)+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`pre.diff`)))
	if diff := text(`main`); !strings.Contains(diff, "+title: Staging deploys go out on Tuesdays") {
		t.Errorf("the run's page shows:\n%s", diff)
	}
	shot("run")
	do(chromedp.Click(chromedp.CSS(`.undo-all button`)), chromedp.WaitVisible(chromedp.CSS(`#msg`)))
	if msg := text(`#msg`); !strings.HasPrefix(msg, "Undone in commit") {
		t.Errorf("after undo the page says %q", msg)
	}
	shot("review")
	if got := gitIn(t, dir, "rev-parse", "HEAD^{tree}"); got != before {
		t.Errorf("after the undo the tree is %s, want %s (before the run)", got, before)
	}
	if got := gitIn(t, dir, "log", "-1", "--format=%s"); got != "revert run "+filed.ID {
		t.Errorf("last commit %q, want the revert of the run", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "knowledge", "staging-deploys-go-out-on-tuesdays.md")); !os.IsNotExist(err) {
		t.Errorf("the run's entry is still there: %v", err)
	}

	// A conflict: a change undone after a newer edit of the same field.
	for _, args := range [][]string{
		{"set", "sarah", "title", "Sarah C."},
		{"set", "sarah", "title", "Sarah Chen (Example Ventures)"},
		{"undo", "HEAD~1"},
	} {
		var stderr strings.Builder
		if code := run(append([]string{"--vault", dir}, args...), strings.NewReader(""), &strings.Builder{}, &stderr); code != exitOK {
			t.Fatalf("ctx0 %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
	}
	do(chromedp.Navigate(base+"/conflicts"), chromedp.WaitVisible(chromedp.CSS(`div.conflict`)))
	if c := text(`main`); !strings.Contains(c, "field title") || !strings.Contains(c, "Sarah Chen (Example Ventures)") || !strings.Contains(c, "theirs") {
		t.Errorf("the conflict shown:\n%s", c)
	}
	shot("conflicts")
	do(chromedp.Click(chromedp.CSS(`button.resolve`)), chromedp.WaitVisible(chromedp.CSS(`#no-conflicts`)))
	if got := gitIn(t, dir, "log", "-1", "--format=%s"); !strings.Contains(got, "resolve") {
		t.Errorf("last commit %q, want the resolution", got)
	}
	do(chromedp.Navigate(base+"/health"), chromedp.WaitVisible(chromedp.CSS(`table.fields`)),
		chromedp.Click(chromedp.CSS(`#doctor`)), chromedp.WaitVisible(chromedp.CSS(`#no-problems`)))
	shot("health")
	if st := gitIn(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
	gitIn(t, dir, "fsck", "--strict")

	// Reading needs no script: the pages are made on the server.
	noScript := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	do(noScript,
		chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`table.entries`)),
		chromedp.Click(chromedp.CSS(`table.entries a`)), chromedp.WaitVisible(chromedp.CSS(`#body`)),
		chromedp.Navigate(base+"/ask?q=sarah"), chromedp.WaitVisible(chromedp.CSS(`#bundle`)),
		chromedp.Navigate(base+"/review"), chromedp.WaitVisible(chromedp.CSS(`table.timeline`)))
}
