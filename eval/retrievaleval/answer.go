package retrievaleval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ctx0/ctx0/extractor"
)

// normalize lowercases s and turns every run of characters other than
// letters and digits into one space, with a space at both ends, so that
// an answer is found in a text whatever its punctuation, case and line
// breaks ("node  process" in "Node\nprocess.").
func normalize(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// dateForms are the layouts a date answer may be written in; a date
// answer is found in a text that holds it in any of them.
var dateForms = []string{"2 January 2006", "January 2, 2006", "2006-01-02", "2 Jan 2006", "Jan 2, 2006"}

// answerForms returns the normalized forms in which answer counts as said:
// the answer itself and, for a date, each of dateForms.
func answerForms(answer string) []string {
	forms := []string{normalize(answer)}
	for _, layout := range dateForms {
		d, err := time.Parse(layout, strings.TrimSpace(answer))
		if err != nil {
			continue
		}
		for _, l := range dateForms {
			if f := normalize(d.Format(l)); !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
		break
	}
	return forms
}

// HoldsAnswer reports whether text holds answer, normalized (see
// normalize), a date in any of its usual forms. An answer that is a
// fragment of a word ("--playbook", "v24") is found as such: the match is
// on whole normalized words.
func HoldsAnswer(text, answer string) bool {
	t := normalize(text)
	for _, f := range answerForms(answer) {
		if strings.TrimSpace(f) != "" && strings.Contains(t, f) {
			return true
		}
	}
	return false
}

// bundleText is what an agent reads of a bundle, less its first line,
// which repeats the question: a question that names its answer ("where
// did metrics.db end up") must not count as answered by its own echo.
func bundleText(b extractor.Bundle) string {
	t := b.Text()
	if _, rest, ok := strings.Cut(t, "\n"); ok {
		return rest
	}
	return ""
}

// fill returns the best turns of BM25 over single turns, in rank order,
// until they make tokens tokens (counted with extractor.Tokens, one
// line break between turns); the last is cut at a word to fit.
func fill(x *BM25, turns []string, query string, tokens int) string {
	var b strings.Builder
	for _, i := range x.Rank(query, len(turns)) {
		t := turns[i]
		if extractor.Tokens(b.String()+t+"\n") <= tokens {
			b.WriteString(t + "\n")
			continue
		}
		for _, w := range strings.Fields(t) {
			if extractor.Tokens(b.String()+w+" ") > tokens {
				break
			}
			b.WriteString(w + " ")
		}
		break
	}
	return b.String()
}

// AnswerRecall counts the questions whose answer a text handed over
// holds, overall and by kind of question, with the size of the texts.
type AnswerRecall struct {
	N, Held     int
	ByKind      map[string][2]int // kind: held, asked
	Tokens      []int
	kindOrdered []string
}

func (a *AnswerRecall) add(kind, text, answer string, tokens int) {
	if a.ByKind == nil {
		a.ByKind = map[string][2]int{}
	}
	if kind == "" {
		kind = "(no kind)"
	}
	if _, ok := a.ByKind[kind]; !ok {
		a.kindOrdered = append(a.kindOrdered, kind)
	}
	k := a.ByKind[kind]
	a.N++
	k[1]++
	if HoldsAnswer(text, answer) {
		a.Held++
		k[0]++
	}
	a.ByKind[kind] = k
	a.Tokens = append(a.Tokens, tokens)
}

// Share is the share of questions answered.
func (a AnswerRecall) Share() float64 {
	if a.N == 0 {
		return 0
	}
	return float64(a.Held) / float64(a.N)
}

// MedianTokens is the median size of the texts.
func (a AnswerRecall) MedianTokens() int {
	if len(a.Tokens) == 0 {
		return 0
	}
	t := slices.Sorted(slices.Values(a.Tokens))
	return t[len(t)/2]
}

// writeAnswerRecall prints the answer-recall table of r: retrieve's
// bundles without and with the librarian's entries, each beside plain
// BM25 over single turns given the same tokens, and BM25's top whole
// session, by kind of question when the set has kinds.
func (r *Report) writeAnswerRecall(w io.Writer) {
	kinds := slices.Clone(r.AnswerRetrieve.kindOrdered)
	slices.Sort(kinds)
	if len(kinds) == 1 {
		kinds = nil
	}
	fmt.Fprint(w, "| answer in the text handed over | all |")
	for _, k := range kinds {
		fmt.Fprintf(w, " %s (%d) |", k, r.AnswerRetrieve.ByKind[k][1])
	}
	fmt.Fprintln(w, " median tokens |")
	fmt.Fprint(w, "| --- | --- |")
	for range kinds {
		fmt.Fprint(w, " --- |")
	}
	fmt.Fprintln(w, " --- |")
	row := func(name string, a AnswerRecall) {
		fmt.Fprintf(w, "| %s | %.3f |", name, a.Share())
		for _, k := range kinds {
			c := a.ByKind[k]
			share := 0.0
			if c[1] > 0 {
				share = float64(c[0]) / float64(c[1])
			}
			fmt.Fprintf(w, " %.3f |", share)
		}
		fmt.Fprintf(w, " %d |\n", a.MedianTokens())
	}
	row("`retrieve`, sessions only", r.AnswerRetrieve)
	row("plain BM25 turns, as many tokens", r.AnswerTurns)
	row("`retrieve` with the librarian's entries", r.AnswerRetrieveFiled)
	row("plain BM25 turns, as many tokens", r.AnswerTurnsFiled)
	row("plain BM25's top whole session", r.AnswerSession)
	ratio := func(a, b AnswerRecall) string {
		if b.Held == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2fx", float64(a.Held)/float64(b.Held))
	}
	fmt.Fprintf(w, "\nAnswer recall of `retrieve` against BM25 turns at equal tokens: %s sessions only, %s with the entries; against BM25's top session: %s, %s.\n",
		ratio(r.AnswerRetrieve, r.AnswerTurns), ratio(r.AnswerRetrieveFiled, r.AnswerTurnsFiled),
		ratio(r.AnswerRetrieve, r.AnswerSession), ratio(r.AnswerRetrieveFiled, r.AnswerSession))
}
