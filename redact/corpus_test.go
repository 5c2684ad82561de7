package redact_test

import (
	"testing"

	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/redact/redacttest"
)

// TestCorpus: every secret of the corpus is replaced by a marker, and the
// text around it stays byte for byte; every near-miss comes out unchanged.
func TestCorpus(t *testing.T) {
	secrets, keeps := redacttest.Corpus(t)
	if len(secrets) < 150 || len(keeps) < 100 {
		t.Fatalf("corpus has %d secrets and %d near-misses; want at least 150 and 100", len(secrets), len(keeps))
	}
	for _, c := range secrets {
		t.Run(c.Name, func(t *testing.T) {
			got := redact.String(c.Text)
			if !c.Want.MatchString(got) {
				t.Errorf("String(%q)\n got %q\nwant %s", c.Text, got, c.Want)
			}
			if s := c.Leaks(got); s != "" {
				t.Errorf("String(%q) = %q still holds %q", c.Text, got, s)
			}
		})
	}
	for _, c := range keeps {
		t.Run(c.Name, func(t *testing.T) {
			if got := redact.String(c.Text); got != c.Text {
				t.Errorf("String changed a near-miss:\n  in %q\n got %q", c.Text, got)
			}
		})
	}
}

// FuzzCorpus starts from the corpus: whatever the fuzzer makes of a text,
// redacting is idempotent.
func FuzzCorpus(f *testing.F) {
	secrets, keeps := redacttest.Corpus(f)
	for _, c := range append(secrets, keeps...) {
		f.Add(c.Text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := redact.String(s)
		if twice := redact.String(once); twice != once {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", s, once, twice)
		}
	})
}
