package words

// Jaccard is how alike two sets of words are: the share of the words of a
// and b that both hold, each word weighed by wt, or by 1 where wt is nil.
// It is 0 when neither holds a word of any weight.
func Jaccard(a, b map[string]bool, wt map[string]float64) float64 {
	weight := func(w string) float64 {
		if wt == nil {
			return 1
		}
		return wt[w]
	}
	in, all := 0.0, 0.0
	for w := range a {
		all += weight(w)
		if b[w] {
			in += weight(w)
		}
	}
	for w := range b {
		if !a[w] {
			all += weight(w)
		}
	}
	if all == 0 {
		return 0
	}
	return in / all
}

// Set returns ws as a set.
func Set(ws []string) map[string]bool {
	set := make(map[string]bool, len(ws))
	for _, w := range ws {
		set[w] = true
	}
	return set
}
