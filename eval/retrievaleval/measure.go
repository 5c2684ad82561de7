package retrievaleval

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/ctx0/ctx0/extractor"
)

// BM25 is a plain Okapi BM25 over whole documents, the baseline: text
// lowercased and cut into runs of letters and digits, no stemming, no stop
// words, k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
type BM25 struct {
	tf    []map[string]int
	len   []int
	df    map[string]int
	avgdl float64
}

// Tokens cuts text as BM25 reads it.
func Tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// NewBM25 indexes docs.
func NewBM25(docs []string) *BM25 {
	x := &BM25{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		toks := Tokens(d)
		for _, t := range toks {
			tf[t]++
		}
		for t := range tf {
			x.df[t]++
		}
		x.tf = append(x.tf, tf)
		x.len = append(x.len, len(toks))
		total += len(toks)
	}
	if len(docs) > 0 {
		x.avgdl = float64(total) / float64(len(docs))
	}
	return x
}

// Score returns the BM25 score of document i for the query's tokens, each
// distinct token once.
func (x *BM25) Score(query string, i int) float64 {
	const k1, b = 1.2, 0.75
	n := float64(len(x.tf))
	s := 0.0
	seen := map[string]bool{}
	for _, t := range Tokens(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		df := float64(x.df[t])
		f := float64(x.tf[i][t])
		if f == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		s += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(x.len[i])/x.avgdl))
	}
	return s
}

// Rank returns the indexes of the at most k best documents with a score
// above 0, best first.
func (x *BM25) Rank(query string, k int) []int {
	type scored struct {
		i int
		s float64
	}
	var all []scored
	for i := range x.tf {
		if s := x.Score(query, i); s > 0 {
			all = append(all, scored{i, s})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	out := make([]int, 0, k)
	for _, s := range all[:min(len(all), k)] {
		out = append(out, s.i)
	}
	return out
}

// Ranks are the ranks (1-based, 0 for not found in the first 10) at which
// a search found a question's evidence.
type Ranks []int

func (r *Ranks) add(rank int) { *r = append(*r, rank) }

// RecallAt returns the share of questions whose evidence is in the first k.
func (r Ranks) RecallAt(k int) float64 {
	if len(r) == 0 {
		return 0
	}
	n := 0
	for _, x := range r {
		if x > 0 && x <= k {
			n++
		}
	}
	return float64(n) / float64(len(r))
}

// MRR is the mean reciprocal rank, 0 for evidence not found in the first 10.
func (r Ranks) MRR() float64 {
	if len(r) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range r {
		if x > 0 && x <= 10 {
			s += 1 / float64(x)
		}
	}
	return s / float64(len(r))
}

// RetrieveStats count retrieve's bundles: how often the first item, or
// any, came from an evidence source, and their sizes in tokens.
type RetrieveStats struct {
	First, Any, N int
	Tokens        []int
}

func (s *RetrieveStats) add(b extractor.Bundle, evidence func(extractor.Item) bool) {
	s.N++
	s.Tokens = append(s.Tokens, b.Tokens)
	if len(b.Items) > 0 && evidence(b.Items[0]) {
		s.First++
	}
	if slices.ContainsFunc(b.Items, evidence) {
		s.Any++
	}
}

// MedianTokens is the median size of the bundles.
func (s RetrieveStats) MedianTokens() int {
	if len(s.Tokens) == 0 {
		return 0
	}
	t := slices.Sorted(slices.Values(s.Tokens))
	return t[len(t)/2]
}

func (s RetrieveStats) share(n int) float64 {
	if s.N == 0 {
		return 0
	}
	return float64(n) / float64(s.N)
}

// Report is what a run measured.
type Report struct {
	Dataset                string
	Questions              int
	Docs, Entryc           int // sessions, and entries once filed
	Sessions, SessionsBM25 Ranks
	// SessionHits are the ranks of the first evidence hit among the hits
	// as search --sessions shows them (10, several may be of one session).
	SessionHits Ranks
	// Entries are the ranks of the questions whose answer an entry filed
	// from their evidence holds (EntryQuestions of them).
	Entries, EntriesBM25    Ranks
	EntryQuestions          int
	Retrieve, RetrieveFiled RetrieveStats
	// Misses are the questions whose answering entry was not in the
	// first 5 of the entries search.
	Misses []string
	// RetrieveMisses are the questions, with the librarian's entries,
	// whose bundle holds no item from their evidence.
	RetrieveMisses []string
	// FirstChanged are the questions whose first item of retrieve is
	// from the evidence with the librarian's entries and not without
	// them, or the other way round.
	FirstChanged []string
	// SessionMisses are the questions whose evidence one of plain BM25
	// and search --sessions has in its first 5 sessions and the other
	// does not.
	SessionMisses []string
	// Answer recall: the questions whose answer is in the text handed
	// over, by retrieve (without and with the librarian's entries), by
	// plain BM25 over single turns given as many tokens as each, and by
	// BM25's top whole session.
	AnswerRetrieve, AnswerRetrieveFiled AnswerRecall
	AnswerTurns, AnswerTurnsFiled       AnswerRecall
	AnswerSession                       AnswerRecall
	// AnswerMisses are the bundles, with the librarian's entries, that
	// do not hold the answer when BM25's turns at as many tokens or its
	// top session do; AnswerMissesSessions, the same of the bundles
	// without the entries.
	AnswerMisses, AnswerMissesSessions []string
	// FirstMissesSessions are the questions whose first item of
	// retrieve, without the entries, is not from the evidence: to
	// compare two runs question by question.
	FirstMissesSessions []string
	// ShowAnswerMisses prints AnswerMisses, AnswerMissesSessions and
	// FirstMissesSessions with the report.
	ShowAnswerMisses bool
}

// Write prints r as Markdown tables.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "### %s\n\n%d questions over %d sessions; %d entries once the offline librarian filed them.\n\n", r.Dataset, r.Questions, r.Docs, r.Entryc)
	fmt.Fprintln(w, "| search | questions | recall@1 | recall@5 | recall@10 | MRR |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	row := func(name string, x Ranks) {
		fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", name, len(x), x.RecallAt(1), x.RecallAt(5), x.RecallAt(10), x.MRR())
	}
	row("`search --sessions` (sessions of the hits, in order)", r.Sessions)
	row("`search --sessions`, the 10 hits as shown", r.SessionHits)
	row("plain BM25, whole sessions", r.SessionsBM25)
	row("`search` (entries that hold the answer, filed from the evidence)", r.Entries)
	row("plain BM25, whole entries", r.EntriesBM25)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| `retrieve` | first item from evidence | any item from evidence | median tokens |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	fmt.Fprintf(w, "| sessions only | %.3f | %.3f | %d |\n", r.Retrieve.share(r.Retrieve.First), r.Retrieve.share(r.Retrieve.Any), r.Retrieve.MedianTokens())
	fmt.Fprintf(w, "| with the librarian's entries | %.3f | %.3f | %d |\n", r.RetrieveFiled.share(r.RetrieveFiled.First), r.RetrieveFiled.share(r.RetrieveFiled.Any), r.RetrieveFiled.MedianTokens())
	fmt.Fprintf(w, "| plain BM25's first session (for comparison) | %.3f | | |\n", r.SessionsBM25.RecallAt(1))
	fmt.Fprintln(w)
	r.writeAnswerRecall(w)
	if len(r.Misses) > 0 {
		writeList(w, fmt.Sprintf("Entries search, answer not in the first 5 (%d of %d)", len(r.Misses), r.EntryQuestions), r.Misses)
	}
	if len(r.RetrieveMisses) > 0 {
		writeList(w, fmt.Sprintf("`retrieve` with the librarian's entries, no item from the evidence (%d of %d)", len(r.RetrieveMisses), r.Questions), r.RetrieveMisses)
	}
	if len(r.SessionMisses) > 0 {
		writeList(w, fmt.Sprintf("`search --sessions`, evidence in the first 5 of one of `search --sessions` and plain BM25 and not of the other (%d)", len(r.SessionMisses)), r.SessionMisses)
	}
	if r.ShowAnswerMisses {
		for _, m := range []struct {
			name   string
			misses []string
		}{{"sessions only", r.AnswerMissesSessions}, {"with the librarian's entries", r.AnswerMisses}} {
			if len(m.misses) == 0 {
				continue
			}
			writeList(w, fmt.Sprintf("`retrieve`, %s, answer not in the bundle and in BM25's turns at as many tokens or its top session (%d)", m.name, len(m.misses)), m.misses)
		}
		if len(r.FirstMissesSessions) > 0 {
			writeList(w, fmt.Sprintf("`retrieve`, sessions only, first item not from the evidence (%d of %d)", len(r.FirstMissesSessions), r.Questions), r.FirstMissesSessions)
		}
	}
	if len(r.FirstChanged) > 0 {
		writeList(w, fmt.Sprintf("`retrieve`'s first item, from the evidence without the librarian's entries and not with them or the other way round (%d)", len(r.FirstChanged)), r.FirstChanged)
	}
	fmt.Fprintln(w)
}

// writeList writes a heading and its items as a markdown list.
func writeList(w io.Writer, heading string, items []string) {
	fmt.Fprintf(w, "\n%s:\n\n", heading)
	for _, x := range items {
		fmt.Fprintf(w, "- %s\n", x)
	}
}
