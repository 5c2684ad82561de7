// Command cmd runs the retrieval evaluation (see package retrievaleval and
// scripts/eval-retrieval.sh): the labelled questions over the repository's
// real transcripts, then a synthetic dataset, each in a vault of its own,
// and prints the measures as Markdown.
//
//	go run ./eval/retrievaleval/cmd -ctx0 BIN [-set labelled|answers|synthetic|all] [-seed N] [-work DIR]
//
// With -work, the vaults are set up in DIR and kept, and a later run with
// the same -work and dataset asks its questions of them without setting
// them up again.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx0/ctx0/eval/retrievaleval"
)

func main() {
	bin := flag.String("ctx0", "", "the ctx0 binary that sets up the vaults (required)")
	set := flag.String("set", "all", "labelled, answers, synthetic or all")
	repo := flag.String("repo", ".", "the repository's root, where the transcripts and questions are")
	keep := flag.String("work", "", "set the vaults up in this folder and keep them; reuse them if set up already")
	o := retrievaleval.DefaultSynth
	flag.Uint64Var(&o.Seed, "seed", o.Seed, "synthetic: random seed (same seed, same dataset)")
	flag.IntVar(&o.People, "people", o.People, "synthetic: people, each with their own sessions")
	flag.IntVar(&o.Sessions, "sessions", o.Sessions, "synthetic: sessions per person")
	flag.IntVar(&o.Turns, "turns", o.Turns, "synthetic: exchanges of small talk per session")
	misses := flag.Bool("answer-misses", false, "print the bundles that miss an answer BM25's turns or top session hold")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "eval-retrieval: -ctx0 BIN is required")
		os.Exit(2)
	}
	if err := run(context.Background(), *bin, *set, *repo, *keep, o, *misses); err != nil {
		fmt.Fprintf(os.Stderr, "eval-retrieval: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bin, set, repo, keep string, o retrievaleval.SynthOptions, misses bool) error {
	var sets []retrievaleval.Dataset
	var dirs []string // each set's folder under keep
	if set == "labelled" || set == "all" {
		qs, err := retrievaleval.LoadQuestions(filepath.Join(repo, "eval/retrievaleval/testdata/questions.json"))
		if err != nil {
			return err
		}
		var files []string
		for _, g := range []string{"claude-code/*.jsonl", "codex/*.jsonl"} {
			m, err := filepath.Glob(filepath.Join(repo, "transcript/testdata", g))
			if err != nil {
				return err
			}
			files = append(files, m...)
		}
		sets = append(sets, retrievaleval.Dataset{Name: "labelled questions over the real transcripts", Files: files, Questions: qs})
		dirs = append(dirs, "labelled")
	}
	if set == "answers" || set == "all" {
		// Questions with their answers over all four agents' real
		// transcripts, the issue's own cases among them.
		qs, err := retrievaleval.LoadQuestions(filepath.Join(repo, "eval/retrievaleval/testdata/answers.json"))
		if err != nil {
			return err
		}
		var files []string
		for _, g := range []string{"claude-code/*.jsonl", "codex/*.jsonl", "gemini/chats/*.json", "cursor/agent-transcripts/*.jsonl"} {
			m, err := filepath.Glob(filepath.Join(repo, "transcript/testdata", g))
			if err != nil {
				return err
			}
			files = append(files, m...)
		}
		sets = append(sets, retrievaleval.Dataset{Name: "questions with answers over the real transcripts of all four agents", Files: files, Questions: qs})
		dirs = append(dirs, "answers")
	}
	if set == "synthetic" || set == "all" {
		sets = append(sets, retrievaleval.Synthesize(o))
		dirs = append(dirs, fmt.Sprintf("synthetic-%d-%d-%d-%d", o.Seed, o.People, o.Sessions, o.Turns))
	}
	if len(sets) == 0 {
		return fmt.Errorf("-set %q: want labelled, answers, synthetic or all", set)
	}
	for i, ds := range sets {
		work := filepath.Join(keep, dirs[i])
		if keep == "" {
			tmp, err := os.MkdirTemp("", "ctx0-eval-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			work = tmp
		}
		start := time.Now()
		rep, err := retrievaleval.Run(ctx, ds, retrievaleval.Options{Ctx0: bin, Work: work, Reuse: keep != ""})
		if err != nil {
			return fmt.Errorf("%s: %w", ds.Name, err)
		}
		rep.ShowAnswerMisses = misses
		rep.Write(os.Stdout)
		fmt.Fprintf(os.Stderr, "%s: %s\n", ds.Name, time.Since(start).Round(time.Second))
	}
	return nil
}
