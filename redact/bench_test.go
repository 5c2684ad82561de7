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
	run(b, text)
}

// BenchmarkCorpus: the whole corpus, secrets and near-misses, as one text.
func BenchmarkCorpus(b *testing.B) {
	data, err := os.ReadFile("testdata/corpus.txtar")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.NewReplacer("«", "", "»", "").Replace(string(data))
	run(b, text)
}

// run redacts text b.N times, and reports the CPU time an operation took
// beside the wall time.
func run(b *testing.B, text string) {
	redact.String(text) // the rules a text needs are compiled once
	b.SetBytes(int64(len(text)))
	start := cpuTime()
	for b.Loop() {
		redact.String(text)
	}
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkPlain: prose in which no rule's words occur but the
// commonest ("s." ends many a sentence).
func BenchmarkPlain(b *testing.B) {
	run(b, strings.Repeat("The deploy failed because the config in deploy.yaml points at the old host; I fixed it and reran the tests. ", 200))
}
