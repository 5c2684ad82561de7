// Command redactscore scores a redactor on redact/testdata/corpus.txtar:
// recall (of the secrets the corpus marks, how many the output keeps no 8
// bytes of) and false positives (of the near-misses, how many come out
// changed). gitleaks' output is taken to be the text with every secret it
// reports replaced. It scores ctx0's redactor as built with it, or gitleaks'
// findings on the corpus written out as files:
//
//	go run ./scripts/redactscore                       # ctx0's redactor
//	go run ./scripts/redactscore -write DIR            # the corpus as DIR/secret/*.txt, DIR/keep/*.txt
//	go run ./scripts/redactscore -gitleaks REPORT.json # gitleaks' JSON report on DIR
//
// scripts/bench-redact.sh runs all three, and the redactor of a base commit,
// on the same corpus.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/redact/redacttest"
)

func main() {
	corpus := flag.String("corpus", "redact/testdata/corpus.txtar", "the corpus")
	write := flag.String("write", "", "write the corpus as files into this folder and stop")
	report := flag.String("gitleaks", "", "score this gitleaks JSON report (of the folder -write made) instead of ctx0's redactor")
	label := flag.String("label", "ctx0", "the name to print")
	misses := flag.Bool("v", false, "list what was missed and what was changed")
	flag.Parse()
	if err := run(*corpus, *write, *report, *label, *misses); err != nil {
		fmt.Fprintln(os.Stderr, "redactscore:", err)
		os.Exit(1)
	}
}

func fileName(c redacttest.Case) string { return filepath.FromSlash(c.Name) + ".txt" }

func run(corpus, write, report, label string, verbose bool) error {
	data, err := os.ReadFile(corpus)
	if err != nil {
		return err
	}
	secrets, keeps, err := redacttest.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", corpus, err)
	}
	if write != "" {
		for _, c := range append(secrets, keeps...) {
			p := filepath.Join(write, fileName(c))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(c.Text+"\n"), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	// out is each text as the redactor leaves it: ctx0's output, or the
	// text with every secret gitleaks reported replaced.
	out := map[string]string{}
	if report != "" {
		findings, err := readReport(report)
		if err != nil {
			return err
		}
		for _, c := range append(secrets, keeps...) {
			t := c.Text
			for _, f := range findings[fileName(c)] {
				if f != "" {
					t = strings.ReplaceAll(t, f, "[REDACTED]")
				}
			}
			out[c.Name] = t
		}
	} else {
		for _, c := range append(secrets, keeps...) {
			out[c.Name] = redact.String(c.Text)
		}
	}
	// A secret is found when no 8 bytes of it are left (all of it, when
	// shorter), but for bytes its context holds too: a password cut after
	// its first @ counts as missed.
	found := func(c redacttest.Case, s string) bool {
		context := c.Text
		for _, x := range c.Secrets {
			context = strings.ReplaceAll(context, x, "\x00")
		}
		n := min(8, len(s))
		for i := 0; i+n <= len(s); i++ {
			if w := s[i : i+n]; strings.Contains(out[c.Name], w) && !strings.Contains(context, w) {
				return false
			}
		}
		return true
	}
	changed := func(c redacttest.Case) bool { return out[c.Name] != c.Text }
	total, got := 0, 0
	var missed, fps []string
	for _, c := range secrets {
		for _, s := range c.Secrets {
			total++
			if found(c, s) {
				got++
			} else {
				missed = append(missed, c.Name)
			}
		}
	}
	for _, c := range keeps {
		if changed(c) {
			fps = append(fps, c.Name)
		}
	}
	fmt.Printf("%-16s recall %d/%d (%.1f%%) of the secrets in %d texts; false positives %d/%d near-misses\n", label, got, total, 100*float64(got)/float64(total), len(secrets), len(fps), len(keeps))
	if verbose {
		sort.Strings(missed)
		fmt.Printf("  missed: %s\n  changed: %s\n", strings.Join(missed, " "), strings.Join(fps, " "))
	}
	return nil
}

// readReport reads a gitleaks JSON report: the secrets found in each file,
// by file name relative to the scanned folder.
func readReport(p string) (map[string][]string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var findings []struct {
		File, Secret string
	}
	if err := json.Unmarshal(data, &findings); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	out := map[string][]string{}
	for _, f := range findings {
		for _, top := range []string{"secret", "keep"} {
			if i := strings.Index(f.File, top+string(filepath.Separator)); i >= 0 {
				out[f.File[i:]] = append(out[f.File[i:]], f.Secret)
			}
		}
	}
	return out, nil
}
