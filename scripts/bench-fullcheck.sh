#!/usr/bin/env bash
# The full check (no watcher) of two ctx0 binaries on one indexed vault,
# alternating with its floors and rg so that the load falls on all alike:
# `ctx0 search` and `ctx0 index` after one edit in place, for BEFORE and
# AFTER; scripts/bench-stat-floor listing every folder and statting every
# file, and statting alone (-names); rg -l -i -F. Wall and CPU (user +
# system) medians in ms. The vault is changed (an entry edited each round):
# use a copy.
#
#	scripts/bench-fullcheck.sh BEFORE AFTER VAULT [ROUNDS]
set -euo pipefail
# The full check is what a read makes with no watcher: the switch keeps
# ctx0 from starting one for this vault (a read of 5,000 entries or more
# would), which would answer every search after the first.
export CTX0_AUTOWATCH=0
before=$1 after=$2 vault=$3 rounds=${4:-15}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ms() { echo "scale=1; $1/1000000" | bc; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here/.." && CGO_ENABLED=0 go build -o "$work/statfloor" ./scripts/bench-stat-floor)
"$work/statfloor" -save "$work/names.list" "$vault" >/dev/null
queries=(deploy kafka sarah rollback critical postgres canary roadmap "staging deploy" "merge review")
f=$(find "$vault/knowledge" -name '*.md' -print -quit)
# A first search of each, which may record what it needs (AFTER: the
# folders' records), outside the timings.
"$before" --vault "$vault" search warmup >/dev/null
"$after" --vault "$vault" search warmup >/dev/null

# run NAME CMD...: time CMD, appending wall and CPU to NAME.w and NAME.c.
run() {
	local name=$1 t0 t1 c0 c1
	shift
	cputime c0 "$work/times"
	stamp t0
	"$@" >/dev/null || true
	stamp t1
	cputime c1 "$work/times"
	echo $((t1 - t0)) >>"$work/$name.w"
	echo $(((c1 - c0) * 1000)) >>"$work/$name.c"
}

echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$rounds"); do
	q=${queries[$((i % ${#queries[@]}))]}
	run search-before "$before" --vault "$vault" search "$q"
	run search-after "$after" --vault "$vault" search "$q"
	run floor-list "$work/statfloor" "$vault"
	run floor-stats "$work/statfloor" -names "$work/names.list" "$vault"
	run rg rg -l -i -F -- "$q" "$vault"
	echo "Edited again, take $i (before)." >>"$f"
	run index-before "$before" --vault "$vault" index
	echo "Edited again, take $i (after)." >>"$f"
	run index-after "$after" --vault "$vault" index
	run start "$after" --help
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in search-before search-after index-before index-after floor-list floor-stats rg start; do
	printf '%-14s wall %8.1f ms  cpu %8.1f ms\n' "$n" "$(ms "$(median <"$work/$n.w")")" "$(ms "$(median <"$work/$n.c")")"
done
r=$(median <"$work/rg.w")
for n in search-before search-after floor-list floor-stats; do
	echo "rg / $n: $(echo "scale=2; $r/$(median <"$work/$n.w")" | bc)"
done
