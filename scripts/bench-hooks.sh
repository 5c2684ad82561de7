#!/usr/bin/env bash
# Whole-process hook benchmark: `ctx0 hook AGENT` for each agent, fed the
# agent's own hook payloads (integration/testdata/payloads; Claude Code's in
# its documented shape) and a real published transcript of that agent, on a
# vault of N entries. Agents alternate in one loop so machine noise hits all
# alike. Prints, per agent, the median of RUNS for the session start (the
# memory block) and for a turn that appended one line, and one session end
# (which hands the conversation to a background librarian). Every hook must
# finish within its 800 ms deadline; Codex CLI waits 1 s for SessionEnd.
#
#   scripts/bench-hooks.sh [N] [RUNS]      (defaults: 1000 entries, 15 runs)
set -euo pipefail
n=${1:-1000}
runs=${2:-15}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"

go build -o "$work/ctx0" "$root/cmd/ctx0"
go run "$root/scripts/genvault" -n "$n" "$work/vault"
ctx0() { "$work/ctx0" --vault "$work/vault" "$@"; }
ctx0 index >/dev/null 2>&1

payloads=$root/integration/testdata/payloads
transcripts=$root/transcript/testdata
cwd=/src/app

# place SRC DST: the agent's transcript, where the agent keeps it.
place() { mkdir -p "$(dirname "$2")"; cp "$1" "$2"; }
# payload SRC DST TRANSCRIPT: a published payload with the test's paths.
payload() { sed -e "s#<TRANSCRIPT>#$3#g" -e "s#<CWD>#$cwd#g" "$1" >"$2"; }

declare -A start turn end file
t=$work/home/.claude/projects/-src-app/agentlogs-compact.jsonl
place "$transcripts/claude-code/agentlogs-compact-v2.0.13.jsonl" "$t"
file[claude-code]=$t
for e in SessionStart Stop SessionEnd; do
	printf '{"session_id":"c1","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"}' "$t" "$cwd" "$e" >"$work/claude-code-$e.json"
done
start[claude-code]=SessionStart turn[claude-code]=Stop end[claude-code]=SessionEnd

t=$work/home/.codex/sessions/2026/04/14/rollout-2026-04-14T16-21-44-019d8c27-aea2-7ae0-bf0a-1f8bde758747.jsonl
place "$transcripts/codex/$(basename "$t")" "$t"
file[codex]=$t
for e in SessionStart Stop SessionEnd; do payload "$payloads/codex/0.145.0/$e.json" "$work/codex-$e.json" "$t"; done
start[codex]=SessionStart turn[codex]=Stop end[codex]=SessionEnd

t=$work/home/.gemini/tmp/2d33ff91/chats/session-2025-10-21T20-04-0b23371a.json
place "$transcripts/gemini/chats/$(basename "$t")" "$t"
file[gemini]=$t
for e in SessionStart AfterAgent SessionEnd; do payload "$payloads/gemini/0.46.0/$e.json" "$work/gemini-$e.json" "$t"; done
start[gemini]=SessionStart turn[gemini]=AfterAgent end[gemini]=SessionEnd

t=$work/home/.cursor/projects/src-app/agent-transcripts/b1393ec9-28fa-4580-86fc-3c8e4b826bcc.jsonl
place "$transcripts/cursor/agent-transcripts/$(basename "$t")" "$t"
file[cursor]=$t
for e in sessionStart stop sessionEnd; do payload "$payloads/cursor/2026.07.23-e383d2b/$e.json" "$work/cursor-$e.json" "$t"; done
start[cursor]=sessionStart turn[cursor]=stop end[cursor]=sessionEnd

agents=(claude-code codex gemini cursor)
export HOME=$work/home
# hook AGENT EVENT OUT: one timed hook process, its time in ms appended to OUT.
hook() {
	local a b
	stamp a
	ctx0 hook "$1" <"$work/$1-$2.json" >/dev/null
	stamp b
	echo "scale=3; ($b - $a) / 1000000" | bc >>"$3"
}
# The first turn reads the whole transcript; the benchmark is of the turns after.
for a in "${agents[@]}"; do ctx0 hook "$a" <"$work/$a-${turn[$a]}.json"; done
for ((i = 0; i < runs; i++)); do
	for a in "${agents[@]}"; do
		hook "$a" "${start[$a]}" "$work/$a.start"
		# One more line, as a turn appends; Gemini CLI's old .json is written whole.
		case $a in
		gemini) touch "${file[$a]}" ;;
		*) tail -n 1 "${file[$a]}" >>"${file[$a]}.line" && cat "${file[$a]}.line" >>"${file[$a]}" && rm "${file[$a]}.line" ;;
		esac
		hook "$a" "${turn[$a]}" "$work/$a.turn"
	done
done
for a in "${agents[@]}"; do hook "$a" "${end[$a]}" "$work/$a.end"; done

printf '%-12s %14s %14s %10s\n' agent "start (ms)" "turn (ms)" "end (ms)"
for a in "${agents[@]}"; do
	printf '%-12s %14s %14s %10s\n' "$a" "$(median <"$work/$a.start")" "$(median <"$work/$a.turn")" "$(cat "$work/$a.end")"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
# Let the background librarians the ends started finish before the vault goes.
for ((i = 0; i < 600; i++)); do pgrep -f "$work/ctx0" >/dev/null || break; sleep 0.1; done
