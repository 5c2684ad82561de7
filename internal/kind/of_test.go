package kind

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestOf: general phrasings of each type, and near misses that stay
// notes.
func TestOf(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"We decided to use Postgres for the billing service", "decision"},
		{"Let's go with Svelte for the dashboard.", "decision"},
		{"Use pnpm instead of npm in this repo", "decision"},
		{"Switch the CI to GitHub Actions from Jenkins", "decision"},
		{"Always run make lint before pushing", "preference"},
		{"Never deploy on Fridays", "preference"},
		{"I prefer tabs over spaces in Go code", "preference"},
		{"From now on, write commit messages in English.", "preference"},
		{"Sarah prefers email over calls", "preference"},
		{"User prefers Bun over Node for new TypeScript projects", "preference"},
		{"We just shipped v2.0 to all users", "milestone"},
		{"We signed the lease for the new office", "milestone"},
		{"My sister Ana moved to Lisbon", "fact"},
		{"Meet Priya Patel, our new designer, she works from Berlin", "contact"},
		{"Sarah Chen is our investor", "contact"},
		{"Say hi to Sam, my co-founder.", "contact"},
		{"Meet the new build system", "note"},
		{"Node v24 no longer requires the --experimental-strip-types flag", "fact"},
		{"The staging deploy key is in 1Password under staging-deploy", "note"},
		{"Sarah is a partner at Example Ventures", "note"},
		{"Does Sarah prefer email?", "note"},
		{"Never mind the old script", "note"},
		{"", "note"},
		{"Always.", "note"},
	} {
		if got := Of(tt.text); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestPersonIntroduced: a person introduced is named; other texts name
// no one.
func TestPersonIntroduced(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"Meet Priya Patel, our new designer, she works from Berlin", "Priya Patel"},
		{"Never deploy on Fridays", ""},
	} {
		if got := PersonIntroduced(tt.text); got != tt.want {
			t.Errorf("PersonIntroduced(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestStatement: a decision asked for or reported is said as the choice
// itself, whatever frames it.
func TestStatement(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Let's rename `/data-capture` to `/src`.", "Rename `/data-capture` to `/src`"},
		{"I want to update my spec to remove this queue separation and just have a codex queue", "Remove the queue separation and have a codex queue"},
		{"yes, in a previous session we remove the react web app in favor of generating static PNG files.", "Remove the react web app in favor of generating static PNG files"},
		{"Can you please switch the CI to GitHub Actions?", "Switch the CI to GitHub Actions"},
		{"OK, we decided to use Postgres for billing", "Use Postgres for billing"},
		{"Update the project to use typescript and ESM...", "Update the project to use typescript and ESM"},
		{"We'll go with Svelte for the dashboard", "Use Svelte for the dashboard"},
		{"Let's stick with npm", "Keep npm"},
		{"Let's do this and move on", "Do this and move on"},
		{"Update the README to say so", "Update the README to say so"},
		{"Let's", "Let's"},
	} {
		if got := Statement(tt.in); got != tt.want {
			t.Errorf("Statement(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzStatement: a statement is one line, at most 500 characters (a
// cut one ends with …), and never longer than the sentence it says: what
// it swaps in ("Use" for "go with", "the" for "this") is shorter.
func FuzzStatement(f *testing.F) {
	f.Add("I want to update my spec to remove this queue separation and just have a codex queue")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		got := Statement(s)
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("Statement(%q) = %q: more than one line", s, got)
		}
		if utf8.RuneCountInString(got) > 500 {
			t.Errorf("Statement(%q) = %q: over 500 characters", s, got)
		}
		if utf8.ValidString(s) && !strings.HasSuffix(got, "…") && len(got) > len(s)+2 {
			t.Errorf("Statement(%q) = %q: longer than the sentence", s, got)
		}
	})
}
