package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaError is a reply that is not a JSON object matching its request's
// schema.
type SchemaError struct {
	Provider string
	Schema   string // the request's SchemaName
	Problem  string // what is wrong, as the model is told when asked again
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s: the reply does not match schema %s: %s", e.Provider, e.Schema, e.Problem)
}

// WithSchema validates p's replies against their request's schema. A reply
// that does not match is asked for once more, with what was wrong appended
// to the prompt (models usually fix what they are shown); a second
// mismatch fails with a *SchemaError. The returned usage counts both
// attempts, also on failure.
func WithSchema(p Provider) Provider { return schemaChecked{p} }

type schemaChecked struct{ Provider }

func (s schemaChecked) Complete(ctx context.Context, r Request) (Reply, error) {
	rs, err := resolveSchema(r.schema())
	if err != nil {
		return Reply{}, fmt.Errorf("%s: schema %s: %w", s.Name(), r.schemaName(), err)
	}
	var spent Usage
	ask := r
	for attempt := 0; ; attempt++ {
		reply, err := s.Provider.Complete(ctx, ask)
		spent = spent.Add(reply.Usage)
		reply.Usage = spent
		if err == nil {
			if problem := validate(rs, reply.JSON); problem != "" {
				err = &SchemaError{Provider: s.Name(), Schema: r.schemaName(), Problem: problem}
			}
		}
		var se *SchemaError
		if err == nil || !errors.As(err, &se) || attempt == 1 {
			if err != nil {
				reply.JSON = nil
			}
			return reply, err
		}
		ask.Prompt = fmt.Sprintf("%s\n\nYour previous reply was rejected because it did not match the schema %s: %s\nAnswer again with a JSON object that matches the schema exactly.", r.Prompt, r.schemaName(), se.Problem)
	}
}

func resolveSchema(schema json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// validate says what is wrong with a reply, "" when nothing is.
func validate(rs *jsonschema.Resolved, reply json.RawMessage) string {
	var v any
	if err := json.Unmarshal(reply, &v); err != nil {
		return fmt.Sprintf("the reply is not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return "the reply is not a JSON object"
	}
	if err := rs.Validate(v); err != nil {
		return err.Error()
	}
	return ""
}
