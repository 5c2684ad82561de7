package merge

import "slices"

// chunk is a piece of a three-way line merge: lines both sides agree on,
// or a conflict between what first and second made of base.
type chunk struct {
	lines    []string // the merged lines, if not a conflict
	conflict bool
	// For a conflict: the base lines and each side's version of them.
	base, first, second []string
}

// diff3 merges two versions of base line by line. An edit made by one
// side only is taken; the same edit (or the same added lines) made by
// both is taken once. Edits that touch different lines, even adjacent
// ones, both apply: the sides edited different lines, and keeping both
// loses nothing. Lines inserted by both sides at the same place are all
// kept, first's before second's (see insertBoth). Only edits that replace
// or delete overlapping base lines differently, or insert lines inside a
// range the other side replaced, are conflicts; git would also call
// adjacent edits and insertions at the same place conflicts.
func diff3(base, first, second []string) []chunk {
	a, b := diff(base, first), diff(base, second)
	var out []chunk
	emit := func(lines []string) {
		if len(lines) == 0 {
			return
		}
		if n := len(out); n > 0 && !out[n-1].conflict {
			out[n-1].lines = append(out[n-1].lines, lines...)
			return
		}
		out = append(out, chunk{lines: slices.Clip(lines)})
	}
	pos := 0 // base lines before pos are emitted
	for len(a) > 0 || len(b) > 0 {
		// The same lines added on both sides, which the two diffs split
		// differently, are taken once.
		if len(a) > 0 && len(b) > 0 {
			if repeats(a[0], b[0]) {
				b = b[1:]
				continue
			}
			if repeats(b[0], a[0]) {
				a = a[1:]
				continue
			}
		}
		// Two insertions at the same place: neither replaces the other.
		if len(a) > 0 && len(b) > 0 && a[0].start == a[0].end && b[0].start == b[0].end && a[0].start == b[0].start {
			emit(base[pos:a[0].start])
			emit(insertBoth(a[0].lines, b[0].lines))
			pos = a[0].start
			a, b = a[1:], b[1:]
			continue
		}
		// The next cluster: the earliest hunk, and every hunk of either
		// side that overlaps what the cluster covers so far.
		var ca, cb []hunk
		lo, hi := 0, 0
		take := func(h hunk, fromA bool) {
			if len(ca)+len(cb) == 0 {
				lo, hi = h.start, h.end
			}
			hi = max(hi, h.end)
			if fromA {
				ca = append(ca, h)
			} else {
				cb = append(cb, h)
			}
		}
		if len(b) == 0 || len(a) > 0 && before(a[0], b[0]) {
			take(a[0], true)
			a = a[1:]
		} else {
			take(b[0], false)
			b = b[1:]
		}
		for {
			if len(a) > 0 && overlaps(a[0], lo, hi) {
				take(a[0], true)
				a = a[1:]
			} else if len(b) > 0 && overlaps(b[0], lo, hi) {
				take(b[0], false)
				b = b[1:]
			} else {
				break
			}
		}
		emit(base[pos:lo])
		pos = hi
		va, vb := apply(base, lo, hi, ca), apply(base, lo, hi, cb)
		switch {
		case len(cb) == 0:
			emit(va)
		case len(ca) == 0:
			emit(vb)
		case slices.Equal(va, vb):
			emit(va)
		default:
			out = append(out, chunk{conflict: true, base: base[lo:hi:hi], first: va, second: vb})
		}
	}
	emit(base[pos:])
	return out
}

// before orders hunks by where they start in base, insertions first, so
// that an insertion at the start of a replaced range goes before it.
func before(h, g hunk) bool {
	if h.start != g.start {
		return h.start < g.start
	}
	return h.end < g.end
}

// overlaps reports whether h touches base lines inside [lo, hi): it
// replaces some of them, or inserts strictly between two of them.
func overlaps(h hunk, lo, hi int) bool {
	return h.start < hi && lo < h.end || h.start == h.end && lo < h.start && h.start < hi
}

// repeats reports whether ins is an insertion right before or after the
// lines r replaces, of lines r's own start or end with: as when one side
// edits a line and adds a blank line after it, and the other only adds
// the blank line.
func repeats(r, ins hunk) bool {
	if ins.start != ins.end || r.start == r.end || len(ins.lines) == 0 || len(ins.lines) > len(r.lines) {
		return false
	}
	n := len(ins.lines)
	return ins.start == r.end && slices.Equal(r.lines[len(r.lines)-n:], ins.lines) ||
		ins.start == r.start && slices.Equal(r.lines[:n], ins.lines)
}

// apply returns base[lo:hi] with hs, which lie inside it, applied.
func apply(base []string, lo, hi int, hs []hunk) []string {
	if len(hs) == 0 {
		return base[lo:hi:hi]
	}
	var out []string
	pos := lo
	for _, h := range hs {
		out = append(out, base[pos:h.start]...)
		out = append(out, h.lines...)
		pos = h.end
	}
	return append(out, base[pos:hi]...)
}

// insertBoth combines lines that both sides inserted at the same place.
// Lines they share at the start and the end are kept once, so that
// insertions that begin alike (the same heading, then different items)
// or where one side's insertion extends the other's do not repeat. The
// rest is first's, then second's.
func insertBoth(first, second []string) []string {
	pre := 0
	for pre < len(first) && pre < len(second) && first[pre] == second[pre] {
		pre++
	}
	suf := 0
	for suf < len(first)-pre && suf < len(second)-pre && first[len(first)-1-suf] == second[len(second)-1-suf] {
		suf++
	}
	out := slices.Clone(first[:len(first)-suf])
	out = append(out, second[pre:len(second)-suf]...)
	return append(out, first[len(first)-suf:]...)
}
