package merge

import (
	"bytes"
	"strings"
	"testing"
)

// TestText covers what txtar fixtures cannot hold: line breaks other than
// "\n", and last lines without one.
func TestText(t *testing.T) {
	tests := []struct {
		name, base, ours, theirs, want string
	}{
		{
			"theirs in LF, ours in CRLF",
			"---\ntitle: x\n---\na\nb\nc\n",
			"---\r\ntitle: x\r\n---\r\nA\r\nb\r\nc\r\n",
			"---\ntitle: y\n---\na\nb\nC\n",
			"---\r\ntitle: y\r\n---\r\nA\r\nb\r\nC\r\n",
		},
		{
			"CRLF conflict block",
			"---\r\ntitle: x\r\n---\r\na\r\n",
			"---\r\ntitle: x\r\n---\r\nA\r\n",
			"---\r\ntitle: x\r\n---\r\nB\r\n",
			"---\r\ntitle: x\r\n---\r\nA\r\n\r\n> [!conflict] Merge conflict: theirs had a different version of line 4\r\n> B\r\n",
		},
		{
			"no break at the end on any side",
			"a\nb\nc", "A\nb\nc", "a\nb\nC",
			"A\nb\nC",
		},
		{
			"break removed on one side",
			"a\nb\n", "A\nb\n", "a\nb",
			"A\nb",
		},
		{
			"appended after a last line without break",
			"a\nb", "a\nb\nours", "A\nb\ntheirs",
			"A\nb\nours\ntheirs",
		},
		{
			"closing line ends the file",
			"---\ntitle: x\n---", "---\ntitle: y\n---", "---\ntitle: x\ntags: [a]\n---",
			"---\ntitle: y\ntags: [a]\n---",
		},
		{
			"frontmatter added on both sides",
			"body\n", "---\ntitle: x\n---\nbody\n", "---\ntags: [a]\n---\nbody\n",
			"---\ntitle: x\ntags: [a]\n---\nbody\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cs, err := Entry([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs), Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkMerge(t, []byte(tt.base), []byte(tt.ours), []byte(tt.theirs), Options{}, got, cs)
			if string(got) != tt.want {
				t.Errorf("merged:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// TestLabels checks that labels name the sides in blocks, on one line.
func TestLabels(t *testing.T) {
	opt := Options{OursLabel: "main", TheirsLabel: "laptop\n(3f2a1c9)"}
	got, _, err := Entry([]byte("a\n"), []byte("b\n"), []byte("c\n"), opt)
	want := "b\n\n> [!conflict] Merge conflict: laptop (3f2a1c9) had a different version of line 1\n> c\n"
	if err != nil || string(got) != want {
		t.Errorf("merged %q, %v; want %q", got, err, want)
	}
}

func TestOptions(t *testing.T) {
	for _, opt := range []Options{{Strategy: "union"}, {Winner: "base"}} {
		if _, _, err := Entry(nil, []byte("a"), []byte("b"), opt); err == nil || !strings.HasPrefix(err.Error(), "merge: ") {
			t.Errorf("Entry with %+v: error %v, want one about the option", opt, err)
		}
	}
}

// TestUnchangedSide checks that a side that changed nothing gives the
// other's bytes, even where a merge would normalize them.
func TestUnchangedSide(t *testing.T) {
	base := []byte("---\ntitle: x\n---\nbody\n")
	x := []byte("---\r\ntitle: 'x'\r\n---\r\nbody\r\nmore")
	for _, strategy := range []Strategy{FieldMerge, AppendOnly, LastWriteWins, Rebuilt} {
		opt := Options{Strategy: strategy}
		for _, in := range [][3][]byte{{base, x, x}, {base, base, x}, {base, x, base}, {nil, x, x}} {
			got, cs, err := Entry(in[0], in[1], in[2], opt)
			if err != nil || !bytes.Equal(got, x) || len(cs) > 0 {
				t.Errorf("%s: Entry(%q, %q, %q) = %q, %v, %v; want the changed side", strategy, in[0], in[1], in[2], got, cs, err)
			}
		}
	}
}
