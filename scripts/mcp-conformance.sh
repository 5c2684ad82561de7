#!/usr/bin/env bash
# The official MCP conformance suite and the MCP inspector's CLI, both from
# the npm registry, against `ctx0 mcp`: the suite over streamable HTTP, the
# inspector over stdio, each on a new vault in a temporary HOME.
#
#   scripts/mcp-conformance.sh
#
# Skips (exit 0, saying why) without Node.js or without the npm registry.
# CTX0_CONFORMANCE_VERSION picks the suite's version (default 0.1.13, the
# newest that runs on Node.js 20; later ones need Node.js 22).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "mcp-conformance: skipped: $*"; exit 0; }
command -v node >/dev/null && command -v npm >/dev/null || skip "Node.js (node, npm) is not installed"
version=${CTX0_CONFORMANCE_VERSION:-0.1.13}
timeout 30 npm view "@modelcontextprotocol/conformance@$version" version >/dev/null 2>&1 ||
	skip "the npm registry is not reachable"

work=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/ctx0" ./cmd/ctx0
# npm keeps its cache in the real home; the rest runs in a home of its own.
export npm_config_cache=${npm_config_cache:-$HOME/.npm}
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 CTX0_VAULT=$work/vault
export GIT_AUTHOR_NAME=ctx0-conformance GIT_AUTHOR_EMAIL=conformance@example.com
export GIT_COMMITTER_NAME=ctx0-conformance GIT_COMMITTER_EMAIL=conformance@example.com
export npm_config_update_notifier=false npm_config_loglevel=error
mkdir -p "$HOME"
npm install --silent --no-audit --no-fund --prefix "$work/npm" \
	"@modelcontextprotocol/conformance@$version" @modelcontextprotocol/inspector >/dev/null 2>&1 ||
	skip "could not install the suite and the inspector from the npm registry"
bin=$work/npm/node_modules/.bin
"$work/ctx0" init "$CTX0_VAULT" >/dev/null 2>&1
"$work/ctx0" remember "Sarah prefers email over calls." --type preference >/dev/null

# The suite's scenarios that exercise its own fixture server's tools,
# resources and prompts (test_simple_text, test://static-text, ...) or
# features ctx0 does not offer (completion, subscriptions, sampling,
# elicitation); ctx0 fails them as any server without those fixtures does.
# Every scenario of the protocol itself must pass.
cat >"$work/baseline.yml" <<'EOF'
server:
  - completion-complete
  - tools-call-simple-text
  - tools-call-image
  - tools-call-audio
  - tools-call-embedded-resource
  - tools-call-mixed-content
  - tools-call-with-logging
  - tools-call-error
  - tools-call-with-progress
  - tools-call-sampling
  - tools-call-elicitation
  - elicitation-sep1034-defaults
  - elicitation-sep1330-enums
  - resources-read-text
  - resources-read-binary
  - resources-templates-read
  - resources-subscribe
  - resources-unsubscribe
  - prompts-get-simple
  - prompts-get-with-args
  - prompts-get-embedded-resource
  - prompts-get-with-image
EOF

"$work/ctx0" mcp --http 127.0.0.1:0 2>"$work/server.log" &
server=$!
url=
for _ in $(seq 100); do
	url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/server.log" || true)
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log"; echo "mcp-conformance: the server did not start"; exit 1; }

echo "mcp-conformance: @modelcontextprotocol/conformance@$version server --url $url"
status=0
(cd "$work" && "$bin/conformance" server --url "$url" --expected-failures "$work/baseline.yml") >"$work/suite.log" 2>&1 || status=$?
grep -v '^npm warn' "$work/suite.log" | sed -n '/=== SUMMARY ===/,$p'
[ "$status" -eq 0 ] || { echo "mcp-conformance: the conformance suite failed (exit $status)"; exit 1; }

# The inspector's CLI over stdio, as an agent starts the server.
# The inspector starts the server with a clean environment: name the vault.
inspect() { "$bin/mcp-inspector" --cli "$work/ctx0" --vault "$CTX0_VAULT" mcp "$@" 2>&1 | grep -v '^npm warn' || true; }
echo "mcp-conformance: @modelcontextprotocol/inspector --cli over stdio"
tools=$(inspect --method tools/list)
for t in remember search retrieve context show query archive_now memory; do
	grep -q "\"name\": \"$t\"" <<<"$tools" || { echo "tools/list lacks $t"; echo "$tools"; exit 1; }
done
check() { # what, want, inspector arguments...
	local what=$1 want=$2
	shift 2
	out=$(inspect "$@")
	grep -q -- "$want" <<<"$out" || { echo "inspector: $what: want $want in:"; echo "$out"; exit 1; }
	echo "  ok  $what"
}
check "tools/list: 8 tools" '"memory"' --method tools/list
check "remember" 'Saved as knowledge/' --method tools/call --tool-name remember --tool-arg 'content=The inspector remembers over stdio.'
check "search" 'sarah' --method tools/call --tool-name search --tool-arg 'query=email'
check "search with an alias (q)" 'sarah' --method tools/call --tool-name search --tool-arg 'q=email'
check "memory view" '/memories/preferences/' --method tools/call --tool-name memory --tool-arg command=view --tool-arg path=/memories
check "memory traversal refused" 'escape /memories' --method tools/call --tool-name memory --tool-arg command=view --tool-arg path=/memories/../etc
check "bad arguments: a tool error" '"isError": true' --method tools/call --tool-name search --tool-arg limit=5
check "resources/templates/list" 'ctx0://entry/{+name}' --method resources/templates/list
check "resources/read" 'prefers email' --method resources/read --uri ctx0://entry/preferences/sarah-prefers-email-over-calls
echo "mcp-conformance: passed"
