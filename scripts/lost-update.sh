#!/usr/bin/env bash
# Lost-update check: `ctx0 set` N times on one entry while a shell appends a
# line to the same file every 50 ms, as a person's editor or an agent's file
# tool would; then counts the appended lines missing from the file.
#
#   scripts/lost-update.sh [N]      (default: 200 sets)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctx0" "$root/cmd/ctx0" || exit 1
export GIT_CONFIG_NOSYSTEM=1 HOME="$work" CTX0_VAULT="$work/v"
c() { "$work/ctx0" "$@"; }
c init "$work/v" >/dev/null 2>&1 || exit 1
c add knowledge/shared --body 'start' >/dev/null 2>&1 || exit 1
f="$work/v/knowledge/shared.md"
(for i in $(seq 1 95); do echo "line $i" >>"$f"; sleep 0.05; done) &
failed=0
for i in $(seq 1 "${1:-200}"); do c set knowledge/shared counter "$i" >/dev/null 2>&1 || failed=$((failed + 1)); done
wait
lost=0
for i in $(seq 1 95); do grep -qx "line $i" "$f" || lost=$((lost + 1)); done
echo "lines lost: $lost of 95; failed sets: $failed; last $(grep counter "$f")"
git -C "$work/v" fsck --strict --no-dangling || exit 1
((lost == 0 && failed == 0))
