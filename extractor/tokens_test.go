package extractor

import (
	"encoding/json"
	"os"
	"testing"
)

// TestTokensBoundRealTokenizers checks the estimate against the counts
// OpenAI's cl100k_base and o200k_base tokenizers give the samples in
// testdata/tokens.json (measured by testdata/tokcount, a module of its own
// that embeds their vocabularies): it must never be below either, and it
// should not be far above on English prose, or budgets would waste room.
func TestTokensBoundRealTokenizers(t *testing.T) {
	data, err := os.ReadFile("testdata/tokens.json")
	if err != nil {
		t.Fatal(err)
	}
	var samples []struct {
		Text       string `json:"text"`
		Cl100kBase int    `json:"cl100k_base"`
		O200kBase  int    `json:"o200k_base"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		t.Fatal(err)
	}
	if len(samples) < 30 {
		t.Fatalf("%d samples; want the whole table", len(samples))
	}
	var est, real int
	for _, s := range samples {
		got := Tokens(s.Text)
		if got < s.Cl100kBase || got < s.O200kBase {
			t.Errorf("Tokens = %d, below cl100k_base %d or o200k_base %d, for %.80q", got, s.Cl100kBase, s.O200kBase, s.Text)
		}
		est += got
		real += max(s.Cl100kBase, s.O200kBase)
	}
	ratio := float64(est) / float64(real)
	t.Logf("%d samples: the estimate is %.2f times the larger real count overall", len(samples), ratio)
	if ratio > 1.8 {
		t.Errorf("the estimate is %.2f times the real counts: too loose", ratio)
	}
}

func TestTokensSmall(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 2},           // the 2 for the joins
		{"hello", 4},      // 5 letters: 2
		{"a b c", 5},      // three one-letter words
		{"2026", 4},       // digits by 3
		{"東京", 5},         // 5 per 4 characters, rounded up
		{"e3b0c442", 8},   // a hex run: 2 per 3 characters
		{"\n\n\n", 3},     // one run of line breaks
		{"Schlüssel", 5},  // 8 ASCII letters (2) and one other (1)
		{"x     y", 5},    // 5 spaces: the first joins y, the 4 others are one
		{"¡hola!", 6},     // ¡ is 2 bytes; ! is punctuation
		{"🎉", 5},          // 4 bytes, less one
		{"--- ok ---", 9}, // punctuation one each
	} {
		if got := Tokens(c.in); got != c.want {
			t.Errorf("Tokens(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
