#!/usr/bin/env bash
# Whole-process export benchmark on a synthetic vault of N entries, against
# `cp -r` of the same entry files as the floor, in the same run, alternating
# so machine noise hits both alike. Prints medians in ms:
#   full      ctx0 export into a new folder   vs  cp -r of the entries into a new folder
#   one       ctx0 export again after one entry changed (edited in the work tree)
#   none      ctx0 export again with nothing changed
#
#   scripts/bench-export.sh [N] [RUNS]      (defaults: 10000 entries, 7 runs)
set -euo pipefail
n=${1:-10000}
runs=${2:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/ctx0" "$root/cmd/ctx0"
go run "$root/scripts/genvault" -n "$n" "$work/vault" >/dev/null
v="$work/vault"
export CTX0_VAULT="$v"
# Warm up once, as a user's vault would be: the index is built, the files
# are in the page cache.
"$work/ctx0" export -o "$work/warm" >/dev/null 2>&1
rm -rf "$work/warm"

source "$(dirname "$0")/lib.sh"
ms() { echo $((($2 - $1) / 1000000)); }

: >"$work/full.t"; : >"$work/cp.t"; : >"$work/one.t"; : >"$work/none.t"
files=("$v"/knowledge/*.md)
one=${files[0]}
for i in $(seq 1 "$runs"); do
	rm -rf "$work/out" "$work/copy"
	stamp t0; "$work/ctx0" export -o "$work/out" >/dev/null; stamp t1
	ms "$t0" "$t1" >>"$work/full.t"

	stamp t0; mkdir "$work/copy" && cp -r "$v"/* "$work/copy/"; stamp t1
	ms "$t0" "$t1" >>"$work/cp.t"

	echo "Benchmark edit $i." >>"$one"
	stamp t0; "$work/ctx0" export -o "$work/out" >"$work/one.out"; stamp t1
	ms "$t0" "$t1" >>"$work/one.t"

	stamp t0; "$work/ctx0" export -o "$work/out" >"$work/none.out"; stamp t1
	ms "$t0" "$t1" >>"$work/none.t"
done

printf 'entries=%s runs=%s files exported=%s\n' "$n" "$runs" "$(find "$work/out" -type f | wc -l)"
printf 'ctx0 export, full, new folder     median %6s ms\n' "$(median <"$work/full.t")"
printf 'cp -r of the entries (floor)      median %6s ms\n' "$(median <"$work/cp.t")"
printf 'ctx0 export, one entry changed    median %6s ms   (%s)\n' "$(median <"$work/one.t")" "$(head -1 "$work/one.out")"
printf 'ctx0 export, nothing changed      median %6s ms   (%s)\n' "$(median <"$work/none.t")" "$(head -1 "$work/none.out")"
