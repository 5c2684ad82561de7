package merge

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the want and conflicts files in testdata/entry")

// TestEntry runs the merges in testdata/entry. Each archive holds the
// files base (absent: added on both sides), ours and theirs, and the
// golden files want and conflicts, which -update rewrites. Its comment
// may set options, one per line: "strategy: append-only", "winner:
// theirs", "ours-label: laptop", "theirs-label: run 7".
func TestEntry(t *testing.T) {
	paths, err := filepath.Glob("testdata/entry/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			opt := options(a.Comment)
			base, ours, theirs := file(a, "base"), file(a, "ours"), file(a, "theirs")
			got, cs, err := Entry(base, ours, theirs, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkMerge(t, base, ours, theirs, opt, got, cs)
			conflicts := []byte{}
			if len(cs) > 0 {
				if conflicts, err = yaml.Marshal(cs); err != nil {
					t.Fatal(err)
				}
			}
			if *update {
				setFile(a, "want", got)
				setFile(a, "conflicts", conflicts)
				if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := file(a, "want"); !bytes.Equal(got, want) {
				t.Errorf("merged:\n%s\nwant:\n%s", got, want)
			}
			if want := file(a, "conflicts"); !bytes.Equal(conflicts, want) {
				t.Errorf("conflicts:\n%s\nwant:\n%s", conflicts, want)
			}
		})
	}
}

func options(comment []byte) Options {
	var opt Options
	for _, l := range strings.Split(string(comment), "\n") {
		k, v, _ := strings.Cut(l, ": ")
		switch k {
		case "strategy":
			opt.Strategy = Strategy(v)
		case "winner":
			opt.Winner = Side(v)
		case "ours-label":
			opt.OursLabel = v
		case "theirs-label":
			opt.TheirsLabel = v
		}
	}
	return opt
}

// file returns the named file of a, nil if there is none.
func file(a *txtar.Archive, name string) []byte {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func setFile(a *txtar.Archive, name string, data []byte) {
	for i, f := range a.Files {
		if f.Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}
