# Helpers the benchmark scripts share; they source this file.

# stamp sets the variable named $1 to the time in nanoseconds (to the
# microsecond) without starting a process: `date +%s%N` would add its own
# start-up, several milliseconds here, to every interval it closes.
stamp() { printf -v "$1" '%s000' "${EPOCHREALTIME/./}"; }

# median prints the median of the numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {printf "%.3f\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
