// Command tokcount measures the samples in samples.json with OpenAI's
// cl100k_base and o200k_base tokenizers and writes ../tokens.json, the
// table that extractor's tests check Tokens against. It is a module of its
// own so that ctx0 does not depend on the tokenizer's 4 MB of vocabularies:
//
//	cd extractor/testdata/tokcount && go run .
package main

import (
	"encoding/json"
	"log"
	"os"

	"github.com/tiktoken-go/tokenizer"
)

// count is one sample and what each tokenizer makes of it.
type count struct {
	Text       string `json:"text"`
	Cl100kBase int    `json:"cl100k_base"`
	O200kBase  int    `json:"o200k_base"`
}

func main() {
	data, err := os.ReadFile("samples.json")
	if err != nil {
		log.Fatal(err)
	}
	var samples []string
	if err := json.Unmarshal(data, &samples); err != nil {
		log.Fatal(err)
	}
	cl, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		log.Fatal(err)
	}
	o2, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		log.Fatal(err)
	}
	out := make([]count, len(samples))
	for i, s := range samples {
		a, _, err := cl.Encode(s)
		if err != nil {
			log.Fatal(err)
		}
		b, _, err := o2.Encode(s)
		if err != nil {
			log.Fatal(err)
		}
		out[i] = count{Text: s, Cl100kBase: len(a), O200kBase: len(b)}
	}
	data, err = json.MarshalIndent(out, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("../tokens.json", append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}
