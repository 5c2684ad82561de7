package index

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunk(t *testing.T) {
	short := strings.Repeat("A short note. ", 100) // 1,400 bytes: one chunk
	if got := chunk(short); len(got) != 1 || got[0] != (span{0, len(short)}) {
		t.Errorf("short text: %v", got)
	}
	for _, text := range []string{
		strings.Repeat("Sentences end here. ", 600),
		strings.Repeat("para one line\n\n", 700),
		strings.Repeat("wordswithoutanyend ", 500),
		strings.Repeat("東京でユーザー会を開く予定。", 300),
		strings.Repeat("x", 9000),
	} {
		spans := chunk(text)
		if len(spans) < 2 {
			t.Fatalf("%.20q: %d chunks", text, len(spans))
		}
		for i, s := range spans {
			if s.end-s.start > chunkSize || s.start >= s.end {
				t.Errorf("%.20q: chunk %d is %d bytes", text, i, s.end-s.start)
			}
			if !utf8.ValidString(text[s.start:s.end]) {
				t.Errorf("%.20q: chunk %d cuts a character", text, i)
			}
			if i > 0 && (s.start > spans[i-1].end || s.start <= spans[i-1].start) {
				t.Errorf("%.20q: chunk %d starts at %d after one ending at %d: a gap or no progress", text, i, s.start, spans[i-1].end)
			}
		}
		if last := spans[len(spans)-1]; last.end != len(text) || spans[0].start != 0 {
			t.Errorf("%.20q: chunks cover %d to %d of %d", text, spans[0].start, last.end, len(text))
		}
	}
}
