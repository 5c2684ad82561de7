#!/usr/bin/env bash
# Whole-process write benchmark: `ctx0 remember` against the git binary's
# `git add FILE && git commit` on twin synthetic vaults of N entries, in the
# same run, alternating so machine noise hits both alike. Prints medians of
# the wall time and of the CPU time (user and system, of the processes and
# their children): on a shared machine the CPU time moves less with the
# load than the wall time does.
#
#   scripts/bench-write.sh [N] [RUNS] [DIR]   (defaults: 10000 entries, 30 runs)
#
# DIR, a vault made by `go run ./scripts/genvault -n N DIR`, is copied
# instead of generating one (at 100,000 entries that takes minutes).
#
# BASE=path/to/another/ctx0 also runs that binary (say, a build of an older
# commit, built as this one is: CGO_ENABLED=0 go build) on a third twin
# vault in the same loop, for before/after figures.
#
# WATCH=1 runs `ctx0 index --watch` for the ctx0 vault (and BASE's for its
# vault) throughout, as a user who keeps the watcher running would: ctx0
# remember then hands its write to the watcher. The watcher's own CPU is
# printed beside (its mean a write, from /proc: it is no child of this
# shell, so the CPU column does not hold it). Without WATCH=1 no watcher
# runs: the script sets CTX0_AUTOWATCH=0, or the first write to a vault of
# 5,000 entries or more would start one (as ctx0 does for a user who
# never started one), and the writes after it would be handed to it.
# AUTO=1 measures that: the warm-up write starts the watcher, and the
# timed writes are handed to it.
set -euo pipefail
[ -n "${AUTO:-}" ] || export CTX0_AUTOWATCH=0
n=${1:-10000}
runs=${2:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Built as the README installs it: static, without C (CGO_ENABLED=0).
CGO_ENABLED=0 go build -o "$work/ctx0" "$root/cmd/ctx0"
if [ -n "${3:-}" ]; then
	cp -r "$3" "$work/ctx0-vault"
else
	go run "$root/scripts/genvault" -n "$n" "$work/ctx0-vault"
fi
cp -r "$work/ctx0-vault" "$work/git-vault"
base=${BASE:-}
if [ -n "$base" ]; then cp -r "$work/ctx0-vault" "$work/base-vault"; "$base" --vault "$work/base-vault" remember "warm up" >/dev/null; fi
source "$(dirname "$0")/lib.sh"

watchers=()
stop_watchers() { for p in "${watchers[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done; }
trap 'stop_watchers; rm -rf "$work"' EXIT
# watch BIN VAULT starts BIN's watcher of VAULT and waits until it answers.
watch() {
	"$1" --vault "$2" index --watch >/dev/null 2>&1 &
	watchers+=("$!")
	until [ -S "$2/.ctx0/index.db-sock" ]; do sleep 0.05; done
}
# ticks prints the CPU time, user and system, in clock ticks, of process $1.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
if [ -n "${WATCH:-}" ]; then
	echo "mode: ctx0 index --watch running (WATCH=1): ctx0 remember hands its write to it"
elif [ -n "${AUTO:-}" ]; then
	echo "mode: the watcher the first ctx0 remember starts by itself (AUTO=1): the next ones hand their writes to it"
else
	echo "mode: no watcher (CTX0_AUTOWATCH=0): each ctx0 remember makes its write itself"
fi
if [ -n "${WATCH:-}" ]; then
	watch "$work/ctx0" "$work/ctx0-vault"
	[ -z "$base" ] || watch "$base" "$work/base-vault"
fi

# Warm both vaults once (the index, git's stat cache), as a user's would be.
"$work/ctx0" --vault "$work/ctx0-vault" remember "warm up" >/dev/null
if [ -n "${AUTO:-}" ]; then
	until [ -S "$work/ctx0-vault/.ctx0/index.db-sock" ]; do sleep 0.05; done
	auto=$(cut -d' ' -f1 "$work/ctx0-vault/.ctx0/index.db-watch")
	trap 'kill "$auto" 2>/dev/null; stop_watchers; rm -rf "$work"' EXIT
fi
git -C "$work/git-vault" status --porcelain >/dev/null
if [ -n "${WATCH:-}" ]; then
	w0=$(ticks "${watchers[0]}")
	[ -z "$base" ] || b0=$(ticks "${watchers[1]}")
fi

: >"$work/ctx0.t"
: >"$work/git.t"
: >"$work/base.t"
: >"$work/ctx0.c"
: >"$work/git.c"
: >"$work/base.c"
for i in $(seq 1 "$runs"); do
	text="Benchmark memory number $i: the deploy key for staging $RANDOM lives in the vault."
	cputime c0 "$work/times"
	stamp t0
	"$work/ctx0" --vault "$work/ctx0-vault" remember "$text" >/dev/null
	stamp t1
	cputime c1 "$work/times"
	echo $(((t1 - t0) / 1000)) >>"$work/ctx0.t"
	echo $((c1 - c0)) >>"$work/ctx0.c"
	if [ -n "$base" ]; then
		cputime c0 "$work/times"
		stamp t0
		"$base" --vault "$work/base-vault" remember "$text" >/dev/null
		stamp t1
		cputime c1 "$work/times"
		echo $(((t1 - t0) / 1000)) >>"$work/base.t"
		echo $((c1 - c0)) >>"$work/base.c"
	fi

	f="knowledge/bench-$i.md"
	printf -- '---\ntitle: bench %s\ntype: fact\n---\n%s\n' "$i" "$text" >"$work/git-vault/$f"
	cputime c0 "$work/times"
	stamp t0
	(cd "$work/git-vault" && git add "$f" && git -c user.name=b -c user.email=b@b commit -q -m "add $f")
	stamp t1
	cputime c1 "$work/times"
	echo $(((t1 - t0) / 1000)) >>"$work/git.t"
	echo $((c1 - c0)) >>"$work/git.c"
done

if [ -n "${WATCH:-}" ]; then
	w1=$(ticks "${watchers[0]}")
	printf 'watcher running (WATCH=1); its CPU, mean a write: %.1f ms\n' "$(echo "($w1 - $w0) * 1000 / $(getconf CLK_TCK) / $runs" | bc -l)"
	if [ -n "$base" ]; then
		b1=$(ticks "${watchers[1]}")
		printf "BASE's watcher CPU, mean a write: %.1f ms\n" "$(echo "($b1 - $b0) * 1000 / $(getconf CLK_TCK) / $runs" | bc -l)"
	fi
fi
c=$(median <"$work/ctx0.t")
g=$(median <"$work/git.t")
git -C "$work/ctx0-vault" fsck --strict >/dev/null 2>&1 && fsck=clean || fsck=FAILED
printf 'entries=%s runs=%s\n' "$n" "$runs"
printf 'ctx0 remember           median %6.1f ms\n' "$(echo "$c/1000" | bc -l)"
printf 'git add && git commit   median %6.1f ms\n' "$(echo "$g/1000" | bc -l)"
printf 'ratio ctx0/git          %6.2f\n' "$(echo "$c/$g" | bc -l)"
cc=$(median <"$work/ctx0.c")
gc=$(median <"$work/git.c")
printf 'CPU: ctx0 %.1f ms, git %.1f ms, ratio %.2f\n' "$(echo "$cc/1000" | bc -l)" "$(echo "$gc/1000" | bc -l)" "$(echo "$cc/$gc" | bc -l)"
if [ -n "$base" ]; then
	b=$(median <"$work/base.t")
	bc_=$(median <"$work/base.c")
	printf 'BASE remember           median %6.1f ms (ratio to git %.2f), CPU %.1f ms (ratio %.2f)\n' "$(echo "$b/1000" | bc -l)" "$(echo "$b/$g" | bc -l)" "$(echo "$bc_/1000" | bc -l)" "$(echo "$bc_/$gc" | bc -l)"
fi
printf 'load average            %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'git fsck of the ctx0 vault: %s; git status: %s\n' "$fsck" "$(git -C "$work/ctx0-vault" status --porcelain | wc -l) lines"
