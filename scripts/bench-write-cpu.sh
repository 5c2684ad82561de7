#!/usr/bin/env bash
# CPU and page faults of one `ctx0 remember`, whole process, for several
# builds side by side: each build gets a twin copy of the vault DIR (made by
# `go run ./scripts/genvault -n N DIR`) and one warm-up remember, then the
# builds take turns, one remember each, RUNS times. Each remember runs under
# `perf stat` (task-clock: CPU time of the process and its threads, which
# the load of a shared machine moves less than the wall time; page-faults:
# fresh pages touched), and one more is timed by the shell's
# $EPOCHREALTIME. Prints medians, the load average, and git fsck and
# status of every vault afterwards.
#
#   scripts/bench-write-cpu.sh RUNS DIR BUILD...
#
# Build each as the README installs ctx0: CGO_ENABLED=0 go build -o B ./cmd/ctx0
set -euo pipefail
runs=$1
dir=$2
shift 2
command -v perf >/dev/null || { echo "bench-write-cpu: perf is needed" >&2; exit 2; }
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
i=0
for b in "$@"; do
	i=$((i + 1))
	cp -r "$dir" "$work/v$i"
	"$b" --vault "$work/v$i" remember "warm up" >/dev/null 2>&1
	: >"$work/cpu$i"
	: >"$work/faults$i"
	: >"$work/wall$i"
done
# The warm-up's rebuild leaves the copied files' rows unsettled for two
# seconds (their mtimes are new): wait, so no run settles thousands.
sleep 3
for r in $(seq 1 "$runs"); do
	text="Benchmark memory number $r: the deploy key for staging $RANDOM lives in the vault."
	i=0
	for b in "$@"; do
		i=$((i + 1))
		perf stat -x, -e task-clock,page-faults -o "$work/stat" "$b" --vault "$work/v$i" remember "$text" >/dev/null
		awk -F, '/task-clock/ {print $1}' "$work/stat" >>"$work/cpu$i"
		awk -F, '/page-faults/ {print $1}' "$work/stat" >>"$work/faults$i"
		stamp t0
		"$b" --vault "$work/v$i" remember "$text, again" >/dev/null
		stamp t1
		echo $(((t1 - t0) / 1000)) >>"$work/wall$i"
	done
done
printf 'runs=%s vault=%s\n' "$runs" "$dir"
i=0
for b in "$@"; do
	i=$((i + 1))
	printf '%-40s CPU %6.2f ms  page faults %6.0f  wall %6.1f ms\n' "$b" \
		"$(median <"$work/cpu$i")" "$(median <"$work/faults$i")" "$(echo "$(median <"$work/wall$i")/1000" | bc -l)"
done
printf 'load average %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
i=0
for b in "$@"; do
	i=$((i + 1))
	git -C "$work/v$i" fsck --strict >/dev/null 2>&1 && fsck=clean || fsck=FAILED
	printf '%s: git fsck %s, git status %s lines\n' "$b" "$fsck" "$(git -C "$work/v$i" status --porcelain | wc -l)"
done
