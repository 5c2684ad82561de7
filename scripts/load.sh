#!/usr/bin/env bash
# Many writers at once on a vault of N entries (scripts/genvault), each load
# beside its anchor in the same run: the same number of shell writers doing
# `printf > file; git add; git commit -q` on a plain git copy of the same
# vault, serialized with flock. Every client of a load is made ready first
# and all are released together (scripts/loadgen). After each ctx0 load the
# vault is checked: every saved token found in the files, one line per save
# in `git log`, `git fsck --strict` and `git status` clean.
#
#   scripts/load.sh [N] [RUNS]      (defaults: 10000 entries, 1 run)
#
# Loads: MCP over HTTP, 128 clients x 5 remembers, and 16 x 20; `ctx0
# remember` processes, 8, 32 and 64 x 5; a mixed load of 16 MCP clients
# alternating remember with search and retrieve, under the default rate
# limits. The throughput loads raise remember.per_vault_per_minute, since
# they measure the write path, not the limit. LOADS picks some by name
# (mcp128 mcp16 proc8 proc32 proc64 mixed16). BEFORE=path/to/ctx0 runs the
# process loads with that binary too (a build of an earlier commit), so a
# change is measured against what it changes in the same run. WATCH=1 runs
# each process load with `ctx0 index --watch` running for its vault (the
# BEFORE binary's watcher for its load), to which ctx0 remember hands its
# writes; the watcher's CPU (its start's full check included) is printed.
# Without WATCH=1 the process loads run with no watcher: the script sets
# CTX0_AUTOWATCH=0, or the first ctx0 remember would start one for the
# vault (10,000 entries is over the 5,000 from which ctx0 does). The MCP
# loads run the server's own watcher either way.
set -euo pipefail
export CTX0_AUTOWATCH=0
n=${1:-10000}
runs=${2:-1}
loads=${LOADS:-mcp128 mcp16 proc8 proc32 proc64 mixed16}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=
watcher=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null && wait "$watcher" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/ctx0" "$root/cmd/ctx0"
go build -o "$work/loadgen" "$root/scripts/loadgen"
go build -o "$work/genvault" "$root/scripts/genvault"
# The writers run in a home of their own (after the builds, which use the
# real one's Go caches).
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home
export GIT_AUTHOR_NAME=load GIT_AUTHOR_EMAIL=load@example.com GIT_COMMITTER_NAME=load GIT_COMMITTER_EMAIL=load@example.com
mkdir -p "$HOME"
"$work/genvault" -n "$n" "$work/base" >/dev/null
# Warm once (the index, git's stat cache), as a user's vault would be.
"$work/ctx0" --vault "$work/base" remember "Warm up the index." >/dev/null
git -C "$work/base" status --porcelain >/dev/null

# fresh DIR [limits]: a copy of the vault; with "raised", a per-vault limit
# the throughput loads do not reach.
fresh() {
	rm -rf "$1"
	cp -a "$work/base" "$1"
	if [ "${2:-}" = raised ]; then
		sed -i 's/^  per_vault_per_minute: .*/  per_vault_per_minute: 100000/' "$1/.ctx0/config.yaml"
		grep -q 'per_vault_per_minute: 100000' "$1/.ctx0/config.yaml" ||
			printf 'remember:\n  per_vault_per_minute: 100000\n' >>"$1/.ctx0/config.yaml"
		git -C "$1" commit -qam "raise the limit for the load"
	fi
}

# check DIR TAG SAVES: the vault holds every save, once, soundly.
check() {
	local dir=$1 tag=$2 saves=$3 found lines fsck status
	found=$(grep -rl --include='*.md' "token $tag-" "$dir" | wc -l)
	lines=$(git -C "$dir" log --format=%B | grep -c '^remember knowledge/.*' || true)
	lines=$((lines - $(git -C "$work/base" log --format=%B | grep -c '^remember knowledge/.*' || true)))
	git -C "$dir" fsck --strict >/dev/null 2>&1 && fsck=clean || fsck=FAILED
	status=$(git -C "$dir" status --porcelain | wc -l)
	echo "    check: $found of $saves saves in the files, $lines lines in git log, fsck $fsck, git status $status lines"
}

# serve DIR: ctx0's MCP server over HTTP on the vault, with room for every
# client's session (the default is 64); sets url.
serve() {
	"$work/ctx0" --vault "$1" mcp --http 127.0.0.1:0 --max-sessions 256 2>"$work/server.err" &
	server=$!
	url=
	for _ in $(seq 1 200); do
		url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/server.err" || true)
		[ -n "$url" ] && break
		sleep 0.05
	done
	[ -n "$url" ] || { cat "$work/server.err"; exit 1; }
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; server=; }

# startwatch BIN DIR: with WATCH=1, BIN's index watcher for DIR, once it
# answers on its socket.
startwatch() {
	[ -n "${WATCH:-}" ] || return 0
	"$1" --vault "$2" index --watch >/dev/null 2>&1 &
	watcher=$!
	until [ -S "$2/.ctx0/index.db-sock" ]; do sleep 0.05; done
}
# stopwatch prints the watcher's CPU and stops it.
stopwatch() {
	[ -n "$watcher" ] || return 0
	echo "    watcher CPU: $(awk -v t="$(getconf CLK_TCK)" '{printf "%.2f s", ($14 + $15) / t}' "/proc/$watcher/stat")"
	kill "$watcher"
	wait "$watcher" 2>/dev/null || true
	watcher=
}

# anchor CLIENTS CALLS: the git + flock writers on a plain copy.
anchor() {
	fresh "$work/anchor"
	"$work/loadgen" proc -clients "$1" -n "$2" -- sh -c \
		'cd "$0" && flock .git/anchor.lock sh -c "printf \"anchor {c} {i}: token anchor-{c}-{i}.\n\" >knowledge/anchor-{c}-{i}.md && git add knowledge/anchor-{c}-{i}.md && git commit -q -m \"add knowledge/anchor-{c}-{i}\""' \
		"$work/anchor"
}

mcpload() { # CLIENTS CALLS TAG [mix]
	local limits=raised mix=
	if [ "${4:-}" = mix ]; then limits= mix=-mix; fi
	fresh "$work/v" $limits
	serve "$work/v"
	out=$("$work/loadgen" mcp -url "$url" -clients "$1" -n "$2" -tag "$3" $mix)
	stop
	echo "  ctx0:   $out"
	check "$work/v" "$3" "$(sed 's/.*saves=\([0-9]*\).*/\1/' <<<"$out")"
}

procload() { # CLIENTS CALLS TAG
	if [ -n "${BEFORE:-}" ]; then
		fresh "$work/v" raised
		startwatch "$BEFORE" "$work/v"
		out=$("$work/loadgen" proc -clients "$1" -n "$2" -- "$BEFORE" --vault "$work/v" remember \
			"Process {c} learned fact {i} in $3b run: token $3b-{c}-{i}.")
		echo "  before: $out"
		stopwatch
		check "$work/v" "$3b" "$(sed 's/.*saves=\([0-9]*\).*/\1/' <<<"$out")"
	fi
	fresh "$work/v" raised
	startwatch "$work/ctx0" "$work/v"
	out=$("$work/loadgen" proc -clients "$1" -n "$2" -- "$work/ctx0" --vault "$work/v" remember \
		"Process {c} learned fact {i} in $3 run: token $3-{c}-{i}.")
	echo "  ctx0:   $out"
	stopwatch
	check "$work/v" "$3" "$(sed 's/.*saves=\([0-9]*\).*/\1/' <<<"$out")"
	echo "    commits: $(($(git -C "$work/v" rev-list --count HEAD) - $(git -C "$work/base" rev-list --count HEAD) - 1)) for $1 x $2 processes"
}

echo "entries=$n runs=$runs $(nproc) cores, commit $(git -C "$root" rev-parse --short HEAD)"
mode="with no watcher (CTX0_AUTOWATCH=0)"
[ -z "${WATCH:-}" ] || mode="with ctx0 index --watch running (WATCH=1)"
echo "mode: process loads $mode; MCP loads with the server's own watcher"
for run in $(seq 1 "$runs"); do
	for l in $loads; do
		echo "$l (run $run, load average $(cut -d' ' -f1-3 /proc/loadavg)):"
		case $l in
		mcp128) mcpload 128 5 m128r$run; echo "  anchor: $(anchor 128 5)" ;;
		mcp16) mcpload 16 20 m16r$run; echo "  anchor: $(anchor 16 20)" ;;
		proc8) procload 8 5 p8r$run; echo "  anchor: $(anchor 8 5)" ;;
		proc32) procload 32 5 p32r$run; echo "  anchor: $(anchor 32 5)" ;;
		proc64) procload 64 5 p64r$run; echo "  anchor: $(anchor 64 5)" ;;
		mixed16) mcpload 16 21 x16r$run mix ;;
		*) echo "unknown load $l" >&2; exit 2 ;;
		esac
	done
done
