package export

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/redact/redacttest"
)

// TestRedactCorpus: entries a person committed by hand with every secret
// of the corpus in them come out of export --redact with none left, in no
// file and no file name, and the near-misses come out as they were.
func TestRedactCorpus(t *testing.T) {
	v := fixture(t)
	secrets, keeps := redacttest.Corpus(t)
	for i, c := range secrets {
		writeFile(t, v, fmt.Sprintf("knowledge/secret-%03d.md", i), "---\ntitle: Secret "+fmt.Sprint(i)+"\ntype: fact\n---\n"+c.Text+"\n")
	}
	var near []string
	for _, c := range keeps {
		near = append(near, c.Text)
	}
	writeFile(t, v, "knowledge/near-misses.md", "---\ntitle: Near misses\ntype: fact\n---\n"+strings.Join(near, "\n\n")+"\n")
	commit(t, v, clock, "by hand")
	out, res := exportTo(t, v, Options{Redact: true})
	if len(res.Redacted) == 0 {
		t.Fatal("export --redact redacted nothing")
	}
	files := readTree(t, out)
	var all strings.Builder
	for p, data := range files {
		all.WriteString(p + "\n" + data + "\n")
	}
	for _, c := range secrets {
		if s := c.Leaks(all.String()); s != "" {
			t.Errorf("%s: the export holds %q", c.Name, s)
		}
	}
	for _, c := range keeps {
		if !strings.Contains(files["knowledge/near-misses.md"], c.Text) {
			t.Errorf("%s: the export changed %q", c.Name, c.Text)
		}
	}
}
