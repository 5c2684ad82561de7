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
