package redact

import (
	"regexp"
	"testing"
)

// TestGateExpr: the runs a pattern opens with are cut from its text, flag
// groups kept; a pattern that opens otherwise has no gate.
func TestGateExpr(t *testing.T) {
	tests := []struct{ in, want string }{
		{`(?i)[A-Za-z0-9_.-]*(?:password|pwd)\s*=\s*(\S+)`, `(?i)(?:password|pwd)\s*=\s*(\S+)`},
		{`(?i)[\w.-]{0,50}?(?:key|token)(?:[ \t\w.-]{0,20})=(\w{10,})`, `(?i)(?:key|token)(?:[ \t\w.-]{0,20})=(\w{10,})`},
		{`[\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:cohere|CO_API_KEY)[ \t]*)=([a-zA-Z0-9]{40})`, `(?i:(?:cohere|CO_API_KEY)[ \t]*)=([a-zA-Z0-9]{40})`},
		{`[^\]x]*abc`, `abc`},
		{`\bghp_[A-Za-z0-9]{36}`, ``},
		{`abc[\w]*`, ``},
	}
	for _, tt := range tests {
		if got := gateExpr(tt.in); got != tt.want {
			t.Errorf("gateExpr(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzGateExpr: a gate, when there is one, parses and keeps every group
// of the pattern, so that its submatches are the pattern's.
func FuzzGateExpr(f *testing.F) {
	f.Add(`(?i)[\w.-]{0,50}?(?:key)=(\w+)`)
	f.Add(`[a-z]*?(x)`)
	f.Fuzz(func(t *testing.T, expr string) {
		full, err := regexpCompile(expr)
		if err != nil {
			return
		}
		g := gateExpr(expr)
		if g == "" {
			return
		}
		gate, err := regexpCompile(g)
		if err != nil {
			t.Fatalf("gate %q of %q does not compile: %v", g, expr, err)
		}
		if gate.NumSubexp() != full.NumSubexp() {
			t.Fatalf("gate %q of %q has %d groups, the pattern %d", g, expr, gate.NumSubexp(), full.NumSubexp())
		}
	})
}

var regexpCompile = regexp.Compile
