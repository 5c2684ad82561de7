#!/usr/bin/env bash
# Index and search benchmark, whole process, against the fastest honest
# baselines in the same run: a bare FTS5 bulk insert of the same files
# (scripts/bench-fts-baseline) for the rebuild, ripgrep for search, and for
# the full check (no watcher) a process that only lists every folder and
# stats every file (scripts/bench-stat-floor). Prints
# medians; see BENCHMARKS.md ("Index and search") for the figures.
#
#   scripts/bench-index.sh [N] [RUNS] [VAULT]
#
# N entries of about 4 KB (default 100000) are generated with
# scripts/genvault unless VAULT names a vault it made before (it is then
# used as it is: the script rebuilds its index and appends to one entry).
# RUNS (default 3) is the number of rebuilds; searches run 5 times RUNS.
#
# Modes: sections 1 to 3 measure with no watcher at all (the full check):
# the script sets CTX0_AUTOWATCH=0, or the first read of a vault this big
# would start one (see scripts/bench-autowatch.sh for that); section 4
# starts `ctx0 index --watch` itself.
set -euo pipefail
export CTX0_AUTOWATCH=0
n=${1:-100000}
runs=${2:-3}
vault=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
watcher=
cleanup() {
	if [ -n "$watcher" ]; then kill "$watcher" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
command -v rg >/dev/null || { echo "bench-index: ripgrep (rg) is not installed: apt-get install -y ripgrep" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-index: /usr/bin/time is not installed: apt-get install -y time" >&2; exit 1; }

(cd "$root" && go build -o "$work/ctx0" ./cmd/ctx0 && go build -o "$work/baseline" ./scripts/bench-fts-baseline &&
	go build -o "$work/statfloor" ./scripts/bench-stat-floor)
if [ -z "$vault" ]; then
	vault="$work/vault"
	(cd "$root" && go run ./scripts/genvault -n "$n" -size 4000 "$vault")
fi
ctx0() { "$work/ctx0" --vault "$vault" "$@"; }
source "$(dirname "$0")/lib.sh"
ms() { echo "scale=1; $1/1000000" | bc; }
entries=$(find "$vault" -name '*.md' -not -path '*/.*' | wc -l)
echo "vault $vault: $entries files, $(du -sh --exclude=.git "$vault" | cut -f1); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mode: no watcher (CTX0_AUTOWATCH=0), until the section that starts ctx0 index --watch"

# 1. Full rebuild against the bare FTS5 insert, alternating; wall time and
# peak memory (maximum resident set size) of each whole process.
: >"$work/rebuild.t"; : >"$work/rebuild.m"; : >"$work/base.t"; : >"$work/base.m"; : >"$work/base.split"
ctx0 index >/dev/null 2>&1 # an index to rebuild, files in the page cache
for i in $(seq 1 "$runs"); do
	/usr/bin/time -f "%e %M" -o "$work/time" "$work/ctx0" --vault "$vault" index --rebuild >/dev/null
	read -r s m <"$work/time"; echo "$s" >>"$work/rebuild.t"; echo "$m" >>"$work/rebuild.m"
	/usr/bin/time -f "%e %M" -o "$work/time" "$work/baseline" "$vault" "$work/base.db" >>"$work/base.split"
	read -r s m <"$work/time"; echo "$s" >>"$work/base.t"; echo "$m" >>"$work/base.m"
	rm -f "$work/base.db"
done
rb=$(median <"$work/rebuild.t"); bt=$(median <"$work/base.t")
echo "rebuild (ctx0 index --rebuild)      median ${rb} s   peak $(( $(sort -n "$work/rebuild.m" | tail -1) / 1024 )) MB"
echo "bare FTS5 insert (read + insert)    median ${bt} s   peak $(( $(sort -n "$work/base.m" | tail -1) / 1024 )) MB   ($(tail -1 "$work/base.split"))"
echo "ratio rebuild / bare insert         $(echo "scale=2; $rb/$bt" | bc)"

# 2. and 3. The full check (no watcher runs), whole process: ctx0 index
# after one file changed, ctx0 search, beside the floor of any check that
# trusts no watcher (scripts/bench-stat-floor: list every folder and stat
# every file, nothing else; and its stats alone, the names read from one
# file as the full check reads a folder's names from the index when the
# folder's mtime has not moved), process start, and rg, alternating so that
# the load of the machine falls on all of them alike.
queries=(deploy kafka sarah rollback critical postgres canary roadmap "staging deploy" "merge review")
f=$(find "$vault/knowledge" -name '*.md' -print -quit)
: >"$work/one.t"; : >"$work/full.t"; : >"$work/floor.t"; : >"$work/stats.t"; : >"$work/start.t"; : >"$work/rgfull.t"
"$work/statfloor" -save "$work/names.list" "$vault" >/dev/null
for i in $(seq 1 $((runs * 5))); do
	q=${queries[$((i % ${#queries[@]}))]}
	echo "Edited again, take $i." >>"$f"
	stamp t0; ctx0 index >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/one.t"
	stamp t0; ctx0 search "$q" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/full.t"
	stamp t0; "$work/statfloor" "$vault" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/floor.t"
	stamp t0; "$work/statfloor" -names "$work/names.list" "$vault" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/stats.t"
	stamp t0; "$work/ctx0" --help >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/start.t"
	stamp t0; rg -l -i -F -- "$q" "$vault" >/dev/null || true; stamp t1; echo $((t1 - t0)) >>"$work/rgfull.t"
done
fl=$(median <"$work/floor.t"); nw=$(median <"$work/full.t"); rf=$(median <"$work/rgfull.t")
echo "ctx0 index after one file changed   median $(ms "$(median <"$work/one.t")") ms (full check)"
echo "ctx0 search, no watcher             median $(ms "$nw") ms (full check: stat of every file)"
echo "floor: list + stat every file       median $(ms "$fl") ms (scripts/bench-stat-floor, whole process)"
echo "floor: stat every file, no listing   median $(ms "$(median <"$work/stats.t")") ms (bench-stat-floor -names)"
echo "process start (ctx0 --help)         median $(ms "$(median <"$work/start.t")") ms"
echo "rg -l -i -F, same queries           median $(ms "$rf") ms"
echo "ratio rg / ctx0 search, no watcher  $(echo "scale=2; $rf/$nw" | bc)   (rg / floor: $(echo "scale=2; $rf/$fl" | bc))"

echo "mode: ctx0 index --watch, started by this script"
"$work/ctx0" --vault "$vault" index --watch >"$work/watch.log" 2>&1 &
watcher=$!
until grep -q "watching" "$work/watch.log"; do
	kill -0 "$watcher" 2>/dev/null || { cat "$work/watch.log" >&2; exit 1; }
	sleep 0.2
done
: >"$work/search.t"; : >"$work/rg.t"
for i in $(seq 1 $((runs * 5))); do
	for q in "${queries[@]}"; do
		stamp t0; ctx0 search "$q" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/search.t"
	done
done
for i in $(seq 1 "$runs"); do
	for q in "${queries[@]}"; do
		stamp t0; rg -l -i -F -- "$q" "$vault" >/dev/null || true; stamp t1; echo $((t1 - t0)) >>"$work/rg.t"
	done
done
s=$(median <"$work/search.t"); r=$(median <"$work/rg.t")
echo "ctx0 search, watcher running        median $(ms "$s") ms (watcher check: sync + folder mtimes)"
echo "rg -l -i -F over the same files     median $(ms "$r") ms"
echo "ratio rg / ctx0 search              $(echo "scale=1; $r/$s" | bc)"
kill "$watcher"; wait "$watcher" 2>/dev/null || true; watcher=

# 4. In process: a mix of 100 queries (Go benchmark).
(cd "$root" && CTX0_BENCH_VAULT="$vault" go test ./index -run '^$' -bench BenchmarkSearch -benchtime "${runs}x" | grep Benchmark)
