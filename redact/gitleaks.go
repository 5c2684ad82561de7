package redact

import (
	"regexp"
	"strings"
	"sync"

	"github.com/ctx0/ctx0/internal/lazy"
)

// gitleaks_rules.go holds gitleaks' default detection rules as data
// (gitleaksDefault): config/gitleaks.toml of the gitleaks module, turned
// into a Go value by scripts/gitleaks (MIT licence, in gitleaks/LICENSE).
// ctx0 takes the rules rather than the module: gitleaks' config and detect
// packages bring viper, archive readers, a terminal styler and a logger
// into every ctx0 process, for a matching loop of a few dozen lines
// (apply).

// allowlist is one of gitleaks' lists of what a rule's match may be and
// still not be a secret: a value matching one of regexes (tested against
// the secret, the whole match or its line, as target says) or holding one
// of stopwords. and asks for every check at once; as the redactor knows
// no file path, an and-list that checks paths never allows.
type allowlist struct {
	and       bool
	paths     bool
	target    string
	regexes   []func() *regexp.Regexp
	stopwords []string
}

// gitleaksConfig, gitleaksRule and gitleaksAllowlist are gitleaks' config
// file, its rules and its allowlists, with gitleaks' field names.
type gitleaksConfig struct {
	Version   string
	Allowlist gitleaksAllowlist
	Rules     []gitleaksRule
}

type gitleaksRule struct {
	ID          string
	Regex       string
	SecretGroup int
	Entropy     float64
	Keywords    []string
	Path        string
	Allowlists  []gitleaksAllowlist
}

type gitleaksAllowlist struct {
	Condition   string
	RegexTarget string
	Regexes     []string
	StopWords   []string
	Paths       []string
}

// gitleaksRules are gitleaks' rules as the redactor runs them: gated by
// their keywords, the secret taken from their secret group, kept only
// above their entropy and outside their allowlists and the global one,
// with a keyword near the match (see rule.near). A rule that needs a file
// path (a .tf file, a nuget.config) is left out: the redactor sees text,
// not files. The kind in the marker is the rule's id.
func gitleaksRules() []*rule {
	c := &gitleaksDefault
	global := newAllowlist(c.Allowlist)
	var out []*rule
	for _, g := range c.Rules {
		if g.Regex == "" || g.Path != "" {
			continue
		}
		r := &rule{
			kind:   g.ID,
			expr:   g.Regex,
			re:     lazy.Regexp(g.Regex),
			gate:   lazyGate(g.Regex),
			assign: len(g.Keywords) > 0 && isAssignment(g.Regex),
			reach:  sync.OnceValue(func() int { return maxLen(g.Regex) }),
			anchored: sync.OnceValue(func() *regexp.Regexp {
				rest := gateExpr(g.Regex)
				if rest == "" {
					return nil
				}
				re, err := regexp.Compile(`^(?:` + rest + `)`)
				if err != nil {
					return nil
				}
				return re
			}),
			hints:   g.Keywords,
			fold:    true,
			near:    true,
			group:   g.SecretGroup,
			entropy: g.Entropy,
			allow:   []*allowlist{global},
			prefix:  lazyPrefixed(g.Regex),
		}
		for _, a := range g.Allowlists {
			r.allow = append(r.allow, newAllowlist(a))
		}
		out = append(out, r)
	}
	return out
}

func newAllowlist(g gitleaksAllowlist) *allowlist {
	a := &allowlist{and: strings.EqualFold(g.Condition, "AND"), paths: len(g.Paths) > 0, target: g.RegexTarget}
	for _, re := range g.Regexes {
		a.regexes = append(a.regexes, lazy.Regexp(re))
	}
	for _, w := range g.StopWords {
		a.stopwords = append(a.stopwords, strings.ToLower(w))
	}
	return a
}

// allowed reports whether one of the rule's allowlists lets secret, found
// by the match s[start:end], stand.
func (r *rule) allowed(s, secret string, start, end int) bool {
	for _, a := range r.allow {
		if a.allows(s, secret, start, end) {
			return true
		}
	}
	return false
}

func (a *allowlist) allows(s, secret string, start, end int) bool {
	target := secret
	switch a.target {
	case "match":
		target = s[start:end]
	case "line":
		ls := strings.LastIndexByte(s[:start], '\n') + 1
		le := strings.IndexByte(s[end:], '\n')
		if le < 0 {
			le = len(s)
		} else {
			le += end
		}
		target = s[ls:le]
	}
	regex := false
	for _, re := range a.regexes {
		if re().MatchString(target) {
			regex = true
			break
		}
	}
	stop := false
	if len(a.stopwords) > 0 {
		lower := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(lower, w) {
				stop = true
				break
			}
		}
	}
	if a.and {
		if a.paths {
			return false
		}
		return (len(a.regexes) == 0 || regex) && (len(a.stopwords) == 0 || stop)
	}
	return regex || stop
}
