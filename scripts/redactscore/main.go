// Command redactscore scores a redactor on redact/testdata/corpus.txtar:
// recall (of the secrets the corpus marks, how many none of the output
// holds) and false positives (of the near-misses, how many come out
// changed). It scores ctx0's redactor as built with it, or gitleaks'
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
	// found tells whether the secret s of case c is gone; changed whether
	// the near-miss c came out changed.
	var found func(c redacttest.Case, s string) bool
	var changed func(c redacttest.Case) bool
	if report != "" {
		bySecret, byKeep, err := readReport(report)
		if err != nil {
			return err
		}
		found = func(c redacttest.Case, s string) bool {
			for _, f := range bySecret[fileName(c)] {
				if strings.Contains(f, s) || len(f) >= 8 && strings.Contains(s, f) {
					return true
				}
			}
			return false
		}
		changed = func(c redacttest.Case) bool { return byKeep[fileName(c)] > 0 }
	} else {
		out := map[string]string{}
		for _, c := range append(secrets, keeps...) {
			out[c.Name] = redact.String(c.Text)
		}
		found = func(c redacttest.Case, s string) bool { return !strings.Contains(out[c.Name], s) }
		changed = func(c redacttest.Case) bool { return out[c.Name] != c.Text }
	}
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

// readReport reads a gitleaks JSON report: the secrets found in each
// secret/ file (the match too, for rules whose secret is a part of it),
// and the number of findings in each keep/ file, by file name relative to
// the scanned folder.
func readReport(p string) (map[string][]string, map[string]int, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, err
	}
	var findings []struct {
		File, Secret, Match string
	}
	if err := json.Unmarshal(data, &findings); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	secrets, keeps := map[string][]string{}, map[string]int{}
	for _, f := range findings {
		name := f.File
		if i := strings.Index(name, "secret"+string(filepath.Separator)); i >= 0 {
			name = name[i:]
			secrets[name] = append(secrets[name], f.Secret)
		} else if i := strings.Index(name, "keep"+string(filepath.Separator)); i >= 0 {
			keeps[name[i:]]++
		}
	}
	return secrets, keeps, nil
}
