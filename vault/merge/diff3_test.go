package merge

import (
	"strings"
	"testing"
)

func TestDiff3(t *testing.T) {
	tests := []struct {
		name, base, first, second string
		want                      string // merged lines; a conflict is [first|second]
	}{
		{"unchanged", "abc", "abc", "abc", "abc"},
		{"first only", "abc", "aXc", "abc", "aXc"},
		{"second only", "abc", "abc", "abY", "abY"},
		{"same edit", "abc", "aXc", "aXc", "aXc"},
		{"apart", "abcde", "Xbcde", "abcdY", "XbcdY"},
		{"adjacent", "abc", "Xbc", "aYc", "XYc"},
		{"overlap", "abc", "aXc", "aYc", "a[X|Y]c"},
		{"overlap wider", "abcd", "aXYd", "abZd", "a[XY|bZ]d"},
		{"delete and edit", "abc", "ac", "aYc", "a[|Y]c"},
		{"both delete", "abc", "ac", "ac", "ac"},
		{"both insert", "ac", "abc", "aBc", "abBc"},
		{"both insert, shared start", "ac", "aXbc", "aXBc", "aXbBc"},
		{"one insertion extends the other", "ac", "aXc", "aXYc", "aXYc"},
		{"insert before replaced", "abc", "aXbc", "aYc", "aXYc"},
		{"insert after replaced", "abc", "abXc", "aYc", "aYXc"},
		{"insert inside replaced", "abcd", "abXcd", "aYd", "a[bXc|Y]d"},
		{"empty base", "", "ab", "ac", "abc"},
		{"addition repeated after an edit, other side", "abc", "aYZc", "abZc", "aYZc"},
		{"addition repeated before an edit", "abc", "aZbc", "aZYc", "aZYc"},
		{"all deleted", "abc", "", "abc", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for _, c := range diff3(chars(tt.base), chars(tt.first), chars(tt.second)) {
				if c.conflict {
					b.WriteString("[" + strings.Join(c.first, "") + "|" + strings.Join(c.second, "") + "]")
				} else {
					b.WriteString(strings.Join(c.lines, ""))
				}
			}
			if got := b.String(); got != tt.want {
				t.Errorf("diff3(%q, %q, %q) = %q, want %q", tt.base, tt.first, tt.second, got, tt.want)
			}
		})
	}
}

// chars makes each letter of s a line.
func chars(s string) []string {
	return strings.Split(s, "")[:len(s)]
}
