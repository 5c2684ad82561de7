package words

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ,. ", nil},
		{"Sarah prefers e-mail.", []string{"Sarah", "prefers", "e", "mail"}},
		{"v3.2.1 foo_bar O'Reilly", []string{"v3", "2", "1", "foo", "bar", "O", "Reilly"}},
		{"deploy* now", []string{"deploy", "now"}},
		{"Ångström naïve façade", []string{"Ångström", "naïve", "façade"}},
		{"½ ٣ \uE000x", []string{"½", "٣", "\uE000x"}},
		{"Go言語で書く", []string{"Go", "言語で書く"}},
		{"東京のユーザー会", []string{"東京のユーザー会"}},
		{"한국어 텍스트", []string{"한국어", "텍스트"}},
		{"a—b “c” d…e", []string{"a", "b", "c", "d", "e"}},
		{"bad\xffbyte", []string{"bad", "byte"}},
	} {
		if got := Split(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Use tabs,  not\nspaces.", "use tabs not spaces"},
		{"  Sarah's E-MAIL ", "sarah s e mail"},
		{"Café", "café"}, // case only: diacritics stay
	} {
		if got := Normal(tc.in); got != tc.want {
			t.Errorf("Normal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTerm(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"deploys", "deploi"},
		{"deploying", "deploi"},
		{"Deployed", "deploi"},
		{"deployment", "deploy"},
		{"notes", "note"},
		{"noted", "note"},
		{"running", "run"},
		{"caresses", "caress"},
		{"ponies", "poni"},
		{"CAFÉS", "cafe"},
		{"at", "at"}, // shorter than 3 bytes: not stemmed
		{"東京", "東京"},
		{"русский", "русский"},
	} {
		if got := Term(tc.in); got != tc.want {
			t.Errorf("Term(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStopwords checks the lists as data: lower case, one word a line, no
// repeats within or across them, and never a word people search for by
// itself.
func TestStopwords(t *testing.T) {
	seen := map[string]string{}
	for file, text := range map[string]string{"stopwords.txt": stopwordsText, "glue.txt": glueText} {
		for line := range strings.Lines(text) {
			w := strings.TrimSpace(line)
			if w == "" || strings.HasPrefix(w, "#") {
				continue
			}
			if w != strings.ToLower(w) || strings.ContainsAny(w, " \t") || seen[w] != "" {
				t.Errorf("%s: %q is not a new lower-case word (seen in %q)", file, w, seen[w])
			}
			seen[w] = file
		}
	}
	for _, w := range []string{"the", "What", "does", "how", "to", "be", "only", "Before"} {
		if !IsStop(w) {
			t.Errorf("IsStop(%q) = false", w)
		}
	}
	for _, w := range []string{"sarah", "email", "deploy", "prefer", "contacted", "schedule"} {
		if IsStop(w) || IsGlue(w) {
			t.Errorf("IsStop(%q) or IsGlue = true", w)
		}
	}
	for _, w := range []string{"the", "They", "is", "of"} {
		if !IsGlue(w) {
			t.Errorf("IsGlue(%q) = false", w)
		}
	}
	for _, w := range []string{"only", "before", "without", "what"} {
		if IsGlue(w) {
			t.Errorf("IsGlue(%q) = true: it changes what a statement says", w)
		}
	}
}

func TestJaccard(t *testing.T) {
	a, b := Set([]string{"kafka", "retry", "staging"}), Set([]string{"kafka", "retry", "prod"})
	for _, tc := range []struct {
		name string
		a, b map[string]bool
		wt   map[string]float64
		want float64
	}{
		{"both empty", nil, nil, nil, 0},
		{"one empty", a, nil, nil, 0},
		{"same", a, a, nil, 1},
		{"two of four", a, b, nil, 0.5},
		{"weighed", a, b, map[string]float64{"kafka": 1, "retry": 1, "staging": 3, "prod": 3}, 0.25},
		{"nothing weighs", a, b, map[string]float64{}, 0},
	} {
		if got := Jaccard(tc.a, tc.b, tc.wt); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: Jaccard = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 entries"}, {1, "1 entry"}, {2, "2 entries"}} {
		if got := Plural(tc.n, "entry", "entries"); got != tc.want {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{" \n\t ", ""},
		{"open config.yaml:\n  line 3:\tunknown key", "open config.yaml: line 3: unknown key"},
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSplit checks what Spans promises of any text: words in order, none
// empty or overlapping, each made of word characters only and of one kind
// of script, and nothing but separators left between them.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "Sarah prefers e-mail.", "Go言語で書く 한국어", "Ångström ½ \uE000x", "bad\xffbyte"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spans := Spans(s)
		ws := Split(s)
		if len(ws) != len(spans) {
			t.Fatalf("Split gives %d words, Spans %d", len(ws), len(spans))
		}
		end := 0
		for i, sp := range spans {
			if sp.Start < end || sp.End <= sp.Start || sp.End > len(s) {
				t.Fatalf("span %d %v out of order after %d in %d bytes", i, sp, end, len(s))
			}
			w := s[sp.Start:sp.End]
			if ws[i] != w {
				t.Fatalf("word %d: Split %q, Spans %q", i, ws[i], w)
			}
			sl := -1
			for _, r := range w {
				if !isWordRune(r) {
					t.Fatalf("word %q holds %q", w, r)
				}
				if k := b2i(Spaceless(r)); sl >= 0 && k != sl {
					t.Fatalf("word %q mixes scripts", w)
				}
				sl = b2i(Spaceless(r))
			}
			// Between words only separators, except where a word was cut
			// at a change of script.
			gap := s[end:sp.Start]
			if sp.Start == end && i > 0 {
				prev, _ := utf8.DecodeLastRuneInString(s[:end])
				next, _ := utf8.DecodeRuneInString(w)
				if Spaceless(prev) == Spaceless(next) {
					t.Fatalf("words %q and %q touch without a change of script", ws[i-1], w)
				}
			}
			for _, r := range gap {
				if isWordRune(r) {
					t.Fatalf("%q left out between words", r)
				}
			}
			end = sp.End
		}
		for _, r := range s[end:] {
			if isWordRune(r) {
				t.Fatalf("%q left out after the last word", r)
			}
		}
	})
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && unicode.In(r, unicode.L, unicode.N, unicode.Co)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
