package extractor

import (
	"fmt"
	"strings"
	"time"
)

// Bundle is what retrieve answers a question with: a short summary, the
// passages that answer it with where each comes from and why it was picked,
// the sources, and how confident the extractor is that the bundle covers the
// question. Its text form, Text, fits the budget asked for, counted with
// Tokens.
type Bundle struct {
	Query   string `json:"query"`
	Summary string `json:"summary"`
	Items   []Item `json:"items"`
	// Sources are the items' sources, each once, in the items' order:
	// entry files relative to the vault, and past conversations.
	Sources []string `json:"sources"`
	// Confidence, between 0 and 1, is how completely the bundle answers:
	// 0.5 × the share of the question's words the best item holds (or its
	// closeness in meaning, in hybrid search; a past session's counts
	// half), + 0.3 × the share all items hold together, + 0.2 if an entry
	// the question names is in it. Level says it in a word: high from
	// 0.75, medium from 0.4, else low.
	Confidence float64 `json:"confidence"`
	Level      string  `json:"level"`
	// Uncovered lists the words of the question that no item holds.
	Uncovered []string `json:"uncovered,omitempty"`
	// Omitted lists what was found but left out, and why: near
	// duplicates of an item, and what did not fit the budget.
	Omitted []Omitted `json:"omitted,omitempty"`
	Plan    Plan      `json:"plan"`
	Tokens  int       `json:"tokens"` // of Text, counted with Tokens
	Budget  int       `json:"budget"`
	// Suggest is set when the question keeps coming back: a learned
	// query would answer it faster.
	Suggest *Suggestion `json:"suggest,omitempty"`
}

// Item is one passage of a bundle.
type Item struct {
	Kind  string `json:"kind"` // "entry" or "session"
	Name  string `json:"name"` // the entry's name, or conversation:ID
	Title string `json:"title"`
	Type  string `json:"type,omitempty"`
	// Date is when what the item tells happened: when it was said, for a
	// passage of a past session or of an entry the librarian filed from
	// one; else the entry's updated (else created) time.
	Date time.Time `json:"date,omitzero"`
	// Conversation is the Ref (session@first message) of the past
	// conversation the passage was said in or filed from, if any: a
	// bundle holds one item per conversation.
	Conversation string `json:"conversation,omitempty"`
	// Passage is the relevant part of the entry or conversation, as
	// written, not the whole file.
	Passage string `json:"passage"`
	// Score is the item's relevance relative to the best item's, 1.
	Score float64 `json:"score"`
	Why   string  `json:"why"`
	// Source is where to read more: the entry's file relative to the
	// vault, or the command that shows the conversation.
	Source string `json:"source"`
	// Lines are the first and last lines of the passage in the file.
	Lines []int `json:"lines,omitempty"`

	held   []int   // indexes of the question's terms the title and passage hold
	named  bool    // the question names it
	vector float64 // its similarity in meaning to the question, in hybrid search
}

// Omitted is a candidate left out of a bundle.
type Omitted struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Plan says how a bundle was found.
type Plan struct {
	// By is "offline" (BM25 over the index, links, recency, past
	// conversations), "model" (a language model planned the searches and
	// condensed the bundle) or "query:NAME" (a learned query).
	By       string   `json:"by"`
	Searches []string `json:"searches"`
	Scope    []string `json:"scope,omitempty"`
	// Fallback says why a model's plan was not used, when it failed.
	Fallback string `json:"fallback,omitempty"`
	// Hybrid names the embeddings model when vector similarity was fused
	// with BM25, or says why it was off.
	Hybrid string `json:"hybrid,omitempty"`
}

// Suggestion offers to save a recurring question as a learned query.
type Suggestion struct {
	Name    string `json:"name"`
	Asked   int    `json:"asked"` // times this plan was run
	Command string `json:"command"`
}

// Bounds, in tokens, on what a bundle's first lines repeat of the question
// and the items, so that they fit in MinBudget whatever the question.
const (
	maxHeadQuery   = 30
	maxHeadTitle   = 16
	maxHeadMissing = 24
)

// Text is the bundle as an agent reads it: the question and the summary,
// then each item's title, type, date and source on one line, and its
// passage.
func (b *Bundle) Text() string {
	var w strings.Builder
	fmt.Fprintf(&w, "Memory for %q (confidence: %s, %.2f)\n%s\n", clip(b.Query, maxHeadQuery), b.Level, b.Confidence, b.Summary)
	for i, it := range b.Items {
		w.WriteString("\n")
		meta := []string{}
		if it.Type != "" {
			meta = append(meta, it.Type)
		}
		if !it.Date.IsZero() {
			meta = append(meta, it.Date.UTC().Format(time.DateOnly))
		}
		src := it.Source
		switch {
		case len(it.Lines) == 2 && it.Lines[0] == it.Lines[1]:
			src += fmt.Sprintf(":%d", it.Lines[0])
		case len(it.Lines) == 2:
			src += fmt.Sprintf(":%d-%d", it.Lines[0], it.Lines[1])
		}
		title := it.Title
		if j := sameSession(b.Items[:i], it); j >= 0 {
			// Said once: the title of a session is its agent, id
			// and folder, a dozen tokens that tell nothing new.
			title = fmt.Sprintf("same session as [%d]", j+1)
		}
		fmt.Fprintf(&w, "[%d] %s", i+1, title)
		if len(meta) > 0 {
			fmt.Fprintf(&w, " (%s)", strings.Join(meta, ", "))
		}
		// One line of chrome per item: why it was picked and its score
		// are in the JSON form; the budget goes to the passages.
		fmt.Fprintf(&w, " %s\n", src)
		for _, l := range strings.Split(it.Passage, "\n") {
			w.WriteString("    " + l + "\n")
		}
	}
	if b.Suggest != nil {
		fmt.Fprintf(&w, "\nAsked %d times: save it as a learned query with `%s`.\n", b.Suggest.Asked, b.Suggest.Command)
	}
	return w.String()
}

// sameSession returns the index of the first of before that is a passage
// of the same past session as it, or -1.
func sameSession(before []Item, it Item) int {
	if it.Kind != "session" {
		return -1
	}
	for j, p := range before {
		if p.Kind == "session" && p.Title == it.Title {
			return j
		}
	}
	return -1
}
