package merge

// maxEdits and maxWork bound the line diff. Past them, the lines between
// the common start and end of two texts count as one replacement: a merge
// of such texts keeps both but may see a conflict where a finer diff would
// not. The diff's memory grows with the square of the edits, and its time
// with the edits times the lines, so the bounds keep it to milliseconds
// and megabytes for entries of normal size, and well under a second for
// the largest; and, unlike a timeout, they give the same answer on every
// machine.
const (
	maxEdits = 1000
	maxWork  = 50_000_000
)

// hunk is one edit from a base text to another version: lines replace
// base[start:end]. An insertion has start == end.
type hunk struct {
	start, end int
	lines      []string
}

// diff returns the edits from a to b, in order and separated by at least
// one unchanged line, found by Myers' algorithm on lines.
func diff(a, b []string) []hunk {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	x, y := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(x) == 0 && len(y) == 0 {
		return nil
	}
	matches, ok := myers(intern(x, y))
	if !ok {
		return []hunk{{start: pre, end: pre + len(x), lines: y}}
	}
	var hs []hunk
	xi, yi := 0, 0
	for _, m := range append(matches, [2]int{len(x), len(y)}) {
		if m[0] > xi || m[1] > yi {
			hs = append(hs, hunk{start: pre + xi, end: pre + m[0], lines: y[yi:m[1]]})
		}
		xi, yi = m[0]+1, m[1]+1
	}
	return hs
}

// intern numbers the distinct lines of x and y, so that the diff compares
// numbers rather than strings.
func intern(x, y []string) ([]int, []int) {
	ids := make(map[string]int)
	number := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return number(x), number(y)
}

// myers returns the pairs of positions of x and y that a shortest edit
// script leaves unchanged, in order, or false if the script is longer than
// the bounds allow.
func myers(x, y []int) ([][2]int, bool) {
	n, m := len(x), len(y)
	limit := min(n+m, maxEdits, max(100, maxWork/(n+m)))
	off := limit + 1
	v := make([]int, 2*limit+3)
	// trace[d] is v over diagonals -d..d as it was when step d began.
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				i = v[off+k+1] // down: an insertion
			} else {
				i = v[off+k-1] + 1 // right: a deletion
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, n, m), true
			}
		}
	}
	return nil, false
}

// backtrack walks the trace of myers back from the end, collecting the
// unchanged pairs.
func backtrack(trace [][]int, i, j int) [][2]int {
	var matches [][2]int
	for d := len(trace) - 1; d >= 0; d-- {
		prevI, prevJ := 0, 0
		if d > 0 {
			v := trace[d]
			at := func(k int) int { return v[k+d] }
			k := i - j
			prevK := k - 1
			if k == -d || k != d && at(k-1) < at(k+1) {
				prevK = k + 1
			}
			prevI = at(prevK)
			prevJ = prevI - prevK
			if prevK == k-1 {
				// The deletion moved right from prevI; the snake starts after it.
				for i > prevI+1 && j > prevJ {
					i, j = i-1, j-1
					matches = append(matches, [2]int{i, j})
				}
			} else {
				for i > prevI && j > prevJ+1 {
					i, j = i-1, j-1
					matches = append(matches, [2]int{i, j})
				}
			}
		} else {
			for i > 0 && j > 0 {
				i, j = i-1, j-1
				matches = append(matches, [2]int{i, j})
			}
		}
		i, j = prevI, prevJ
	}
	for l, r := 0, len(matches)-1; l < r; l, r = l+1, r-1 {
		matches[l], matches[r] = matches[r], matches[l]
	}
	return matches
}
