#!/usr/bin/env bash
# The redactor against its corpus (redact/testdata/corpus.txtar) and
# against gitleaks on the same corpus, and its speed against the redactor of
# a base commit, in the same run. Not part of CI: it builds gitleaks from the
# Go module proxy.
#   recall / false positives of: ctx0 at BASE, ctx0 now, gitleaks v8.30.1
#   speed: the benchmarks of redact/bench_test.go, BASE and now alternating,
#   RUNS times each; medians of the CPU time per operation (the machine may
#   be shared: wall time would measure the queue) and their ratio
#
#   scripts/bench-redact.sh [BASE] [RUNS]   (defaults: d51dc9e, the commit
#                                           before gitleaks' rules; 5 runs)
set -euo pipefail
base=${1:-d51dc9e}
runs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

# The base commit's redactor, with today's corpus, scorer and benchmarks.
mkdir "$work/base"
git archive "$base" | tar -x -C "$work/base"
rm -rf "$work/base/redact/redacttest" "$work/base/redact/testdata"
cp -r redact/redacttest redact/testdata redact/bench_test.go redact/cputime_*_test.go "$work/base/redact/"
mkdir -p "$work/base/scripts"
cp -r scripts/redactscore "$work/base/scripts/"

echo "== recall and false positives"
(cd "$work/base" && go run ./scripts/redactscore -label "ctx0 at $base")
go run ./scripts/redactscore -label "ctx0 now"
go run ./scripts/redactscore -write "$work/corpus"
(cd "$work" && go run github.com/zricethezav/gitleaks/v8@v8.30.1 dir corpus \
	--no-banner --log-level error --report-format json --report-path gitleaks.json --exit-code 0)
go run ./scripts/redactscore -label "gitleaks v8.30.1" -gitleaks "$work/gitleaks.json"

echo "== speed: CPU time per operation (median of $runs runs; ratio now/base)"
(cd "$work/base" && go test -c -o "$work/base.test" ./redact)
go test -c -o "$work/now.test" ./redact
bench='^Benchmark(Plain|Prose|Corpus)$'
for i in $(seq "$runs"); do
	(cd "$work/base/redact" && "$work/base.test" -test.run '^$' -test.bench "$bench" -test.benchtime 20x) >>"$work/base.out"
	(cd redact && "$work/now.test" -test.run '^$' -test.bench "$bench" -test.benchtime 20x) >>"$work/now.out"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cpu() { grep "^Benchmark$1-" "$2" | awk '{for (i = 1; i < NF; i++) if ($(i+1) == "cpu-ns/op") print $i}' | median; }
for b in Plain Prose Corpus; do
	bo=$(cpu "$b" "$work/base.out")
	no=$(cpu "$b" "$work/now.out")
	printf '%-7s base %12.0f cpu-ns/op   now %12.0f cpu-ns/op   now/base %.2f\n' "$b" "$bo" "$no" "$(echo "$no / $bo" | bc -l)"
done
