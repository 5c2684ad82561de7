package kind

import (
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// A person fact is something lasting the user says about someone they
// name: where the person lives or moved to, where they work, how they
// like to be reached or what they prefer, an activity they took up, an
// allergy or a diet, a birthday or an anniversary. It is said of the
// person as done or as so ("Ana relocated to Berlin", "Ravi is allergic
// to peanuts"), never as a plan, a guess or a question ("she might move
// to Paris", "does Tom live in Austin?"), and it names the person: "I
// moved the file to src/" is work, not a fact about anyone.
var (
	// personFact is a person fact: the person, named (group 1) or called
	// by what the user calls a parent ("my mom", group 2: no one calls a
	// sister "Sister"), then what is so of them
	// (group 3). A pronoun may stand between the name and what follows
	// ("my neighbour Mateo: she just moved to Lisbon").
	personFact = lazy.Regexp(personFactHead + `(` + personFactAdverbs + `\s+` + alternatives(personPredicates, true) + `|` + possessivePredicate[0] + possessivePredicate[1] + `)`)
	// personFactLead is personFact with each predicate cut to its lead:
	// it matches wherever personFact does, and turns away the sentences
	// in which no lead follows a name, for a tenth of the cost of
	// compiling personFact (the package's costliest pattern, some 5,000
	// instructions: milliseconds in every process that types a text).
	personFactLead = lazy.Regexp(personFactHead + `(?:` + personFactAdverbs + `\s+` + alternatives(personPredicates, false) + `|` + possessivePredicate[0] + `)`)
	// notFactContext is what makes a sentence, up to the end of what it
	// says of the person, no statement of how the person is: a condition,
	// a guess, a plan, a wish, an example.
	notFactContext = lazy.Regexp("(?i)\\b(?:if|whether|unless|would|could|might|(?-i:may)|maybe|perhaps|probably|possibly|wonder|wondering|suppose|imagine|pretend|hope|hopes|hoping|wish|wishes|plan|plans|planning|going to|gonna|(?-i:will)|wants? to|thinking (?:about|of)|considering|hypothetically|let's say|for example|e\\.g\\.|not sure|i think|i guess|rumou?r)\\b|'ll\\b")
	// code is what marks a sentence as about code or files, not people.
	code = lazy.Regexp("`|[<>{}\\[\\]]|\\w/\\w|://")
)

// personFactHead is where a person fact opens: what may stand before the
// person, the person, named (group 1) or a parent (group 2), and a
// pronoun that may stand between the name and what follows.
const personFactHead = `(?:^|[,:;—–]\s*|\b(?i:that|and|btw|fyi|on|about|from)\s+|\b(?i:my|our)\s+(?:(?i:best|close|old|oldest|childhood|older|younger|little|big|twin|new|dear)\s+)?` + relations + `,?\s+)` +
	`(?:(` + factName + `)|(?i:my)\s+(` + `(?i:mom|mum|dad|grandma|grandpa|granny|nana)` + `))` +
	`(?:\s*[:,—–-]\s*(?:she|he|they)|\s+\((?:she|he|they)\)|,)?`

// personFactAdverbs are the words that may stand between the person and
// what is so of them.
const personFactAdverbs = `(?:\s+(?:just|finally|recently|now|really|actually|also|officially|apparently|still|always|totally|absolutely|strongly|much|definitely|has|had))*`

// alternatives joins predicates, each its lead and the rest, or the lead
// alone unless whole, into one alternation.
func alternatives(predicates [][2]string, whole bool) string {
	var b strings.Builder
	b.WriteString("(?:")
	for i, p := range predicates {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(p[0])
		if whole {
			b.WriteString(p[1])
		}
	}
	b.WriteString(")")
	return b.String()
}

// factName is a person's name: one or two capitalized words ("Ana",
// "Sarah Chen", "Jean-Luc", "O'Brien"); a possessive "'s" is not part of
// it.
const factName = `\p{Lu}\p{Ll}+(?:[-'’]\p{Lu}\p{Ll}+)?(?: \p{Lu}\p{Ll}+(?:[-'’]\p{Lu}\p{Ll}+)?)?`

// relations are what someone the user names is to them.
const relations = `(?i:` + `neighbou?r|cousin|aunt|uncle|partner|roommate|room-mate|flatmate|housemate|classmate|niece|nephew|grandma|grandmother|grandpa|grandfather|fianc[ée]e?|friend|wife|husband|boyfriend|girlfriend|sister|brother|mother|father|mom|mum|dad|son|daughter|sister-in-law|brother-in-law|stepmom|stepdad|godmother|godfather|colleague|co-?worker|teammate|manager|boss|landlord|mentor|doctor|coach|tutor|teacher|babysitter|nanny` + `)`

// personPredicates are what is so of a person, each kind in turn, after
// the name and a space: each is its lead, the words it opens with, and
// the rest (see personFactLead).
var personPredicates = [][2]string{
	// Where they live: "lives in Austin", "moved to Lisbon", "relocated
	// to Berlin", "is based in Oslo"; the place is a proper name.
	{`(?:lives|is living|has lived|moved|has moved|relocated|has relocated|settled(?: down)?|is (?:now )?based|is now living)`, `(?: (?:back|away|out|over|home))?(?: (?:to|in|near|outside(?: of)?)) ` + placeName},
	// Where they work: "works at Stripe", "started working at Stripe",
	// "got a new job at Shopify", "joined Google as an engineer".
	{`(?:works|is working|has been working|started working|started a (?:new )?job|got a (?:new )?job|took a (?:new )?job|landed a (?:new )?job|accepted a (?:new )?job|got hired|was hired|is now working|now works)`, ` (?:at|for|by|with) ` + placeName},
	{`joined `, placeName + ` as (?:a|an|the|their|its) \p{L}+`},
	{`works as `, `(?:a|an) \p{L}+(?: \p{L}+)?`},
	// How they like to be reached: "prefers text messages", "hates
	// phone calls", "never picks up the phone", "is best reached by
	// email".
	{`(?:prefers|likes|wants)`, ` (?:to be (?:texted|called|emailed|messaged|contacted|reached)|being (?:texted|called|emailed|messaged)|(?:a )?(?:texts?|text messages|sms|emails?|e-mails?|calls|phone calls|video calls?|a call|voice (?:notes|messages)|whatsapp|signal|telegram|slack|messages|dms))\b[^,;]*`},
	{`(?:hates|dislikes|can't stand|doesn't like|does not like|never answers|never picks up|never returns|doesn't pick up|doesn't answer|won't answer|ignores|never reads|doesn't read|never checks|rarely checks)`, ` (?:phone calls|calls|the phone|(?:her|his|their) phone|emails?|e-mails?|voicemails?|texts?|text messages|slack|messages)\b[^;]*`},
	{`(?:is )?(?:best|easiest) reached`, ` (?:by|on|via|over) \S+(?: \S+)?`},
	{`prefers `, `[^,;]+`},
	// An activity they took up: "took up climbing", "got into pottery",
	// "started learning Japanese", "started playing tennis".
	{`(?:took up|has taken up|picked up|got into|has gotten into|is getting into|is (?:really |now )?into)`, ` (?:\p{Ll}+ )?` + hobby},
	{`(?:started|began|has started|has been)`, ` (?:learning|playing|practicing|practising|doing|taking) (?:(?:\p{L}+ ){0,2}(?:lessons|classes)\b|(?:\p{L}+ )?` + hobby + `|\p{Lu}\p{Ll}+)`},
	{`(?:started|began) `, hobby},
	{`joined `, `(?:a|the) (?:\p{Ll}+ )?(?:club|choir|band|league|gym|orchestra)`},
	// An allergy or a diet: "is allergic to peanuts", "is vegan",
	// "doesn't eat meat", "is on a keto diet".
	{`is `, `(?:severely |very |deathly |badly )?allergic to \p{L}+(?: \p{L}+)?`},
	{`has an? `, `(?:severe |serious |bad )?(?:\p{L}+ )?allergy`},
	{`(?:is|went|became|turned|has gone)`, ` (?:a |fully |strictly |strict )?(?:vegetarian|vegan|pescatarian|gluten-free|lactose[- ]intolerant|celiac|coeliac|diabetic|teetotal|kosher|halal)\b`},
	{`(?:can't|cannot|doesn't|does not|won't|never)`, ` (?:eat|eats|drink|drinks) \p{L}+(?: \p{L}+)?`},
	{`is on `, `an? (?:\p{L}+[- ])?(?:\p{L}+ )?diet`},
	// A birthday: "was born on May 4".
	{`was born on `, dayOfYear},
}

// possessivePredicate is what is so of a person said right after the
// name, its lead and the rest: a birthday or an anniversary ("Mom's
// birthday is on 3 March"), an allergy or a diet ("Ravi's allergic to
// nuts").
var possessivePredicate = [2]string{`['’]s `, `(?:(?:birthday|bday|b-day|anniversary|wedding anniversary|name day) is (?:on )?` + dayOfYear + `|` +
	`(?:severely |very |deathly )?allergic to \p{L}+(?: \p{L}+)?|(?:a )?(?:vegetarian|vegan|pescatarian|celiac|coeliac|diabetic)\b)`}

// placeName is a place or an organization: one to three capitalized
// words ("Lisbon", "San Francisco"), or a short abbreviation ("NYC").
const placeName = `(?:\p{Lu}\p{Ll}[\p{L}'’-]*(?: (?:de |da |do |del |la |le )?\p{Lu}\p{Ll}[\p{L}'’-]*){0,2}|NYC|LA|SF|DC|UK|US|USA|UAE)`

// hobby is an activity people take up.
const hobby = `(?:yoga|pilates|chess|guitar|piano|violin|cello|drums|ukulele|pottery|ceramics|tennis|golf|surfing|climbing|bouldering|running|trail running|painting|watercolou?r(?: painting)?|photography|gardening|knitting|crochet|baking|cooking|swimming|cycling|hiking|dancing|salsa|tango|boxing|karate|judo|jiu-jitsu|crossfit|birdwatching|bird-watching|woodworking|sailing|skiing|snowboarding|fishing|archery|meditation|rowing|kayaking|fencing|squash|badminton|volleyball|football|soccer|basketball|baseball|rugby|cricket|calligraphy|embroidery|sewing|singing|choir|jogging|skateboarding|skating|ice skating|diving|scuba diving|martial arts|weightlifting|powerlifting|pickleball|padel|horse riding|horseback riding|rock climbing|beekeeping|a marathon|marathons|triathlons?)\b`

// dayOfYear is a day of a month: "3 March", "March 3rd", "the 3rd of March".
const dayOfYear = `(?:(?:the )?\d{1,2}(?:st|nd|rd|th)? (?:of )?` + monthName + `|` + monthName + ` \d{1,2}(?:st|nd|rd|th)?\b)`

const monthName = `(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b`

// notPeople are capitalized words that stand where a name would and are
// no one: the words a sentence opens with, days and months, and the
// tools and places of the work.
var notPeople = map[string]bool{
	"Everything": true, "Everyone": true, "Everybody": true, "Someone": true, "Somebody": true, "Nobody": true,
	"Anyone": true, "Which": true, "Where": true, "When": true, "Why": true, "How": true, "Hey": true, "Hi": true,
	"Thanks": true, "Please": true, "Yes": true, "No": true, "Ok": true, "Okay": true, "Great": true, "Well": true,
	"Actually": true, "Today": true, "Yesterday": true, "Tomorrow": true, "Config": true, "Data": true, "Code": true,
	"Auth": true, "State": true, "Monday": true, "Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true,
	"Saturday": true, "Sunday": true, "Claude": true, "Codex": true, "Copilot": true, "Cursor": true, "Gemini": true,
	"Git": true, "Docker": true, "Python": true, "Node": true, "React": true, "Rust": true, "Go": true, "Java": true,
	"Postgres": true, "Redis": true, "Linux": true, "Windows": true, "Mac": true, "Apple": true, "Google": true,
	"Microsoft": true, "Amazon": true, "Netflix": true, "Meta": true, "Slack": true, "Stripe": true, "Vercel": true,
	"Fyi": true, "Btw": true, "Oh": true, "Update": true, "News": true, "Quick": true, "Big": true, "Good": true,
	"Kubernetes": true, "Terraform": true, "Nginx": true, "Chrome": true, "Firefox": true, "Safari": true,
}

// months are names of months, which are no places.
var months = lazy.Regexp(`^` + monthName + `$`)

// personFactIn returns the person a user's sentence s states a lasting
// fact about and the fact, said of them by name ("Mateo just moved to
// Lisbon"), or "" when s states none.
func personFactIn(s string) (name, fact string) {
	if asking().MatchString(s) || strings.HasSuffix(s, "?") || code().MatchString(s) {
		return "", ""
	}
	if !personFactLead().MatchString(s) {
		return "", ""
	}
	m := personFact().FindStringSubmatchIndex(s)
	if m == nil || notFactContext().MatchString(s[:m[1]]) {
		// What the sentence goes on to say after the fact ("…, so
		// I'll visit her there") does not make it a plan.
		return "", ""
	}
	sub := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return s[m[2*i]:m[2*i+1]]
	}
	name = sub(1)
	if name == "" {
		name = capitalize(strings.ToLower(sub(2)))
	}
	if first, rest, two := strings.Cut(name, " "); two && (notNames[first] || notPeople[first]) {
		name = rest // "Fyi Daniel works for Deloitte"
	}
	first, _, _ := strings.Cut(name, " ")
	if notNames[first] || notPeople[first] || notPeople[name] {
		return "", ""
	}
	said := strings.TrimSpace(sub(3))
	if place := lastWord(said); !strings.ContainsAny(said, "0123456789") && months().MatchString(place) ||
		notPeople[place] && !strings.Contains(said, " at ") && !strings.Contains(said, " for ") {
		// "moved the call to Friday", "moved to Docker": no place, and
		// no employer.
		return "", ""
	}
	sep := " "
	if strings.HasPrefix(said, "'") || strings.HasPrefix(said, "’") {
		sep = ""
	}
	return name, clean(name + sep + strings.TrimRight(said, ",;:—– "))
}

// lastWord is the last word of s.
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[len(f)-1], ".,!;:")
}
