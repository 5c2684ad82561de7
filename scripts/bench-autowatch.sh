#!/usr/bin/env bash
# What a user who never starts a watcher gets, whole process: ctx0 starts
# one by itself on the first read of a big vault (5,000 entries or more).
# Mode: the automatic watcher (CTX0_AUTOWATCH unset), from no watcher at
# all. Each of ROUNDS rounds
#   1. stops the watcher, if one runs, and forgets the last start (the
#      30 s between two starts), so the vault is as a user's with none;
#   2. times a search with the off switch (CTX0_AUTOWATCH=0: the full check
#      alone, as before), then the first `ctx0 search` (the full check, and
#      the start of the watcher in the background, which it does not wait
#      for);
#   3. waits until the watcher answers on .ctx0/index.db-sock (its own
#      full check first), and times that from the end of the search;
#   4. runs RUNS searches, each beside rg with the same query and the stat
#      floor (scripts/bench-stat-floor), alternating;
#   5. appends a new word to an existing entry (an edit in place, which no
#      folder's mtime shows) and times `ctx0 search WORD` until it exits,
#      which must find it, RUNS times.
# Prints medians and the load average; see BENCHMARKS.md ("A watcher
# started by a command").
#
#   scripts/bench-autowatch.sh VAULT [ROUNDS] [RUNS]   (defaults: 3 rounds, 10 runs)
#
# VAULT is a vault made by scripts/genvault, indexed or not; the script
# appends lines to one entry of knowledge/.
set -euo pipefail
vault=${1:?usage: bench-autowatch.sh VAULT [ROUNDS] [RUNS]}
rounds=${2:-3}
runs=${3:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
source "$(dirname "$0")/lib.sh"
ms() { echo "scale=1; $1/1000000" | bc; }
command -v rg >/dev/null || { echo "bench-autowatch: ripgrep (rg) is not installed" >&2; exit 1; }

# stopwatcher stops the vault's watcher, if one runs, and waits until it
# is gone.
stopwatcher() {
	local pid
	pid=$(cut -d' ' -f1 "$vault/.ctx0/index.db-watch" 2>/dev/null || true)
	if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
		while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
	fi
	rm -f "$vault/.ctx0/state/autowatch.json"
}
trap 'stopwatcher; rm -rf "$work"' EXIT

CGO_ENABLED=0 go build -o "$work/ctx0" "$root/cmd/ctx0"
go build -o "$work/statfloor" "$root/scripts/bench-stat-floor"
ctx0() { "$work/ctx0" --vault "$vault" "$@"; }
stopwatcher
CTX0_AUTOWATCH=0 ctx0 index >/dev/null 2>&1
entries=$(find "$vault" -name '*.md' -not -path '*/.*' | wc -l)
echo "vault $vault: $entries files; commit $(git -C "$root" rev-parse --short HEAD); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mode: no watcher at first; the first search starts one (CTX0_AUTOWATCH unset)"

queries=(deploy kafka sarah rollback critical postgres canary roadmap "staging deploy" "merge review")
f=$(find "$vault/knowledge" -name '*.md' -print -quit)
fname=${f#"$vault"/}
fname=${fname%.md}
for t in off first up search rg floor edit; do : >"$work/$t.t"; done
for r in $(seq 1 "$rounds"); do
	stopwatcher
	q=${queries[$((r % ${#queries[@]}))]}
	stamp t0; CTX0_AUTOWATCH=0 ctx0 search "$q" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/off.t"
	[ ! -e "$vault/.ctx0/state/autowatch.json" ] || { echo "bench-autowatch: CTX0_AUTOWATCH=0 started a watcher" >&2; exit 1; }
	stamp t0; ctx0 search "$q" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/first.t"
	for _ in $(seq 1 3000); do
		[ -S "$vault/.ctx0/index.db-sock" ] && break
		sleep 0.01
	done
	[ -S "$vault/.ctx0/index.db-sock" ] || { echo "bench-autowatch: no watcher after 30 s" >&2; cat "$vault/.ctx0/state/autowatch.log" >&2; exit 1; }
	stamp t2; echo $((t2 - t1)) >>"$work/up.t"
	for i in $(seq 1 "$runs"); do
		q=${queries[$((i % ${#queries[@]}))]}
		stamp t0; ctx0 search "$q" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/search.t"
		stamp t0; rg -l -i -F -- "$q" "$vault" >/dev/null || true; stamp t1; echo $((t1 - t0)) >>"$work/rg.t"
		stamp t0; "$work/statfloor" "$vault" >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/floor.t"
	done
	for i in $(seq 1 "$runs"); do
		edit_and_find bench-autowatch "zqauto${r}x${i}x$RANDOM" "$f" "$fname" "$work/edit.t"
	done
	echo "round $r: watcher pid $(cut -d' ' -f1 "$vault/.ctx0/index.db-watch"), $(cut -d' ' -f3- "$vault/.ctx0/index.db-watch"); load $(cut -d' ' -f1-3 /proc/loadavg)"
done
s=$(median <"$work/search.t"); r=$(median <"$work/rg.t"); fl=$(median <"$work/floor.t")
echo "ctx0 search, CTX0_AUTOWATCH=0, no watcher (full)   median $(ms "$(median <"$work/off.t")") ms of $rounds"
echo "first ctx0 search (full check; starts the watcher)  median $(ms "$(median <"$work/first.t")") ms of $rounds"
echo "then the watcher answers, after the search          median $(ms "$(median <"$work/up.t")") ms of $rounds"
echo "ctx0 search, the automatic watcher running          median $(ms "$s") ms of $((rounds * runs))"
echo "rg -l -i -F, same queries                           median $(ms "$r") ms"
echo "floor: list + stat every file                       median $(ms "$fl") ms"
echo "ratio rg / ctx0 search                              $(echo "scale=1; $r/$s" | bc)   (rg / floor: $(echo "scale=2; $r/$fl" | bc))"
echo "edit in place -> ctx0 search finds it               median $(ms "$(median <"$work/edit.t")") ms of $((rounds * runs))"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
