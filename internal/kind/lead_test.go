package kind

import (
	"regexp"
	"testing"
)

// FuzzPersonFactLead: personFactLead, which spares compiling personFact,
// matches wherever personFact does, so no person fact is turned away.
func FuzzPersonFactLead(f *testing.F) {
	for _, s := range []string{
		"My sister Ana moved to Lisbon", "Mateo just moved to Lisbon", "Ravi is allergic to peanuts",
		"Mom's birthday is on 3 March", "my neighbour Mateo: she just moved to Lisbon", "Tom works as a nurse",
		"Ana joined Google as an engineer", "Lea has been taking piano lessons", "Sam never picks up the phone",
		"Jo is best reached by email", "Fyi Daniel works for Deloitte", "Kim was born on May 4", "Ravi's allergic to nuts",
		"Benchmark memory number 1: the deploy key for staging lives in the vault.", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if personFact().MatchString(s) && !personFactLead().MatchString(s) {
			t.Fatalf("personFact matches %q, personFactLead does not", s)
		}
	})
}

// FuzzMayIntroduce: mayIntroduce, which spares compiling the patterns of
// a person introduced, lets each through wherever it matches.
func FuzzMayIntroduce(f *testing.F) {
	for _, s := range []string{
		"Sarah Chen is our investor", "my manager is Priya", "our designer, Mei, joined", "Meet Priya Patel, our new designer",
		"please say hi to Sam, my co-founder", "ſay hi to Sam, my co-founder", "This is Ana, our CTO", "MY BOSS is Tom", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		is, role, meet := mayIntroduce(s)
		for _, c := range []struct {
			name string
			may  bool
			re   func() *regexp.Regexp
		}{{"personIs", is, personIs}, {"personRole", role, personRole}, {"personMeet", meet, personMeet}} {
			if !c.may && c.re().MatchString(s) {
				t.Fatalf("%s matches %q, mayIntroduce turns it away", c.name, s)
			}
		}
	})
}
