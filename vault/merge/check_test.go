package merge

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault/entry"
)

// checkMerge checks what holds for every merge: the result parses if the
// inputs do, it holds no git conflict marker that no input held, and no
// line either side added is lost.
func checkMerge(t *testing.T, base, ours, theirs []byte, opt Options, got []byte, cs []Conflict) {
	t.Helper()
	texts := []string{string(base), string(ours), string(theirs)}
	parsed := true
	var bodies []string
	for _, text := range texts {
		e, err := entry.Parse([]byte(text))
		if err != nil {
			parsed = false
			continue
		}
		bodies = append(bodies, e.Body())
	}
	out, err := entry.Parse(got)
	if parsed && err != nil && len(got) <= entry.MaxSize {
		t.Fatalf("merged file does not parse: %v\n%s", err, got)
	}
	for _, l := range lines(string(got)) {
		if isMarker(l) && !slices.ContainsFunc(texts, func(s string) bool { return slices.Contains(lines(s), l) }) {
			t.Fatalf("merged file has a conflict marker line %q:\n%s", l, got)
		}
	}
	if opt.Strategy == Rebuilt && parsed {
		if !bytes.Equal(got, ours) && !bytes.Equal(got, theirs) || len(cs) > 0 {
			t.Fatalf("rebuilt = %q with conflicts %+v, want one side whole and none", got, cs)
		}
		return
	}
	if opt.Strategy == LastWriteWins && parsed {
		changed := !bytes.Equal(ours, theirs) && !bytes.Equal(base, ours) && !bytes.Equal(base, theirs)
		if changed && (len(cs) != 1 || cs[0].Ours != string(ours) || cs[0].Theirs != string(theirs)) {
			t.Fatalf("last-write-wins conflicts = %+v, want one with both versions", cs)
		}
		return
	}
	// Lines added on a side, compared without line breaks, as the merge
	// converts theirs to ours' breaks and may end the last line.
	from, added := texts[0], texts[1:]
	result := string(got)
	if parsed && err == nil {
		from, added, result = bodies[0], bodies[1:], out.Body()
	}
	have := lines(result)
	old := lines(from)
	for _, side := range added {
		for _, l := range lines(side) {
			if strings.TrimSpace(l) == "" || slices.Contains(old, l) {
				continue
			}
			if !slices.Contains(have, l) && !slices.Contains(have, "> "+l) {
				t.Fatalf("line %q was added on a side and is lost:\n%s", l, got)
			}
		}
	}
}

// lines splits text into lines without their breaks, "\n" or "\r\n".
func lines(s string) []string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

func isMarker(l string) bool {
	return strings.HasPrefix(l, "<<<<<<<") || strings.HasPrefix(l, "=======") || strings.HasPrefix(l, ">>>>>>>")
}

// wholeWins tells the strategies under which one version wins whole, so
// that a side's additions may be dropped.
func wholeWins(s Strategy) bool { return s == LastWriteWins || s == Rebuilt }
