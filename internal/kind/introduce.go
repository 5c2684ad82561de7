package kind

import (
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
// only a person holds, or "".
func PersonIn(s string) string {
	var name string
	if m := personIs().FindStringSubmatch(s); m != nil {
		name = m[1]
	} else if m := personRole().FindStringSubmatch(s); m != nil {
		name = m[1]
	} else if m := personMeet().FindStringSubmatch(s); m != nil {
		name = m[1]
	}
	first, _, _ := strings.Cut(name, " ")
	if name == "" || notNames[first] {
		return ""
	}
	return name
}
