package vault

import (
	"errors"
	"strings"
	"testing"
)

func TestRevert(t *testing.T) {
	gamma := "---\ntitle: Gamma\n---\nNew.\n"
	tests := []struct {
		name string
		// change is the commit to undo, on runVault's alpha and beta;
		// since, what is written after it.
		change, since []change
		paths         []string
		want          map[string]string // path → content after the undo; "" for absent
		conflicts     int
	}{
		{
			name:   "back to before the change",
			change: []change{{path: "knowledge/alpha.md", data: []byte(runAlphaTags)}, {path: "knowledge/gamma.md", data: []byte(gamma)}, {path: "knowledge/beta.md"}},
			want:   map[string]string{"knowledge/alpha.md": runAlpha, "knowledge/beta.md": runBeta, "knowledge/gamma.md": ""},
		},
		{
			name:   "a later edit of another field stays",
			change: []change{{path: "knowledge/alpha.md", data: []byte(runAlphaTags)}},
			since:  []change{{path: "knowledge/alpha.md", data: []byte(runAlphaBoth)}},
			want:   map[string]string{"knowledge/alpha.md": runAlphaBody},
		},
		{
			name:   "only the paths named",
			change: []change{{path: "knowledge/alpha.md", data: []byte(runAlphaTags)}, {path: "knowledge/gamma.md", data: []byte(gamma)}},
			paths:  []string{"knowledge/gamma.md"},
			want:   map[string]string{"knowledge/alpha.md": runAlphaTags, "knowledge/gamma.md": ""},
		},
		{
			name:      "a field changed again since is a conflict kept aside",
			change:    []change{{path: "knowledge/alpha.md", data: []byte(runAlphaByRun)}},
			since:     []change{{path: "knowledge/alpha.md", data: []byte(runAlphaByUser)}},
			want:      map[string]string{"knowledge/alpha.md": runAlphaByUser},
			conflicts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			v, _ := runVault(t)
			c, err := v.apply(ctx, "the change", tt.change)
			if err != nil {
				t.Fatal(err)
			}
			if tt.since != nil {
				if _, err := v.apply(ctx, "since", tt.since); err != nil {
					t.Fatal(err)
				}
			}
			before := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD"))
			r, err := v.Revert(ctx, RevertOptions{Commit: c.Hash, Paths: tt.paths})
			if err != nil {
				t.Fatal(err)
			}
			if r.Conflicts != tt.conflicts {
				t.Errorf("conflicts = %d, want %d", r.Conflicts, tt.conflicts)
			}
			// One new commit on the branch, whose only parent is what the
			// branch was: nothing rewritten.
			if got := strings.TrimSpace(runGit(t, v, "rev-list", "--parents", "-n", "1", "HEAD")); got != r.Hash+" "+before {
				t.Errorf("HEAD and its parents = %s, want %s %s", got, r.Hash, before)
			}
			if subj := runGit(t, v, "log", "-1", "--format=%s"); !strings.HasPrefix(subj, "revert commit ") {
				t.Errorf("subject = %q", subj)
			}
			for p, want := range tt.want {
				got, _ := runGitErr(v, "show", "HEAD:"+p)
				if got != want {
					t.Errorf("%s after the undo:\n%s\nwant:\n%s", p, got, want)
				}
				if want != "" && readWorkFile(t, v, p) != want {
					t.Errorf("work file %s is not HEAD's", p)
				}
			}
			checkClean(t, v)
		})
	}
}

func TestRevertRefuses(t *testing.T) {
	ctx := t.Context()
	v, first := runVault(t)
	c, err := v.apply(ctx, "the change", []change{{path: "knowledge/alpha.md", data: []byte(runAlphaTags)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Revert(ctx, RevertOptions{Commit: c.Hash}); err != nil {
		t.Fatal(err)
	}
	head := runGit(t, v, "rev-parse", "HEAD")
	for _, o := range []RevertOptions{
		{Commit: c.Hash}, // undone already
		{Commit: c.Hash, Paths: []string{"../outside.md"}}, // leaves the vault
		{Commit: "no-such-revision"},
		{Commit: first, Parent: first},
	} {
		_, err := v.Revert(ctx, o)
		if err == nil {
			t.Errorf("Revert(%+v) succeeded", o)
		}
		if o.Commit == c.Hash && o.Paths == nil && !errors.Is(err, ErrNothingToRevert) {
			t.Errorf("Revert(%+v) = %v, want ErrNothingToRevert", o, err)
		}
	}
	if got := runGit(t, v, "rev-parse", "HEAD"); got != head {
		t.Errorf("a refused undo moved the branch")
	}
	checkClean(t, v)
}
