package librarian

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Extraction is what the librarian keeps of one conversation, before it
// is written: the structured reply asked of a model (Schema), or what the
// offline extractor finds. The writer applies it the same way whichever
// made it.
type Extraction struct {
	Episode     Episode      `json:"episode"`
	Facts       []Item       `json:"facts"`
	Preferences []Item       `json:"preferences"`
	Decisions   []Item       `json:"decisions"`
	People      []Person     `json:"people"`
	Projects    []Project    `json:"projects"`
	Milestones  []Item       `json:"milestones"`
	Insights    []Item       `json:"insights"`
	Questions   []Item       `json:"questions"`
	Resolutions []Resolution `json:"resolutions"`
	Corrections []Item       `json:"corrections"`
}

// Episode is the summary of the conversation's task: what was asked, what
// was done, how it ended. Offline it is made of the conversation's own
// sentences.
type Episode struct {
	Title    string   `json:"title"`
	Request  string   `json:"request"`
	Done     string   `json:"done"`
	Outcome  string   `json:"outcome"`
	Files    []string `json:"files,omitempty"`
	Commands []string `json:"commands,omitempty"`
}

// Evidence is where an item came from: the number of the message in the
// formatted transcript ([#N]) and a short quote of it.
type Evidence struct {
	Message int    `json:"message"`
	Quote   string `json:"quote"`
}

// Item is a fact, preference, decision, milestone, insight, question or
// correction.
type Item struct {
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
	// Why is a decision's reasoning.
	Why string `json:"why,omitempty"`
	// Replaces is the earlier statement this one corrects, when the
	// conversation says so: the writer supersedes the entry holding it.
	Replaces string   `json:"replaces,omitempty"`
	Evidence Evidence `json:"evidence"`
}

// Person is someone the conversation taught something about.
type Person struct {
	Name     string   `json:"name"`
	Note     string   `json:"note"`
	Evidence Evidence `json:"evidence"`
}

// Project is what happened to a project, and optionally its new overview.
type Project struct {
	Name     string   `json:"name"`
	Overview string   `json:"overview,omitempty"`
	Activity string   `json:"activity"`
	Evidence Evidence `json:"evidence"`
}

// Resolution is an error and what fixed it.
type Resolution struct {
	Error    string   `json:"error"`
	Fix      string   `json:"fix"`
	Evidence Evidence `json:"evidence"`
}

// Schema is the JSON Schema of an Extraction, sent with the request to a
// model and used to check its reply.
//
//go:embed schema.json
var Schema []byte

// SchemaName names the reply's shape for the providers' APIs.
const SchemaName = "extraction"

// ErrExtraction prefixes the errors of ParseExtraction.
var ErrExtraction = errors.New("extraction")

var resolved = sync.OnceValues(func() (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(Schema, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
})

// ParseExtraction reads a model's reply: JSON that must match Schema.
// Unknown fields are refused rather than dropped, so a reply of the wrong
// shape fails loudly instead of filing nothing.
func ParseExtraction(data []byte) (Extraction, error) {
	rs, err := resolved()
	if err != nil {
		return Extraction{}, fmt.Errorf("%w: schema: %v", ErrExtraction, err)
	}
	var inst any
	if err := json.Unmarshal(data, &inst); err != nil {
		return Extraction{}, fmt.Errorf("%w: %v", ErrExtraction, err)
	}
	if err := rs.Validate(inst); err != nil {
		return Extraction{}, fmt.Errorf("%w: %v", ErrExtraction, err)
	}
	var x Extraction
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return Extraction{}, fmt.Errorf("%w: %v", ErrExtraction, err)
	}
	return x, nil
}
