package redact_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/redact"
)

// The benchmarks use String only, so that scripts/bench-redact.sh can run
// them against the redactor of another commit in the same run.

// BenchmarkProse: a conversation's text where the words that gate many
// rules (key, token, secret, password, api) occur in every sentence and
// no secret does.
func BenchmarkProse(b *testing.B) {
	text := strings.Repeat("The API key rotation is done weekly; ask the team about the token budget. They said the secret store has access logs, and the password policy is strict. ", 140)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		redact.String(text)
	}
}

// BenchmarkCorpus: the whole corpus, secrets and near-misses, as one text.
func BenchmarkCorpus(b *testing.B) {
	data, err := os.ReadFile("testdata/corpus.txtar")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.NewReplacer("«", "", "»", "").Replace(string(data))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		redact.String(text)
	}
}
