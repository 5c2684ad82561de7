package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The keys below are made up for the tests: right shape, no account.
func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "Sarah prefers email over calls.", "Sarah prefers email over calls."},
		{"anthropic key", "export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "export ANTHROPIC_API_KEY=[REDACTED:anthropic-key]"},
		{"openai key", "key sk-proj-abcdefghij1234567890ABCDEFGHIJ in the env", "key [REDACTED:openai-key] in the env"},
		{"short sk- is a word", "use sk-learn for this", "use sk-learn for this"},
		{"sk- inside base64 is not a key", "gAAAAABoXsk-abcdefghijklmnopqrstuvwxyz0123", "gAAAAABoXsk-abcdefghijklmnopqrstuvwxyz0123"},
		{"aws access key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = [REDACTED:aws-access-key]"},
		{"aws secret by field name", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED:secret]"},
		{"github token", "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r", "git clone https://[REDACTED:github-token]@github.com/o/r"},
		{"fine-grained github token", "GH_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GH_TOKEN=[REDACTED:github-token]"},
		{"slack token", "SLACK=xoxb-1234567890-abcdefghij", "SLACK=[REDACTED:slack-token]"},
		{"google key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED:google-api-key]"},
		{"gitlab token", "glpat-abcdefghij0123456789", "[REDACTED:gitlab-token]"},
		{"npm token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]"},
		{"stripe key", "sk_live_abcdefghijklmnop1234", "[REDACTED:stripe-key]"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[REDACTED:jwt]"},
		{"bearer token", "curl -H 'Authorization: Bearer abcdef0123456789abcdef0123456789' https://api.example.com", "curl -H 'Authorization: Bearer [REDACTED:bearer]' https://api.example.com"},
		{"bearer placeholder stays", "Authorization: Bearer <token>", "Authorization: Bearer <token>"},
		{"basic auth", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "Authorization: Basic [REDACTED:basic-auth]"},
		{"password in url", "DATABASE_URL=postgres://app:s3cr3t-pw@db.example.com:5432/app", "DATABASE_URL=postgres://app:[REDACTED:password]@db.example.com:5432/app"},
		{"url without password", "see https://user@example.com/path and http://example.com:8080/x", "see https://user@example.com/path and http://example.com:8080/x"},
		{"password assignment", "DB_PASSWORD=hunter22 ./run", "DB_PASSWORD=[REDACTED:password] ./run"},
		{"password yaml", "  password: correct-horse", "  password: [REDACTED:password]"},
		{"password json", `{"password": "hunter2"}`, `{"password": "[REDACTED:password]"}`},
		{"password from code stays", `password = os.environ["PASSWORD"]`, `password = os.environ["PASSWORD"]`},
		{"token from a call stays", "token = getToken()", "token = getToken()"},
		{"api key assignment", `api_key: "a1b2c3d4e5f6"`, `api_key: "[REDACTED:secret]"`},
		{"client secret", "CLIENT_SECRET=0123456789abcdef", "CLIENT_SECRET=[REDACTED:secret]"},
		{
			"private key",
			"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdef\n-----END RSA PRIVATE KEY-----\ndone",
			"key:\n[REDACTED:private-key]\ndone",
		},
		{"truncated private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA", "[REDACTED:private-key]"},
		{"public key stays", "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----"},
		{"two secrets", "sk-ant-aaaaaaaaaaaaaaaaaaaaaaaa and AKIAIOSFODNN7EXAMPLE", "[REDACTED:anthropic-key] and [REDACTED:aws-access-key]"},
		{"marker stays", "password=[REDACTED:password]", "password=[REDACTED:password]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent: %q became %q", got, again)
			}
		})
	}
}

// FuzzString: redacting never panics, is idempotent, keeps valid UTF-8
// valid, and leaves text without secrets alone.
func FuzzString(f *testing.F) {
	f.Add("")
	f.Add("password=hunter22 sk-ant-abcdefghijklmnopqrstuvwxyz https://u:p@h/ Bearer abcdefghijklmnopqrstu")
	f.Add("-----BEGIN PRIVATE KEY-----\nabc")
	f.Fuzz(func(t *testing.T, s string) {
		once := String(s)
		if twice := String(once); twice != once {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", s, once, twice)
		}
		if utf8.ValidString(s) && !utf8.ValidString(once) {
			t.Fatalf("made invalid UTF-8 of %q: %q", s, once)
		}
		if once != s && !strings.Contains(once, "[REDACTED:") {
			t.Fatalf("changed %q to %q without a marker", s, once)
		}
	})
}
