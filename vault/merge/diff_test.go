package merge

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestDiff checks on random texts that diff's hunks turn a into b, with
// as few changed lines as a longest common subsequence allows.
func TestDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		a, b := randomLines(r, r.IntN(30)), randomLines(r, r.IntN(30))
		if r.IntN(2) == 0 { // an edit of a, rather than another text
			b = edit(r, a)
		}
		hs := diff(a, b)
		if got := patch(a, hs); !slices.Equal(got, b) {
			t.Fatalf("diff(%q, %q) = %v; applied: %q", a, b, hs, got)
		}
		changed := 0
		for i, h := range hs {
			changed += h.end - h.start + len(h.lines)
			if i > 0 && h.start <= hs[i-1].end {
				t.Fatalf("diff(%q, %q) = %v: hunks not apart", a, b, hs)
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changed != want {
			t.Fatalf("diff(%q, %q) changes %d lines, want %d", a, b, changed, want)
		}
	}
}

// TestDiffLimit checks that texts too different for the diff's bound are
// one replacement between their common start and end.
func TestDiffLimit(t *testing.T) {
	var a, b []string
	for i := range maxEdits {
		a = append(a, "a"+strings.Repeat("x", i%7)+"\n")
		b = append(b, "b\n")
	}
	a = append([]string{"same\n"}, append(a, "end\n")...)
	b = append([]string{"same\n"}, append(b, "end\n")...)
	hs := diff(a, b)
	if len(hs) != 1 || hs[0].start != 1 || hs[0].end != len(a)-1 {
		t.Fatalf("diff = %d hunks, first [%d, %d), want one [1, %d)", len(hs), hs[0].start, hs[0].end, len(a)-1)
	}
	if got := patch(a, hs); !slices.Equal(got, b) {
		t.Fatal("applied diff does not give b")
	}
}

func patch(a []string, hs []hunk) []string {
	return apply(a, 0, len(a), hs)
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// randomLines returns n lines from a small alphabet, so that they repeat.
func randomLines(r *rand.Rand, n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = string(rune('a'+r.IntN(5))) + "\n"
	}
	return lines
}

// edit changes, inserts and deletes a few lines of a.
func edit(r *rand.Rand, a []string) []string {
	b := slices.Clone(a)
	for range r.IntN(4) {
		i := r.IntN(len(b) + 1)
		switch r.IntN(3) {
		case 0:
			b = slices.Insert(b, i, "new\n")
		case 1:
			if i < len(b) {
				b = slices.Delete(b, i, i+1)
			}
		case 2:
			if i < len(b) {
				b[i] = "changed\n"
			}
		}
	}
	return b
}
