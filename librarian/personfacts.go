package librarian

import (
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

var (
	// livesWords, worksWords and reachWords tell what a person fact
	// answers, when what is so of the person may change and a later
	// fact of the kind replaces it: where they live, where they work,
	// how to reach them.
	livesWords = lazy.Regexp(`\b(?:lives|living|lived|moved|relocated|settled|based)\b`)
	worksWords = lazy.Regexp(`\b(?:works|working|job|hired|joined) (?:\S+ )*?(?:at|for|by|with|\p{Lu}\S*)\b`)
	reachWords = lazy.Regexp(`(?i)\b(?:reached|called|texted|emailed|messaged|contacted|calls?|texts?|e-?mails?|phone|messages?|dms|sms|voicemails?|whatsapp|signal|telegram|slack)\b`)
)

// factTitle is the title of a person fact that a later one of its kind
// replaces ("Where Mateo lives"), or "" for one that stays alongside
// others (an allergy, a birthday). replaces is whether it does.
func factTitle(name, fact string) (title string, replaces bool) {
	switch {
	case livesWords().MatchString(fact):
		return "Where " + name + " lives", true
	case worksWords().MatchString(fact):
		return "Where " + name + " works", true
	case reachWords().MatchString(fact):
		return "How to contact " + name, true
	case hobbyWords().MatchString(fact):
		// Activities add up: the title names no kind that a later
		// one replaces.
		return name + "'s hobby: " + strings.TrimPrefix(fact, name+" "), false
	}
	return "", false
}

// hobbyWords tell an activity taken up.
var hobbyWords = lazy.Regexp(`\b(?:took up|taken up|picked up|got into|gotten into|getting into|into|learning|playing|practi[cs]ing|doing|taking|joined|started|began)\b`)
