# Helpers the benchmark scripts share; they source this file.

# stamp sets the variable named $1 to the time in nanoseconds (to the
# microsecond) without starting a process: `date +%s%N` would add its own
# start-up, several milliseconds here, to every interval it closes.
stamp() { printf -v "$1" '%s000' "${EPOCHREALTIME/./}"; }

# median prints the median of the numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {printf "%.3f\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# cputime sets the variable named $1 to the CPU time, user and system, in
# microseconds, of the shell's children that have finished so far, and $2
# names a scratch file. The builtin times runs in this shell (no
# subshell: a fork would count its own children), to the millisecond.
cputime() {
	local _u _s u s
	times >"$2"
	{ read -r _u _s; read -r u s; } <"$2"
	printf -v "$1" '%s' "$(( $(_tus "$u") + $(_tus "$s") ))"
}

# _tus turns a time as times prints it (1m2.345s) into microseconds.
_tus() {
	local m=${1%%m*} rest=${1#*m}
	rest=${rest%s}
	local sec=${rest%.*} frac=${rest#*.}
	echo $(( (10#$m * 60 + 10#$sec) * 1000000 + 10#${frac}000 ))
}

# edit_and_find SCRIPT WORD FILE NAME TIMES: appends a line holding WORD to
# FILE (an edit in place, which no folder's mtime shows), runs `ctx0 search
# WORD` at once and appends to TIMES the nanoseconds from the edit until
# the search exits; the search must find NAME, or SCRIPT says so and exits.
edit_and_find() {
	local t0 t1 out
	stamp t0
	echo "Edited in place: $2." >>"$3"
	out=$(ctx0 search --json "$2")
	stamp t1
	grep -q "$4" <<<"$out" || { echo "$1: search $2 right after the edit did not find $4" >&2; exit 1; }
	echo $((t1 - t0)) >>"$5"
}
