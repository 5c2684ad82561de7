// Package redact replaces secrets in text (API keys, tokens, passwords,
// private keys) with a marker that names their kind, [REDACTED:kind]. Session
// transcripts pass through it before they are stored, and an export can pass
// a vault through it before it is shared.
//
// It recognizes secrets by their shape, so it errs on the side of
// redacting: a value assigned to a field named like a password is redacted
// whatever it looks like. Its own rules (the commonest keys, and secrets
// known by the words around them: assignments, command lines, .netrc and
// .pgpass lines, URLs, sentences) run first, then gitleaks' detection
// rules, taken as data (gitleaks.go). Redacting twice gives the same text
// as redacting once. Every path that stores, names, exports or sends text
// calls this package, so a rule added here reaches all of them.
package redact

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/ctx0/ctx0/internal/lazy"
)

// Marker is how a redacted secret of kind reads in the output.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// rule finds one kind of secret. The secret is the whole match, or a
// submatch when the pattern has one (the rest, such as "Bearer " or
// "password=", is context that stays): the submatch numbered group when
// group is set, else the first that is not empty. hints are substrings one
// of which must occur in the text, checked case-insensitively when fold is
// set, so the regular expression only runs on text that may hold a match;
// a rule without hints runs on every text.
type rule struct {
	kind string
	expr string
	// re is expr compiled, the first time a text holds one of the hints.
	re func() *regexp.Regexp
	// gate, when set, must match s before re runs on it (see gateOf).
	gate  func() *regexp.Regexp
	hints []string
	fold  bool
	group int
	// bounded: the match must not continue a longer token on its left, so
	// "sk-" inside base64 or a word is not taken for a key.
	bounded bool
	// valid, when set, must accept the secret: the rules that find a
	// secret by the words around it rather than by its own shape need the
	// value to look like a credential, so "the password policy is strict"
	// stays.
	valid func(secret string) bool
	// entropy, when set, is the Shannon entropy (bits per character) the
	// secret must exceed, and allow the lists of what is not a secret
	// after all: both come with gitleaks' rules (see gitleaks.go).
	entropy float64
	allow   []*allowlist
	// near: one of the hints must occur in the match or just before it,
	// not only somewhere in the text. gitleaks checks its keywords per
	// file; a transcript or a vault export is many files' worth, and a
	// rule such as Sourcegraph's, which takes any 40 hex digits once
	// "sourcegraph" occurs, would take every commit hash in it.
	near bool
	// assign: the pattern is built on the assignment template (see
	// isAssignment), and runs only
	// where its keywords are followed by an operator; anchored, when
	// set, is its gate anchored at the keyword (see assignMatches).
	assign   bool
	anchored func() *regexp.Regexp
	// reach, when set, gives the longest match the pattern can make, 0 for
	// no bound: a near rule with a bound runs only around its hints.
	reach func() int
	// prefix, when set, finds the matches by their opening words (see
	// prefixed); it gives nil for a pattern without such words.
	prefix func() *prefixed
}

// assignedValue is what may follow "password=" and the like: a quoted
// string, or a run that ends at a space, a quote, a separator or the end of
// the text. Neither may hold the brackets, braces and parentheses of code,
// so `token = getToken()` and `password = os.environ["PASSWORD"]` stay.
const assignedValue = `(?:"([^"\s\[\]{}()<>$]{4,})"|'([^'\s\[\]{}()<>$]{4,})'|([^\s"'\[\]{}()<>$,;]{6,})(?:[\s"',;]|\z))`

// ownRules are ctx0's own: the shapes of the keys people paste most, and
// the secrets that are known by the words around them (an assignment, a
// command line, a sentence) rather than by their own shape, which no rule
// set for source code covers. gitleaks' rules run after them (see
// gitleaks.go). The order matters: specific shapes first, so a key
// assigned to a variable is named by its shape, not by the variable.
var ownRules = []rule{
	{
		kind:  "private-key",
		expr:  `(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\z)`,
		hints: []string{"PRIVATE KEY-----"},
	},
	{kind: "anthropic-key", expr: `sk-ant-[A-Za-z0-9_-]{20,}`, hints: []string{"sk-ant-"}, bounded: true},
	{kind: "openai-key", expr: `sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, hints: []string{"sk-"}, bounded: true},
	{kind: "stripe-key", expr: `(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`, hints: []string{"_live_", "_test_"}, bounded: true},
	{kind: "stripe-key", expr: `whsec_[A-Za-z0-9]{24,}`, hints: []string{"whsec_"}, bounded: true},
	{kind: "aws-access-key", expr: `(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`, hints: []string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"}, bounded: true},
	{kind: "github-token", expr: `(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`, hints: []string{"gh", "github_pat_"}, bounded: true},
	{kind: "gitlab-token", expr: `glpat-[A-Za-z0-9_-]{20,}`, hints: []string{"glpat-"}, bounded: true},
	{kind: "slack-token", expr: `xox[abposr]-[A-Za-z0-9-]{10,}`, hints: []string{"xox"}, bounded: true},
	{kind: "google-api-key", expr: `AIza[0-9A-Za-z_-]{35}`, hints: []string{"AIza"}, bounded: true},
	{kind: "npm-token", expr: `npm_[A-Za-z0-9]{36}`, hints: []string{"npm_"}, bounded: true},
	{kind: "pypi-token", expr: `pypi-AgE[A-Za-z0-9_-]{50,}`, hints: []string{"pypi-AgE"}, bounded: true},
	{kind: "docker-token", expr: `dckr_pat_[A-Za-z0-9_-]{24,}`, hints: []string{"dckr_pat_"}, bounded: true},
	{kind: "sendgrid-key", expr: `SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`, hints: []string{"SG."}, bounded: true},
	{kind: "twilio-key", expr: `(?:SK|AC)[0-9a-f]{32}\b`, hints: []string{"SK", "AC"}, bounded: true},
	{kind: "huggingface-token", expr: `hf_[A-Za-z0-9]{34,}`, hints: []string{"hf_"}, bounded: true},
	{kind: "google-oauth-secret", expr: `GOCSPX-[A-Za-z0-9_-]{28}`, hints: []string{"GOCSPX-"}, bounded: true},
	{kind: "shopify-token", expr: `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, hints: []string{"shp"}, bounded: true},
	{kind: "digitalocean-token", expr: `do[opr]_v1_[a-f0-9]{64}`, hints: []string{"_v1_"}, bounded: true},
	{kind: "azure-client-secret", expr: `[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`, hints: []string{"Q~"}, bounded: true},
	{
		// https://hooks.slack.com/services/T…/B…/…: the URL is the secret.
		kind:  "slack-webhook",
		expr:  `hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9_/-]{20,})`,
		hints: []string{"hooks.slack.com"},
	},
	{
		// An Azure shared access signature in a URL's query.
		kind:  "azure-sas",
		expr:  `[?&]sig=([A-Za-z0-9%+/=]{20,})`,
		hints: []string{"sig="},
	},
	{kind: "jwt", expr: `eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, hints: []string{"eyJ"}, bounded: true},
	{
		kind:  "bearer",
		expr:  `(?i)\b(?:bearer|token)\s+([A-Za-z0-9._~+/-]{16,}=*)`,
		hints: []string{"bearer", "token"},
		fold:  true,
	},
	{
		kind:  "basic-auth",
		expr:  `(?i)\bbasic\s+([A-Za-z0-9+/]{12,}=*)`,
		hints: []string{"authorization"},
		fold:  true,
	},
	{
		// scheme://user:password@host. The password runs to the last @
		// before the host, so one that holds an @ or a ! is taken whole
		// (postgres://app:p@ssw0rd!2024@db).
		kind:  "password",
		expr:  `[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@\[\]]*:([^/?#\s\[\]]+)@[A-Za-z0-9\[_-]`,
		hints: []string{"://"},
	},
	{
		// A Sentry DSN: https://<key>@o1.ingest.sentry.io/42; the key is
		// what lets anyone send events as the project.
		kind:  "sentry-dsn",
		expr:  `https?://([0-9a-f]{32}(?::[0-9a-f]{32})?)@[A-Za-z0-9.-]+(?::\d+)?/(?:[\w.-]+/)*\d+\b`,
		hints: []string{"://"},
	},
	{
		// https://discord.com/api/webhooks/<id>/<token>
		kind:  "discord-webhook",
		expr:  `(?i)discord(?:app)?\.com/api(?:/v\d+)?/webhooks/(\d{15,22}/[A-Za-z0-9_-]{40,})`,
		hints: []string{"discord"},
		fold:  true,
	},
	{
		// Microsoft Teams incoming webhooks, old and new hosts.
		kind:  "teams-webhook",
		expr:  `(?i)(?:webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/([^\s"'<>()\[\]]{20,})`,
		hints: []string{"webhook"},
		fold:  true,
	},
	{kind: "xai-key", expr: `xai-[A-Za-z0-9]{40,}`, hints: []string{"xai-"}, bounded: true},
	{
		// <bot id>:<secret>, as BotFather gives it.
		kind:    "telegram-bot-token",
		expr:    `(\d{8,10}:AA[A-Za-z0-9_-]{33})(?:[^A-Za-z0-9_-]|\z)`,
		hints:   []string{":AA"},
		bounded: true,
	},
	{kind: "age-secret-key", expr: `AGE-SECRET-KEY-1[0-9A-Z]{58}`, hints: []string{"AGE-SECRET-KEY-1"}, bounded: true},
	{
		// ~/.docker/config.json: "auth" is base64 of user:password.
		kind:  "docker-auth",
		expr:  `"(?:auth|identitytoken|registrytoken)"\s*:\s*"([^"\s]{8,})"`,
		hints: []string{`"auth"`, "identitytoken", "registrytoken"},
		fold:  true,
	},
	{
		// A kubeconfig's client key, base64 of a PEM private key.
		kind:  "private-key",
		expr:  `client-key-data["']?\s*:\s*["']?([A-Za-z0-9+/=]{16,})`,
		hints: []string{"client-key-data"},
	},
	{
		// A PuTTY key file: the private lines and their MAC; the header
		// and the public lines are not secret.
		kind:  "private-key",
		expr:  `(?s)PuTTY-User-Key-File-\d+:.*?(Private-Lines:.*?(?:Private-MAC:\s*[0-9a-fA-F]+|\z))`,
		hints: []string{"PuTTY-User-Key-File-"},
	},
	{
		// mysql -uroot -pS3cret: the password is glued to -p (-p alone
		// asks for it; -P is the port).
		kind:  "password",
		expr:  `\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'$-][^\s"']*))`,
		hints: []string{"mysql", "mariadb"},
	},
	{
		// sshpass -p S3cret ssh host, redis-cli -a S3cret.
		kind:  "password",
		expr:  `\b(?:sshpass(?:\s+-[a-oq-zA-Z]\S*)*\s+-p|redis-cli\b[^\n|;&]*?\s(?:-a|--pass))\s*(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'$-][^\s"']*))`,
		hints: []string{"sshpass", "redis-cli"},
	},
	{
		// curl -u user:S3cret, curl --user=user:S3cret.
		kind:  "password",
		expr:  `\bcurl\b[^\n|;&]*?\s(?:-u|--user)(?:=|\s*)(?:"[^"\s:]*:([^"\s$][^"\s]*)"|'[^'\s:]*:([^'\s$][^'\s]*)'|[^\s:"']+:([^\s"'$][^\s"']*))`,
		hints: []string{"curl"},
	},
	{
		// --password S3cret on any command line (--password=S3cret is
		// an assignment, below); "the --password flag" stays.
		kind:  "password",
		expr:  `(?i)(?:^|\s)--?(?:[a-z]+-)?(?:password|passwd|pass|pwd)\s+(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'$-][^\s"']*))`,
		hints: []string{"-pass", "-pwd", "-db-pass", "-http-pass"},
		fold:  true,
		valid: looksLikeCredential,
	},
	{
		// .netrc: machine host login me password S3cret, on one line or
		// several.
		kind:  "password",
		expr:  `(?i)\b(?:machine\s+\S+|default)(?:` + lineBreak + `(?:login|account|port)\s+\S+)+` + lineBreak + `password\s+(\S+)`,
		hints: []string{"machine", "default"},
		fold:  true,
	},
	{
		// .pgpass: host:port:database:user:password, one a line.
		kind:  "password",
		expr:  `(?m)(?:^|\s)[A-Za-z0-9_.*\[\]-]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:(\S+?)[ \t]*$`,
		hints: []string{":5432:", ":5433:", ":6432:", ":*:"},
	},
	{
		kind:  "password",
		expr:  `(?i)[A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd)["']?\s*[:=]\s*` + assignedValue,
		hints: []string{"pass", "pwd"},
		fold:  true,
		valid: notPlaceholder,
	},
	{
		kind:  "secret",
		expr:  `(?i)[A-Za-z0-9_.-]*(?:secret|api[_-]?key|access[_-]?key|account[_-]?key|shared[_-]?access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|client[_-]?secret)["']?\s*[:=]\s*` + assignedValue,
		hints: []string{"secret", "key", "token"},
		fold:  true,
		valid: notPlaceholder,
	},
	{
		// --api-key X, --token=X on a command line: the value must look
		// generated, so "--token-file path" and "--token $T" stay.
		kind:  "secret",
		expr:  `(?i)(?:^|\s)--?(?:api-?key|token|auth-token|access-token|secret|client-secret)(?:=|\s+)["']?([A-Za-z0-9_+/=.~-]{16,})`,
		hints: []string{"-api", "-token", "-auth", "-access", "-secret", "-client"},
		fold:  true,
		valid: looksRandom,
	},
	{
		// A bare "key=" or "token:" names too many things that are not
		// secrets (a sort key, a token count), so the value must look
		// random as well.
		kind:  "secret",
		expr:  `(?i)(?:^|[^A-Za-z0-9])(?:key|token|apikey)s?["']?\s*[:=]\s*["']?([A-Za-z0-9_+/=.~-]{16,})`,
		hints: []string{"key", "token"},
		fold:  true,
		valid: looksRandom,
	},
	{
		// Prose: "the admin password is Tr0ub4dor&3", "the secret for
		// prod was wJalr…". Only a value that looks like a credential is
		// taken, so "the password policy is strict" stays.
		kind:  "password",
		expr:  `(?i)\b(?:password|passwd|passphrase|pwd|pin code)s?(?:\s+(?:for|of|on|to|at)\s+(?:the\s+|our\s+|my\s+|a\s+)?[\w.-]+(?:\s+[\w.-]+){0,2})?\s+(?:is|was)\s+(?:now\s+|still\s+|set\s+to\s+)?` + proseValue,
		hints: []string{"pass", "pwd", "pin code"},
		fold:  true,
		valid: looksLikeCredential,
	},
	{
		kind:  "secret",
		expr:  `(?i)\b(?:secret|secret key|api key|access key|token|credential)s?(?:\s+(?:for|of|on|to|at)\s+(?:the\s+|our\s+|my\s+|a\s+)?[\w.-]+(?:\s+[\w.-]+){0,2})?\s+(?:is|was)\s+(?:now\s+|still\s+|set\s+to\s+)?` + proseValue,
		hints: []string{"secret", "key", "token", "credential"},
		fold:  true,
		valid: looksLikeCredential,
	},
}

// lineBreak is the space between two words of a file that may span
// lines, shown with line numbers or not ("   12\t  password x", as a
// file viewer numbers them).
const lineBreak = `\s+(?:\d+\t[ \t]*)?`

// proseValue is a word in a sentence, quoted or not; a full stop or comma
// after it ends the sentence, not the value, and a word with brackets is
// code (getToken()), not a value.
const proseValue = "(?:\"([^\"\\s]{4,})\"|'([^'\\s]{4,})'|`([^`\\s]{4,})`|([^\\s\"'`()\\[\\]{}<>]*[^\\s\"'`.,;:!?()\\[\\]{}<>])(?:[\\s.,;:!?]|\\z))"

// notPlaceholder accepts a value that is not one of the stand-ins that
// documentation and templates put where a secret goes: ********, xxxx,
// changeme, your_api_key_here.
func notPlaceholder(v string) bool {
	l := strings.ToLower(strings.Trim(v, `"'`))
	if l == "" || strings.Count(l, l[:1]) == len(l) {
		return false
	}
	for _, w := range []string{"changeme", "change-me", "change_me", "placeholder", "redacted"} {
		if strings.Contains(l, w) {
			return false
		}
	}
	return !strings.HasPrefix(l, "your") && !strings.HasPrefix(l, "<")
}

// looksLikeCredential accepts a word that mixes letters with digits or
// symbols, as passwords and keys do and words of a sentence do not.
func looksLikeCredential(s string) bool {
	if len(s) < 6 || strings.HasPrefix(s, "[REDACTED:") {
		return false
	}
	var letter, other bool
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r), unicode.IsPunct(r), unicode.IsSymbol(r):
			other = true
		}
	}
	return letter && other
}

// looksRandom accepts a long value with letters and digits both, the mark
// of a generated key rather than a name such as created_at.
func looksRandom(s string) bool {
	var letter, digit bool
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		}
	}
	return len(s) >= 16 && letter && digit
}

// maxPasses bounds the passes over a text. One pass nearly always suffices;
// another runs only when a pass changed something, so that redacting is
// idempotent even where one replacement uncovers another match.
const maxPasses = 4

// String returns s with every secret it recognizes replaced by
// [REDACTED:kind].
func String(s string) string {
	for range maxPasses {
		out := pass(s)
		if out == s {
			return s
		}
		s = out
	}
	return s
}

// engine is every rule, ctx0's own first, and the hints that gate them,
// built on first use: the CLI links this package into every command, most
// of which never redact.
type engine struct {
	rules []*rule
	own   int // rules[:own] are ownRules
	hints *hintSet
	// ruleHints[i] are the ids of rule i's hints in hints.
	ruleHints [][]int32
	nHints    int
}

var theEngine = sync.OnceValue(func() *engine {
	e := &engine{}
	for i := range ownRules {
		r := &ownRules[i]
		r.re, r.gate, r.prefix = lazy.Regexp(r.expr), lazyGate(r.expr), lazyPrefixed(r.expr)
		e.rules = append(e.rules, r)
	}
	e.own = len(e.rules)
	e.rules = append(e.rules, gitleaksRules()...)
	ids := map[string]int32{}
	var all []string
	for _, r := range e.rules {
		var mine []int32
		for _, h := range r.hints {
			k := strings.ToLower(h)
			id, ok := ids[k]
			if !ok {
				id = int32(len(all))
				ids[k] = id
				all = append(all, k)
			}
			mine = append(mine, id)
		}
		e.ruleHints = append(e.ruleHints, mine)
	}
	e.hints, e.nHints = newHintSet(all), len(all)
	return e
})

// pass runs every rule once. ctx0's own rules replace in turn, so that a
// key in an assignment is named by its shape before the assignment rule
// sees it; gitleaks' rules all look at the same text and their secrets are
// replaced together, a span two rules overlap as one, so that a rule for
// a shorter shape (FLWSECK_TEST-… of 12) cannot cut a longer one (of 32)
// in two and leave its tail.
func pass(s string) string {
	e := theEngine()
	found := make([]bool, e.nHints)
	e.hints.find(s, found)
	var spans []span
	var lower string // s with ASCII lowered, for gitleaks' rules
	for i, r := range e.rules {
		if !r.mayMatch(s, e.ruleHints[i], found) {
			continue
		}
		if i < e.own {
			s = replaceSpans(s, r.secrets(s, ""))
			continue
		}
		if lower == "" {
			lower = asciiLower(s)
		}
		spans = append(spans, r.secrets(s, lower)...)
	}
	return replaceSpans(s, spans)
}

// span is a secret of kind at s[start:end].
type span struct {
	start, end int
	kind       string
}

// replaceSpans replaces each span of s by its marker; overlapping spans
// become one, named by the one that starts first (the longest if several
// do).
func replaceSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && spans[i].start < cur.end; i++ {
			cur.end = max(cur.end, spans[i].end)
		}
		b.WriteString(s[last:cur.start])
		b.WriteString(Marker(cur.kind))
		last = cur.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// mayMatch reports whether s holds one of the rule's hints: found tells
// which occur in any case; a rule that is not folded checks its own case.
func (r *rule) mayMatch(s string, ids []int32, found []bool) bool {
	if len(ids) == 0 {
		return true
	}
	for j, id := range ids {
		if found[id] && (r.fold || strings.Contains(s, r.hints[j])) {
			return true
		}
	}
	return false
}

// secrets finds the rule's secrets in s; lower is s with ASCII lowered,
// or "" if not at hand.
func (r *rule) secrets(s, lower string) []span {
	if lower == "" {
		lower = s
		if r.assign || r.reach != nil {
			lower = asciiLower(s)
		}
	}
	var matches [][]int
	switch {
	case r.assign && !assigned(s, lower, r.hints):
		// No keyword an operator follows: nothing to compile or run.
		return nil
	case r.assign && r.anchored() != nil:
		matches = assignMatches(r.anchored(), s, lower, r.hints)
	case r.assign:
		matches = findInWindows(r.re(), s, assignWindows(s, lower, r.hints))
	case r.prefixed() != nil:
		matches = r.prefixed().findAll(s)
	case r.reach != nil && r.reach() > 0:
		matches = findInWindows(r.re(), s, hintWindows(s, lower, r.hints, r.reach()))
	case r.gate != nil && r.gate() != nil && !r.gate().MatchString(s):
		return nil
	default:
		matches = r.re().FindAllStringSubmatchIndex(s, -1)
	}
	if matches == nil {
		return nil
	}
	// Markers already in s are never part of a secret: a later rule must
	// not take "generic-api-key]" for a token.
	var markers [][]int
	if strings.Contains(s, "[REDACTED:") {
		markers = markerRE().FindAllStringIndex(s, -1)
	}
	var out []span
	last := 0
	for _, m := range matches {
		start, end := m[0], m[1]
		switch {
		case r.group > 0 && 2*r.group+1 < len(m):
			start, end = m[2*r.group], m[2*r.group+1]
		case r.group == 0:
			// The secret is the first submatch that is not empty, if any.
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 && m[g+1] > m[g] {
					start, end = m[g], m[g+1]
					break
				}
			}
		}
		if start < last || start < 0 || end <= start {
			continue
		}
		if r.bounded && start > 0 && isTokenByte(s[start-1]) {
			continue
		}
		secret := s[start:end]
		if r.valid != nil && !r.valid(secret) {
			continue
		}
		if overlaps(markers, start, end) {
			continue
		}
		if r.entropy > 0 && shannonEntropy(secret) <= r.entropy {
			continue
		}
		if r.allowed(s, secret, m[0], m[1]) {
			continue
		}
		if r.near && !r.hintNear(s, m[0], m[1]) {
			continue
		}
		out = append(out, span{start, end, r.kind})
		last = end
	}
	return out
}

func (r *rule) prefixed() *prefixed {
	if r.prefix == nil {
		return nil
	}
	return r.prefix()
}

// nearWindow is how far before a match a hint still counts as its
// context: the name of a variable, a YAML key on the line above.
const nearWindow = 160

// hintNear reports whether one of the rule's hints occurs in s[start:end]
// or up to nearWindow bytes before it.
func (r *rule) hintNear(s string, start, end int) bool {
	if len(r.hints) == 0 {
		return true
	}
	w := strings.ToLower(s[max(0, start-nearWindow):end])
	for _, h := range r.hints {
		if strings.Contains(w, strings.ToLower(h)) {
			return true
		}
	}
	return false
}

// overlaps reports whether [start, end) shares a byte with one of spans.
func overlaps(spans [][]int, start, end int) bool {
	for _, sp := range spans {
		if start < sp[1] && sp[0] < end {
			return true
		}
	}
	return false
}

// shannonEntropy is the entropy of s in bits per character, as gitleaks
// computes it: a value that repeats few characters is not a key.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	var h float64
	inv := 1 / float64(len(s))
	for _, n := range counts {
		f := float64(n) * inv
		h -= f * math.Log2(f)
	}
	return h
}

// isTokenByte reports whether c can be part of a key or of base64 text. A
// slash or an equals sign does not count: URL-safe base64, where "sk-" and
// "ghp_" can occur by chance, has no slash, padding only comes last, and
// both often stand right before a real key (https://ghp_…, KEY=sk-…).
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '+'
}

// markerRE finds the markers String leaves, to count them by kind.
var markerRE = lazy.Regexp(`\[REDACTED:([a-z0-9-]+)\]`)

// Report is String, and what it replaced: the number of secrets of each
// kind. Markers already in s are not counted again.
func Report(s string) (string, map[string]int) {
	out := String(s)
	if out == s {
		return s, nil
	}
	counts := map[string]int{}
	for _, m := range markerRE().FindAllStringSubmatch(out, -1) {
		counts[m[1]]++
	}
	for _, m := range markerRE().FindAllStringSubmatch(s, -1) {
		counts[m[1]]--
	}
	for k, n := range counts {
		if n <= 0 {
			delete(counts, k)
		}
	}
	return out, counts
}

// Summary reads "3 secrets (openai-key 2, password 1)": what Report
// counted, as a person is told it.
func Summary(counts map[string]int) string {
	kinds := make([]string, 0, len(counts))
	total := 0
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		total += n
	}
	sort.Strings(kinds)
	noun := "secrets"
	if total == 1 {
		noun = "secret"
	}
	return fmt.Sprintf("%d %s (%s)", total, noun, strings.Join(kinds, ", "))
}
