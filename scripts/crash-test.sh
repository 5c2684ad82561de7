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
# With WATCH=1, a real `ctx0 index --watch` runs for the vault throughout,
# so remember and add hand their writes to it, and it keeps the staging
# area, trees and folder state it wrote. It is killed with SIGKILL too: on
# half of the remember and add runs it is the watcher, not the writer, that
# is killed after the random delay (before, while or after it takes the
# handed write in, or as it indexes it), and on some of a person's edits it
# is killed as it indexes them; each time it is started again. Between
# writes a person works beside it with git: an edit in place that is then
# committed (git add, git commit) or undone (git checkout -- file), a file
# another program adds, then committed; so the warm caches meet changes
# they did not make. After each run, the checks above, and:
#   - every remember that reported success is in HEAD exactly once: one
#     entry holds its text, one "remember <name>" line in git log;
#   - no file is left in the write queue (.ctx0/state/queue) once nobody
#     waits;
#   - the watcher's index lists the same entries (name, hash, title, tags,
#     body) as `ctx0 index --rebuild` builds for a copy of the vault.
#
#   scripts/crash-test.sh [KILLS] [MAX_DELAY_MS]    (defaults: 210 kills, 100 ms)
#   WATCH=1 scripts/crash-test.sh 150
#   STOP=1 ...: stop at the first failure, print the vault's lock files,
#   journal and queue, and keep its folder
set -uo pipefail
kills=${1:-210}
maxms=${2:-100}
watch=${WATCH:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
wpid=
trap '[ -n "$wpid" ] && kill -9 "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null; rm -rf "$work"' EXIT

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
	echo "FAIL kill $k ($op, ${delay} ms${watch:+, killed: ${victim:-}, person: ${person:-}}): $*"
	failures=$((failures + 1))
	if ((${STOP:-0})); then # keep what the failure left, to look at
		echo "stopped; the vault is $v"
		ls -la --time-style=full-iso "$v/.git/" | grep -i lock
		cat "$v/.ctx0/state/journal" 2>/dev/null
		ls -la "$v/.ctx0/state/queue" 2>/dev/null
		tail -5 "$work/watch.log"
		trap - EXIT
		exit 1
	fi
}

# The watcher (WATCH=1): started, and started again after each kill. The
# socket of a killed one is left behind; it is removed first, so that the
# socket waited for is the new watcher's.
wkills=0
start_watcher() {
	rm -f "$v/.ctx0/index.db-sock"
	"$work/ctx0" index --watch >>"$work/watch.log" 2>&1 &
	wpid=$!
	for _ in $(seq 500); do
		[ -S "$v/.ctx0/index.db-sock" ] && return
		kill -0 "$wpid" 2>/dev/null || break
		sleep 0.01
	done
	fail "the watcher did not start: $(tail -3 "$work/watch.log" | tr '\n' ';')"
}
kill_watcher() {
	kill -9 "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	(($? == 137)) && wkills=$((wkills + 1))
	start_watcher
}
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }

# A person beside ctx0 (WATCH=1): before the run, an edit in place, a file
# another program adds, or an edit committed at once; after it, the edit
# committed or undone, so that the checks find the work tree clean.
person_file=knowledge/person-notes
person=none
person_before() {
	person=none
	((watch)) || return
	case $((k % 5)) in
	0) person=commit ;;
	1) person=checkout ;;
	2) person=new ;;
	3) person=committed ;;
	*) return ;;
	esac
	case $person in
	new) printf -- '---\ntitle: Person %s\n---\nA note another program wrote, person%s.\n' "$k" "$k" >"$v/knowledge/person-$k.md" ;;
	*) printf 'A line the person added, person%s.\n' "$k" >>"$v/$person_file.md" ;;
	esac
	if [ $person = committed ]; then
		git -C "$v" add "$person_file.md" && git -C "$v" commit -q -m "person: edit $k" || fail "the person's git commit failed"
	fi
	if [[ $person == commit || $person == new ]] && ((RANDOM % 2)); then
		sleep_ms $((RANDOM % 40)) # the watcher is killed as it indexes the edit
		kill_watcher
	fi
}
# (sync, and the librarian's run, commit edits made with other tools
# themselves: then the person has nothing left to commit.)
person_after() {
	local f=$person_file.md
	case $person in
	commit | new)
		[ $person = new ] && f=knowledge/person-$k.md
		git -C "$v" add "$f" && { git -C "$v" diff --cached --quiet || git -C "$v" commit -q -m "person: $person $k"; } ;;
	checkout) git -C "$v" checkout -- "$f" ;;
	*) true ;;
	esac || fail "the person's git $person failed"
}

# Every remember that reported success is in HEAD exactly once: one entry
# holds its text, and git log has one line for it.
remembered() { # name text
	local n
	n=$(git -C "$v" grep -l -F -e "$2" HEAD -- . | wc -l)
	((n == 1)) || fail "\"$2\" (reported saved as $1) is in $n entries of HEAD"
	n=$(git -C "$v" log --format=%B | grep -c -x -F "remember $1")
	((n == 1)) || fail "$1: $n \"remember $1\" lines in git log"
}

# The watcher's index, as its entries: the same as a rebuild of a copy.
entries() {
	sqlite3 "$1/.ctx0/index.db" 'SELECT name, hash, title, tags, body_sum, problem FROM entries ORDER BY name'
}

if ((watch)); then
	c add "$person_file" --body "The person's own notes." >/dev/null || exit 1
	start_watcher
fi

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
	person_before
	victim=writer
	if ((watch)) && [[ $op == remember || $op == add ]] && ((RANDOM % 2)); then
		victim=watcher
	fi
	"$work/ctx0" "${args[@]}" >"$work/out" 2>&1 &
	pid=$!
	sleep_ms $delay
	if [ $victim = watcher ]; then
		kill -9 "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		if (($? == 137)); then
			wkills=$((wkills + 1))
			killed[watcher]=$((${killed[watcher]:-0} + 1))
			sum=$((sum + 1))
		fi
		# The writer whose watcher died finishes all the same.
		wait "$pid" || fail "$op failed after its watcher was killed: $(tr '\n' ';' <"$work/out")"
		rc=0
		start_watcher
	else
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		rc=$?
		if ((rc == 137)); then # 128 + SIGKILL: it was killed, not finished
			killed[$op]=$((${killed[$op]:-0} + 1))
			sum=$((sum + 1))
		fi
	fi
	saved=()
	if [ $op = remember ] && ((rc == 0)); then
		saved=("$(head -1 "$work/out")" "crash fact $k about")
	fi
	((watch)) && ! kill -0 "$wpid" 2>/dev/null && fail "the watcher exited: $(tail -3 "$work/watch.log" | tr '\n' ';')" && start_watcher

	# The next command: a write, which meets whatever the kill left.
	t0=$(date +%s%N)
	if out=$(c remember "check $k canary$k" 2>&1); then
		canaries+=("$k")
		saved+=("$out" "check $k canary$k")
	else
		fail "the next command failed: $out"
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	total_next=$((total_next + ms))
	times+=("$ms")
	((ms > max_next)) && max_next=$ms
	((ms > 1000)) && fail "the next command took $ms ms"
	person_after

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
	((watch)) || continue
	for ((i = 0; i < ${#saved[@]}; i += 2)); do
		remembered "${saved[i]}" "${saved[i + 1]}"
	done
	left=$(ls -A "$v/.ctx0/state/queue" 2>/dev/null)
	[ -n "$left" ] && fail "left in the write queue: $(echo "$left" | tr '\n' ' ')"
	# The searches above went through the watcher, which answers once it
	# has indexed every change made before: its index is as fresh as it
	# will be. A copy of the vault, rebuilt from nothing, must agree.
	rm -rf "$work/copy"
	cp -r "$v" "$work/copy" && rm -rf "$work/copy/.ctx0/index.db"*
	if ! out=$(CTX0_VAULT="$work/copy" c index --rebuild 2>&1); then
		fail "index --rebuild of the copy: $out"
	elif ! mine=$(entries "$v") || ! fresh=$(entries "$work/copy") || [ -z "$fresh" ]; then
		fail "read the indexes: $mine $fresh"
	elif [ "$mine" != "$fresh" ]; then
		fail "the watcher's index differs from a rebuild: $(diff <(echo "$mine") <(echo "$fresh") | head -6 | tr '\n' ';')"
	fi
done

runs=$((k - 1))
echo "kills: $(for o in "${ops[@]}"; do printf '%s %s, ' "$o" "${killed[$o]:-0}"; done)"
echo "killed before they finished: $sum of $runs runs (the rest had finished by the kill)"
if ((watch)); then
	echo "watcher killed: $wkills times (${killed[watcher]:-0} as it took a write, the rest as it indexed a person's edit)"
	echo "writes the watcher committed for other processes: $(git -C "$v" log --format=%B | grep -c "^Ctx0-Write: ")"
fi
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
slow=0
for t in "${times[@]}"; do ((t > 1000)) && slow=$((slow + 1)); done
echo "next command after a kill: median ${sorted[$((runs / 2))]} ms, p95 ${sorted[$((runs * 95 / 100))]} ms, max $max_next ms, over 1 s: $slow of $runs (load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
echo "failures: $failures"
((failures == 0))
