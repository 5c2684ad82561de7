#!/usr/bin/env bash
# Sync benchmark: 1,000 changed entries on each side of a 10,000-entry vault,
# merged over a local bare remote. `ctx0 sync` (fetch, field-level merge,
# push) against the git binary's `git pull --no-edit && git push` of the
# same histories (git's textual merge succeeds here: one side edits the
# tags line, the other appends to the body). Alternating runs, medians.
#
#   scripts/bench-sync.sh [ENTRIES] [CHANGED] [RUNS]   (defaults: 10000 1000 5)
set -euo pipefail
n=${1:-10000}
changed=${2:-1000}
runs=${3:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g() { git -c user.name=bench -c user.email=bench@localhost -c gc.auto=0 "$@"; }

go build -o "$work/ctx0" "$root/cmd/ctx0"
go run "$root/scripts/genvault" -n "$n" "$work/seed"
g clone -q --bare "$work/seed" "$work/remote.git"
g clone -q "$work/remote.git" "$work/a"
g clone -q "$work/remote.git" "$work/b"
files=$(cd "$work/a" && git ls-files 'knowledge/*.md' 'contacts/*.md' 'projects/*.md' 'decisions/*.md' 'insights/*.md' | awk -v n="$changed" 'NR<=n')

# Machine A: append a line to each body, push.
for f in $files; do printf 'Added on machine A.\n' >>"$work/a/$f"; done
g -C "$work/a" commit -qam "A: $changed edits"
g -C "$work/a" push -q origin main
# Machine B: change each entry's tags line, commit, not yet pushed.
for f in $files; do sed -i 's/^tags: \[/tags: [from-b, /' "$work/b/$f"; done
g -C "$work/b" commit -qam "B: $changed edits"
# B's index exists, as on any machine that has used ctx0 (it is copied with b).
"$work/ctx0" --vault "$work/b" index >/dev/null 2>&1

source "$(dirname "$0")/lib.sh"
: >"$work/ctx0.t"
: >"$work/git.t"
for i in $(seq 1 "$runs"); do
	for side in ctx0 git; do
		rm -rf "$work/run" && mkdir "$work/run"
		cp -a "$work/remote.git" "$work/run/remote.git"
		cp -a "$work/b" "$work/run/b"
		g -C "$work/run/b" remote set-url origin "$work/run/remote.git"
		stamp t0
		if [ "$side" = ctx0 ]; then
			"$work/ctx0" --vault "$work/run/b" sync >/dev/null 2>&1
		else
			(cd "$work/run/b" && g pull -q --no-rebase --no-edit && g push -q) >/dev/null 2>&1
		fi
		stamp t1
		echo $(((t1 - t0) / 1000)) >>"$work/$side.t"
		# Both must end with both sides' edits.
		f=${files%%$'\n'*}
		grep -q 'Added on machine A.' "$work/run/b/$f" && grep -q 'from-b' "$work/run/b/$f" ||
			{ echo "$side: merge lost an edit in $f" >&2; exit 1; }
		g -C "$work/run/remote.git" fsck --strict >/dev/null 2>&1 || { echo "$side: remote fsck failed" >&2; exit 1; }
	done
done
c=$(median <"$work/ctx0.t")
gt=$(median <"$work/git.t")
printf 'entries=%s changed-per-side=%s runs=%s\n' "$n" "$changed" "$runs"
printf 'ctx0 sync                 median %7.1f ms\n' "$(echo "$c/1000" | bc -l)"
printf 'git pull && git push      median %7.1f ms\n' "$(echo "$gt/1000" | bc -l)"
printf 'ratio ctx0/git            %7.2f\n' "$(echo "$c/$gt" | bc -l)"
