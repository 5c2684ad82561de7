package llm

import (
	"bytes"
	"encoding/json"
	"errors"
)

// maxCandidates bounds how many '{' extractJSON tries as the start of the
// object: prose rarely holds more than a few, and each try may read to the
// end of the text.
const maxCandidates = 64

// extractJSON finds the JSON object in a model's text reply. Models asked
// for only JSON still often wrap it in a ```json fence or put a sentence
// before or after it, so the first complete object in the text is taken,
// looking inside a fence first.
func extractJSON(text []byte) (json.RawMessage, error) {
	if inner, ok := fenced(text); ok {
		if obj, ok := firstObject(inner); ok {
			return obj, nil
		}
	}
	if obj, ok := firstObject(text); ok {
		return obj, nil
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, errors.New("the reply is empty")
	}
	return nil, errors.New("the reply holds no JSON object")
}

// fenced returns the body of the first ``` fence in text.
func fenced(text []byte) ([]byte, bool) {
	_, rest, ok := bytes.Cut(text, []byte("```"))
	if !ok {
		return nil, false
	}
	// The info string (json, JSON, or nothing) runs to the end of the line.
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, false
	}
	body, _, ok := bytes.Cut(rest[nl+1:], []byte("```"))
	return body, ok
}

// firstObject returns the first JSON object that decodes starting at one
// of text's first maxCandidates '{'.
func firstObject(text []byte) (json.RawMessage, bool) {
	for i, n := 0, 0; n < maxCandidates; n++ {
		j := bytes.IndexByte(text[i:], '{')
		if j < 0 {
			return nil, false
		}
		i += j
		var obj json.RawMessage
		if json.NewDecoder(bytes.NewReader(text[i:])).Decode(&obj) == nil {
			return obj, true
		}
		i++
	}
	return nil, false
}
