// Package jsonobj edits JSON objects the way a person's config file should
// be edited: members keep the order they were written in, and the values
// the edit does not touch keep their bytes. Agents' settings files
// (Claude Code's settings.json and .claude.json, Cursor's and Gemini CLI's
// files) are edited through it, so that installing ctx0 changes one key
// and nothing else.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Object is a JSON object as written: its members in order, each value
// kept as raw bytes.
type Object []Member

// Member is one key of an Object and its value.
type Member struct {
	Key   string
	Value json.RawMessage
}

// ErrNotObject is returned for JSON text that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// Parse reads data, which must hold one JSON object and nothing after it.
func Parse(data []byte) (Object, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	o, err := decode(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, errors.New("text after the JSON object")
	}
	return o, nil
}

// UnmarshalJSON reads an object, so that an Object can sit in a struct or
// be the target of json.Unmarshal.
func (o *Object) UnmarshalJSON(b []byte) error {
	got, err := decode(json.NewDecoder(bytes.NewReader(b)))
	if err != nil {
		return err
	}
	*o = got
	return nil
}

func decode(d *json.Decoder) (Object, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, ErrNotObject
	}
	o := Object{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, Member{k, v})
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// MarshalJSON writes the object compactly, its values as they are.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Format renders the object as a file: indented with two spaces, as the
// agents write theirs, and ending in a newline.
func (o Object) Format() ([]byte, error) {
	compact, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// Index is the position of key in o, -1 if o has no such key.
func (o Object) Index(key string) int {
	for i, m := range o {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// Get returns key's value.
func (o Object) Get(key string) (json.RawMessage, bool) {
	if i := o.Index(key); i >= 0 {
		return o[i].Value, true
	}
	return nil, false
}

// Set encodes v (see Marshal) as key's value, where key is, or at the end.
func (o *Object) Set(key string, v any) error {
	raw, err := Marshal(v)
	if err != nil {
		return err
	}
	o.SetRaw(key, raw)
	return nil
}

// SetRaw makes raw key's value, where key is, or at the end.
func (o *Object) SetRaw(key string, raw json.RawMessage) {
	if i := o.Index(key); i >= 0 {
		(*o)[i].Value = raw
		return
	}
	*o = append(*o, Member{key, raw})
}

// Remove removes key, if o has it.
func (o *Object) Remove(key string) {
	if i := o.Index(key); i >= 0 {
		*o = append((*o)[:i], (*o)[i+1:]...)
	}
}

// Marshal encodes v as compact JSON without escaping <, > and &, which
// shell commands are full of and which a person would not recognise as
// \u003c and the like.
func Marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
