#!/usr/bin/env bash
# Crash test: kill -9 ctx0 at random points of its writes, then check that
# the vault is whole. It runs until KILLS commands were killed before they
# finished (a command that finished before its kill counts as a run, not a
# kill, and is checked all the same). Seven commands take turns: remember, add, set, rename,
# sync (with a real remote that another clone pushes to), librarian run (of
# a conversation handed over with ctx0 dump) and index --rebuild. Each is
# started, killed with SIGKILL after a random delay (up to MAX_DELAY_MS,
# scaled by how long the command usually runs: x1 for the single writes, x3
# for index --rebuild, x5 for sync, x8 for librarian run), and then:
#   - the next command (a remember) succeeds, within 1 s;
#   - git fsck --strict is clean;
#   - git status --porcelain is empty: no lock file, no temporary file, no
#     staged deletion or untracked entry left behind;
#   - every entry file of HEAD is in the work tree with HEAD's content, the
#     index lists exactly the entries of HEAD, and search finds the entries
#     remembered by earlier checks.
# It prints one line per failure and a summary; exit 1 if anything failed.
#
#   scripts/crash-test.sh [KILLS] [MAX_DELAY_MS]    (defaults: 210 kills, 100 ms)
set -uo pipefail
kills=${1:-210}
maxms=${2:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/ctx0" "$root/cmd/ctx0" || exit 1
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_NAME=crash GIT_AUTHOR_EMAIL=crash@example.com \
	GIT_COMMITTER_NAME=crash GIT_COMMITTER_EMAIL=crash@example.com
mkdir -p "$HOME"
c() { "$work/ctx0" "$@"; }
v="$work/v"
other="$work/other"
export CTX0_VAULT="$v"

git init -q --bare -b main "$work/remote.git"
c init "$v" >/dev/null 2>&1 || exit 1
c remote add origin "$work/remote.git" >/dev/null || exit 1
for i in 1 2 3 4 5; do c add "knowledge/shared-$i" --body "shared $i" >/dev/null || exit 1; done
c sync >/dev/null 2>&1 || exit 1
c clone "$work/remote.git" "$other" >/dev/null 2>&1 || exit 1

session() { # a session log with one decision in it, for ctx0 dump
	printf '{"sessionId":"crash-%s","agent":"crash","startedAt":"2026-01-28T10:00:00Z","context":{"workingDir":"/src/app","project":"app"},"messages":[' "$1"
	printf '{"role":"user","content":"Which database should the billing service %s use?","timestamp":"2026-01-28T10:00:00Z"},' "$1"
	printf '{"role":"assistant","content":"Postgres: it has the row locks billing needs.","timestamp":"2026-01-28T10:00:05Z"},'
	printf '{"role":"user","content":"We decided to use Postgres for billing service %s, not MySQL.","timestamp":"2026-01-28T10:00:09Z"},' "$1"
	printf '{"role":"assistant","content":"Noted: Postgres for billing.","timestamp":"2026-01-28T10:00:12Z"},'
	printf '{"role":"user","content":"Also remember that the billing deploys run on Fridays.","timestamp":"2026-01-28T10:00:20Z"},'
	printf '{"role":"assistant","content":"Noted.","timestamp":"2026-01-28T10:00:22Z"},'
	printf '{"role":"user","content":"Thanks, that is all for billing %s.","timestamp":"2026-01-28T10:00:30Z"}]}' "$1"
}

ops=(remember add set rename sync librarian index)
declare -A killed=()
failures=0
max_next=0
total_next=0
canaries=()
times=()
fail() {
	echo "FAIL kill $k ($op, ${delay} ms): $*"
	failures=$((failures + 1))
}

sum=0
for ((k = 1; sum < kills && k <= 3 * kills; k++)); do
	op=${ops[$(((k - 1) % ${#ops[@]}))]}
	args=()
	case $op in
	remember) args=(remember "crash fact $k about the staging cluster") ;;
	add) args=(add "knowledge/added-$k" --body "added body $k") ;;
	set) args=(set "knowledge/shared-$(((k % 5) + 1))" counter "$k") ;;
	rename)
		from=$(cd "$v" && ls knowledge | grep -E '^(ren|added)-' | head -1)
		from=${from%.md}
		if [ -z "$from" ]; then
			c add "knowledge/ren-$k" --body "to rename $k" >/dev/null
			from="ren-$k"
		fi
		args=(rename "knowledge/$from" "knowledge/renamed-$k")
		;;
	sync)
		c set "knowledge/shared-1" synced "$k" >/dev/null
		if ((k % 3 == 0)); then # the remote moves too: sync has a merge to make
			(cd "$other" && CTX0_VAULT="$other" c remember "from the other clone $k" >/dev/null &&
				CTX0_VAULT="$other" c sync >/dev/null 2>&1)
		fi
		args=(sync)
		;;
	librarian)
		session "$k" | c dump >/dev/null 2>&1
		args=(librarian run)
		;;
	index) args=(index --rebuild) ;;
	esac
	case $op in
	index) scale=3 ;;
	sync) scale=5 ;;
	librarian) scale=8 ;;
	*) scale=1 ;;
	esac
	delay=$(((RANDOM * 32768 + RANDOM) % (maxms * scale + 1)))
	"$work/ctx0" "${args[@]}" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if (($? == 137)); then # 128 + SIGKILL: it was killed, not finished
		killed[$op]=$((${killed[$op]:-0} + 1))
		sum=$((sum + 1))
	fi

	# The next command: a write, which meets whatever the kill left.
	t0=$(date +%s%N)
	if out=$(c remember "check $k canary$k" 2>&1); then
		canaries+=("$k")
	else
		fail "the next command failed: $out"
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	total_next=$((total_next + ms))
	times+=("$ms")
	((ms > max_next)) && max_next=$ms
	((ms > 1000)) && fail "the next command took $ms ms"

	if ! out=$(git -C "$v" fsck --strict 2>&1); then
		fail "git fsck: $out"
	fi
	st=$(git -C "$v" status --porcelain --untracked-files=all)
	[ -n "$st" ] && fail "git status: $(echo "$st" | tr '\n' ';')"
	# Every entry HEAD has is in the work tree as HEAD has it, and indexed.
	head_entries=$(git -C "$v" ls-tree -r --name-only HEAD | grep -E '^(knowledge|decisions|episodes|insights|milestones|projects|contacts|preferences|archive|inbox|notes)/.*\.md$' | sort)
	while read -r f; do
		[ -z "$f" ] && continue
		if ! git -C "$v" diff --quiet HEAD -- "$f" 2>/dev/null || [ ! -f "$v/$f" ]; then
			fail "$f: not in the work tree as HEAD has it"
		fi
	done <<<"$head_entries"
	listed=$(c list --json | grep '"path":' | sed 's/.*"path": "\(.*\)".*/\1/' | grep -E '^(knowledge|decisions|episodes|insights|milestones|projects|contacts|preferences|archive|inbox|notes)/' | sort)
	[ "$head_entries" != "$listed" ] && fail "the index does not list HEAD's entries: $(diff <(echo "$head_entries") <(echo "$listed") | tr '\n' ';')"
	# Search finds this check's entry and an earlier one.
	for n in "${canaries[-1]}" "${canaries[$((RANDOM % ${#canaries[@]}))]}"; do
		found=$(c search "canary$n" 2>&1)
		[[ $found == *"check-$n-canary$n"* ]] || fail "search canary$n does not find knowledge/check-$n-canary$n: $found"
	done
done

runs=$((k - 1))
echo "kills: $(for o in "${ops[@]}"; do printf '%s %s, ' "$o" "${killed[$o]:-0}"; done)"
echo "killed before they finished: $sum of $runs runs (the rest had finished by the kill)"
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
slow=0
for t in "${times[@]}"; do ((t > 1000)) && slow=$((slow + 1)); done
echo "next command after a kill: median ${sorted[$((runs / 2))]} ms, p95 ${sorted[$((runs * 95 / 100))]} ms, max $max_next ms, over 1 s: $slow of $runs (load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
echo "failures: $failures"
((failures == 0))
