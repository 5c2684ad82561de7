package jsonobj

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestParseKeepsOrderAndBytes(t *testing.T) {
	in := `{"z": 1, "a": {"y" : [1,  2]}, "m": "x<y"}`
	o, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range o {
		keys = append(keys, m.Key)
	}
	if want := []string{"z", "a", "m"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if got, _ := o.Get("a"); string(got) != `{"y" : [1,  2]}` {
		t.Errorf("value of a = %s, want its bytes as written", got)
	}
	out, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1,"a":{"y" : [1,  2]},"m":"x<y"}`; string(out) != want {
		t.Errorf("MarshalJSON = %s, want %s", out, want)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]error{
		`[]`:         ErrNotObject,
		`"x"`:        ErrNotObject,
		`{} {}`:      nil, // some error: text after the object
		`{"a": 1`:    nil,
		`{"a": 1,}`:  nil,
		``:           nil,
		`{"a" 1}`:    nil,
		`{"a": nul}`: nil,
	} {
		_, err := Parse([]byte(in))
		if err == nil {
			t.Errorf("Parse(%q) succeeded", in)
			continue
		}
		if want != nil && !errors.Is(err, want) {
			t.Errorf("Parse(%q) = %v, want %v", in, err, want)
		}
	}
}

func TestEdit(t *testing.T) {
	o, err := Parse([]byte(`{"a": 1, "b": 2, "c": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Set("b", []string{"<&>"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Set("d", 4); err != nil {
		t.Fatal(err)
	}
	o.Remove("a")
	o.Remove("missing")
	got, err := o.Format()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"b\": [\n    \"<&>\"\n  ],\n  \"c\": 3,\n  \"d\": 4\n}\n"
	if string(got) != want {
		t.Errorf("Format =\n%s\nwant\n%s", got, want)
	}
	if o.Index("c") != 1 || o.Index("a") != -1 {
		t.Errorf("Index(c) = %d, Index(a) = %d; want 1, -1", o.Index("c"), o.Index("a"))
	}
}

// An Object inside a struct or under json.Unmarshal reads as Parse reads.
func TestUnmarshal(t *testing.T) {
	var v struct {
		Hooks Object `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(`{"hooks": {"b": 1, "a": 2}}`), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Hooks) != 2 || v.Hooks[0].Key != "b" {
		t.Errorf("hooks = %v, want b then a", v.Hooks)
	}
	var o Object
	if err := json.Unmarshal([]byte(`[1]`), &o); err == nil {
		t.Error("json.Unmarshal of an array into an Object succeeded")
	}
}

// Whatever parses renders to JSON that parses to the same members.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"a": {"b": [1, "<x>"]}, "c": null}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		out, err := o.Format()
		if err != nil {
			t.Fatalf("Format of a parsed object: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse of Format's output %q: %v", out, err)
		}
		if len(again) != len(o) {
			t.Fatalf("%d members after a round trip, want %d", len(again), len(o))
		}
		for i := range o {
			var a, b any
			json.Unmarshal(o[i].Value, &a)
			json.Unmarshal(again[i].Value, &b)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if again[i].Key != o[i].Key || string(ja) != string(jb) {
				t.Fatalf("member %d: %s=%s after a round trip, want %s=%s", i, again[i].Key, jb, o[i].Key, ja)
			}
		}
	})
}
