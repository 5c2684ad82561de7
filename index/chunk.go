package index

// Chunking for embeddings: pieces of about 400 tokens (1,600 characters)
// that overlap by about 80 (320 characters), cut where a sentence or a
// paragraph ends, so that a vector stands for a passage and not for a whole
// long entry; a text of up to 1,920 characters is one chunk.
const (
	chunkSize    = 1600
	chunkOverlap = 320
	chunkSingle  = chunkSize + chunkOverlap
)

// span is a chunk of a text, by byte offsets.
type span struct{ start, end int }

// chunk cuts text into overlapping spans.
func chunk(text string) []span {
	if len(text) <= chunkSingle {
		return []span{{0, len(text)}}
	}
	var out []span
	for start := 0; ; {
		end := start + chunkSize
		if end >= len(text) {
			return append(out, span{start, len(text)})
		}
		end = boundary(text, start+chunkSize/2, end)
		out = append(out, span{start, end})
		// Step back by the overlap, to the start of a sentence.
		next := boundary(text, end-chunkOverlap, end)
		if next <= start {
			next = end
		}
		start = next
	}
}

// boundary returns the last end of a sentence or paragraph in
// text[lo:hi], else the last space, else hi; never inside a UTF-8
// sequence.
func boundary(text string, lo, hi int) int {
	lo = max(lo, 0)
	space := -1
	for i := hi - 1; i > lo; i-- {
		c := text[i]
		switch {
		case c == '\n' && text[i-1] == '\n':
			return i + 1
		case (c == ' ' || c == '\n') && (text[i-1] == '.' || text[i-1] == '!' || text[i-1] == '?'):
			return i + 1
		case c == ' ' && space < 0:
			space = i + 1
		}
	}
	if space > 0 {
		return space
	}
	for hi > lo && hi < len(text) && text[hi]&0xC0 == 0x80 {
		hi--
	}
	return hi
}
