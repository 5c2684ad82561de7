package kind

import (
	"testing"
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
