#!/usr/bin/env bash
# Retrieval evaluation: how often ctx0 search (entries), search --sessions
# and retrieve find the evidence of questions typed as people ask them,
# side by side with a plain BM25 over the same texts in the same run, with
# and without the offline librarian's entries. See BENCHMARKS.md
# ("Retrieval quality") and eval/retrievaleval.
#
#   scripts/eval-retrieval.sh [labelled|answers|synthetic|all] [SEED] [WORK] [FLAG...]
#
# labelled: the questions of eval/retrievaleval/testdata/questions.json
# over the real transcripts in transcript/testdata of Claude Code and
# Codex; answers: those of eval/retrievaleval/testdata/answers.json over
# the real transcripts of all four agents; synthetic:
# long multi-session conversations with planted facts, generated from SEED
# (default 1). Prints Markdown tables. With WORK, the vaults are set up
# in that folder and kept, and a later run with the same WORK asks the
# questions of them again without setting them up (to measure a change
# to how questions are answered). FLAGs go to the evaluation, e.g.
# -answer-misses to print the bundles that miss an answer BM25's turns or
# its top session hold.
set -euo pipefail
set_=${1:-all}
seed=${2:-1}
keep=${3:+$(realpath -m "$3")}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/ctx0" ./cmd/ctx0)
cd "$root"
go run ./eval/retrievaleval/cmd -ctx0 "$work/ctx0" -repo "$root" -set "$set_" -seed "$seed" -work "$keep" "${@:4}"
