package kind

import (
	"regexp"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

var (
	// personIs and personRole find a person the user introduces, by
	// name and a role that only a person holds: "Sarah Chen is our
	// investor", "my manager is Priya", "our designer, Mei, …"; and
	// personMeet, below.
	personIs   = lazy.Regexp(`^(` + personName + `) is (?:my|our) (?:new |main |former |old )?` + personRoles)
	personRole = lazy.Regexp(`(?i:\b(?:my|our) (?:new |main |former |old )?)` + personRoles + `(?: is|,) (` + personName + `)\b`)
	// personMeet finds a person introduced by name first: "Meet Priya
	// Patel, our new designer", "say hi to Sam, my co-founder".
	personMeet = lazy.Regexp(`(?i:^(?:please )?(?:meet|say hi to|say hello to|introducing|this is))\s+(` + personName + `),? (?i:(?:my|our) (?:new |main |former |old )?)` + personRoles)
)

// personName is one to three capitalized words; personRoles are what
// only a person is to the user.
const (
	personName  = `\p{Lu}[\p{Ll}'’-]+(?: \p{Lu}[\p{Ll}'’-]+){0,2}`
	personRoles = `(?i:neighbou?r|cousin|aunt|uncle|partner|roommate|room-mate|flatmate|housemate|classmate|niece|nephew|grandma|grandmother|grandpa|grandfather|fianc[ée]e?|manager|boss|(?:tech |team )?lead|co-?founder|founder|ceo|cto|cfo|coo|colleague|co-?worker|teammate|designer|engineer|developer|pm|product manager|project manager|investor|advisor|adviser|mentor|recruiter|accountant|lawyer|intern|friend|wife|husband|boyfriend|girlfriend|sister|brother|mother|father|mom|dad|son|daughter|landlord|doctor|dentist|therapist|coach|tutor|teacher|professor)\b`
)

// PersonIn returns the name of the person s introduces by name and a role
// only a person holds, or "". Each pattern is compiled and run only on a
// sentence holding the words it cannot match without (mayIntroduce): most
// sentences hold none, and compiling the three costs more than typing the
// rest of a remembered text.
func PersonIn(s string) string {
	is, role, meet := mayIntroduce(s)
	var name string
	if m := matchIf(is, personIs, s); m != nil {
		name = m[1]
	} else if m := matchIf(role, personRole, s); m != nil {
		name = m[1]
	} else if m := matchIf(meet, personMeet, s); m != nil {
		name = m[1]
	}
	first, _, _ := strings.Cut(name, " ")
	if name == "" || notNames[first] {
		return ""
	}
	return name
}

// mayIntroduce tells, by the words each pattern must find, which of
// personIs (" is my ", " is our "), personRole ("my " or "our ", in any
// case) and personMeet (its opening words, in any case) may match s.
func mayIntroduce(s string) (is, role, meet bool) {
	is = strings.Contains(s, " is my ") || strings.Contains(s, " is our ")
	// Lower case as the patterns' (?i) folds: the long s (ſ) folds to s.
	lower := strings.ReplaceAll(strings.ToLower(s), "ſ", "s")
	role = strings.Contains(lower, "my ") || strings.Contains(lower, "our ")
	opening := strings.TrimPrefix(lower, "please ")
	for _, w := range []string{"meet", "say hi to", "say hello to", "introducing", "this is"} {
		meet = meet || strings.HasPrefix(opening, w)
	}
	return is, role, meet
}

// matchIf is re's submatches in s, if may.
func matchIf(may bool, re func() *regexp.Regexp, s string) []string {
	if !may {
		return nil
	}
	return re().FindStringSubmatch(s)
}
