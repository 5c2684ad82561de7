#!/usr/bin/env bash
# Index catch-up with the watcher running, whole process: how long after
# another program writes a file the index holds it. With `ctx0 index
# --watch` running on VAULT, each run
#   1. writes a new entry with a word found nowhere else (printf, as any
#      editor or script would) and times until the watcher reports the
#      batch that indexed it (its report line, stamped as it is read), then
#      checks that `ctx0 search WORD` finds it;
#   2. writes another new entry and runs `ctx0 search` for its word at once:
#      the time from before the write to the search's exit, the search
#      syncing with the watcher (which indexes what it has heard of);
#   3. appends a new word to an existing entry (an edit in place, which no
#      folder's mtime shows) and does the same.
# Every search must find its word; the script fails otherwise. Prints
# medians; see BENCHMARKS.md ("Index catch-up with the watcher").
#
#   scripts/bench-catchup.sh VAULT [RUNS]   (default 15 runs)
#
# VAULT is a vault made by scripts/genvault (at 100,000 entries:
# `go run ./scripts/genvault -n 100000 DIR`), indexed or not. The script
# adds files under its inbox/ and appends to one entry of knowledge/; it
# removes the files it added when it ends. Mode: the watcher this script
# starts (`ctx0 index --watch`); its own reads set CTX0_AUTOWATCH=0 so
# that none is started for them (see scripts/bench-autowatch.sh).
set -euo pipefail
export CTX0_AUTOWATCH=0
vault=${1:?usage: bench-catchup.sh VAULT [RUNS]}
runs=${2:-15}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
watcher=
cleanup() {
	if [ -n "$watcher" ]; then kill "$watcher" 2>/dev/null || true; fi
	rm -f "$vault"/inbox/catchup-*.md
	rm -rf "$work"
}
trap cleanup EXIT
source "$(dirname "$0")/lib.sh"
ms() { echo "scale=1; $1/1000000" | bc; }

go build -o "$work/ctx0" "$root/cmd/ctx0"
ctx0() { "$work/ctx0" --vault "$vault" "$@"; }
ctx0 index >/dev/null 2>&1
mkdir -p "$vault/inbox"
entries=$(find "$vault" -name '*.md' -not -path '*/.*' | wc -l)
echo "vault $vault: $entries files; load $(cut -d' ' -f1-3 /proc/loadavg)"

# The watcher's report lines, each stamped by this shell as it is read.
: >"$work/watch.err"
"$work/ctx0" --vault "$vault" index --watch 2>"$work/watch.err" > >(
	while IFS= read -r line; do
		stamp t
		echo "$t $line"
	done >"$work/watch.log"
) &
watcher=$!
until grep -q "watching" "$work/watch.err"; do
	kill -0 "$watcher" 2>/dev/null || { cat "$work/watch.err" >&2; exit 1; }
	sleep 0.2
done

# waitReport waits until the watcher has printed more than $1 lines, and
# prints the stamp of line $1+1.
waitReport() {
	local want=$(($1 + 1))
	for _ in $(seq 1 3000); do
		if [ "$(wc -l <"$work/watch.log")" -ge "$want" ]; then
			sed -n "${want}p" "$work/watch.log" | cut -d' ' -f1
			return
		fi
		sleep 0.01
	done
	echo "bench-catchup: the watcher reported nothing within 30 s" >&2
	exit 1
}

# found fails the script unless `ctx0 search $1` lists $2.
found() {
	if ! ctx0 search --json "$1" | grep -q "$2"; then
		echo "bench-catchup: search $1 did not find $2" >&2
		exit 1
	fi
}

f=$(find "$vault/knowledge" -name '*.md' -print -quit)
fname=${f#"$vault"/}
fname=${fname%.md}
: >"$work/watch.t"; : >"$work/new.t"; : >"$work/edit.t"
for i in $(seq 1 "$runs"); do
	w="zqcatchup${i}x$RANDOM"
	n=$(wc -l <"$work/watch.log")
	stamp t0
	printf -- '---\ntitle: catch-up %s\ntype: note\n---\nThe word is %s.\n' "$i" "$w" >"$vault/inbox/catchup-w$i.md"
	t1=$(waitReport "$n")
	echo $((t1 - t0)) >>"$work/watch.t"
	found "$w" "inbox/catchup-w$i"

	w="zqsearch${i}x$RANDOM"
	stamp t0
	printf -- '---\ntitle: catch-up search %s\ntype: note\n---\nThe word is %s.\n' "$i" "$w" >"$vault/inbox/catchup-s$i.md"
	out=$(ctx0 search --json "$w")
	stamp t1
	grep -q "inbox/catchup-s$i" <<<"$out" || { echo "bench-catchup: search $w right after the write did not find it" >&2; exit 1; }
	echo $((t1 - t0)) >>"$work/new.t"

	edit_and_find bench-catchup "zqedit${i}x$RANDOM" "$f" "$fname" "$work/edit.t"
	sleep 0.6 # the watcher's batches of these writes are over (maxDelay 500 ms)
done
: >"$work/start.t"
for i in $(seq 1 "$runs"); do
	stamp t0; "$work/ctx0" --help >/dev/null; stamp t1; echo $((t1 - t0)) >>"$work/start.t"
done
echo "runs=$runs"
echo "new file -> watcher's report          median $(ms "$(median <"$work/watch.t")") ms (events settle 50 ms before a batch)"
echo "new file -> ctx0 search finds it      median $(ms "$(median <"$work/new.t")") ms (write + whole search process)"
echo "edit in place -> ctx0 search finds it median $(ms "$(median <"$work/edit.t")") ms"
echo "process start (ctx0 --help)           median $(ms "$(median <"$work/start.t")") ms"
echo "load average                          $(cut -d' ' -f1-3 /proc/loadavg)"
