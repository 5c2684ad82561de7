package merge

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkEntry merges a large entry (10,000 body lines, about 300 KB)
// edited in 200 places on each side, and two unrelated large entries,
// the worst case of the line diff.
func BenchmarkEntry(b *testing.B) {
	lines := func(prefix string, n int) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = fmt.Sprintf("%s line %d of the body, with some words in it", prefix, i)
		}
		return ls
	}
	file := func(ls []string) []byte {
		return []byte("---\ntitle: big\ntags: [a, b]\n---\n" + strings.Join(ls, "\n") + "\n")
	}
	base := lines("base", 10000)
	ours, theirs := append([]string(nil), base...), append([]string(nil), base...)
	for i := 0; i < 10000; i += 50 {
		ours[i] = "ours edit"
		theirs[i+25] = "theirs edit"
	}
	cases := []struct {
		name               string
		base, ours, theirs []byte
	}{
		{"edited", file(base), file(ours), file(theirs)},
		{"unrelated", file(base), file(lines("ours", 10000)), file(lines("theirs", 10000))},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Entry(c.base, c.ours, c.theirs, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
