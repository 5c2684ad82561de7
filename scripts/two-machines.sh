#!/usr/bin/env bash
# Two machines, tested for real, at a heavier load than CI's: the Go test
# TestTwoMachines (cmd/ctx0/twomachines_test.go) with CTX0_TWO_MACHINES=heavy:
# 30 rounds of writes on each machine (a remember, a set of a field of the
# shared entry, a hand edit every third round, a file made by hand every
# fourth) while ctx0 sync --watch --interval 2s runs on each; three
# scenarios (concurrent, the remote moved away and back, the watch killed
# with SIGKILL at random moments). Prints, per scenario, how long the two
# vaults and the remote took to converge after the writes stopped, in
# intervals, and how many kills there were; exit 1 if any check failed.
#
#   scripts/two-machines.sh [RUNS]      (default: 1)
set -uo pipefail
runs=${1:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
status=0
for i in $(seq "$runs"); do
	echo "run $i, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
	out=$(CTX0_TWO_MACHINES=heavy go test ./cmd/ctx0 -run 'TestTwoMachines' -count=1 -v -timeout 60m 2>&1)
	rc=$?
	echo "$out" | grep -E '^(=== RUN|\s+twomachines_test.go:[0-9]+: (converged|killed|not converged))|--- (PASS|FAIL)' |
		sed -E 's/^\s+twomachines_test.go:[0-9]+: /    /'
	if [ $rc -ne 0 ]; then
		echo "$out" | grep -vE '^\s+twomachines_test.go:[0-9]+: (random seed|the machines)' | tail -40
		status=1
	fi
done
exit $status
