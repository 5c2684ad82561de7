package retrievaleval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// SynthOptions size a synthetic dataset.
type SynthOptions struct {
	Seed uint64
	// People is the number of people whose sessions are generated, each
	// with a life and a project of their own.
	People int
	// Sessions is the number of sessions per person, a few days apart.
	Sessions int
	// Turns is the number of exchanges (a user message and a reply) of
	// small talk and work in a session, besides the planted facts.
	Turns int
}

// DefaultSynth is the size the evaluation script uses.
var DefaultSynth = SynthOptions{Seed: 1, People: 4, Sessions: 24, Turns: 14}

// Synthesize generates long multi-session conversations between people
// and their assistant, with facts planted in them (people moving to
// places, events on dates, preferences, changes of mind), and the
// questions that ask for those facts with the sessions that hold the
// answers. The same options give the same dataset.
//
// The small talk around the facts reuses their names, places and tools in
// other roles ("Priya reviewed the Lisbon rollout"), so that a question's
// words are found in many sessions and only the evidence holds them
// together.
func Synthesize(o SynthOptions) Dataset {
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed))
	// Every person has names of their own, so that a question names one
	// fact of the whole vault.
	names := slices.Clone(firstNames)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	g := &synth{r: r, names: names}
	var ds Dataset
	start := time.Date(2023, 3, 6, 9, 0, 0, 0, time.UTC)
	for p := range o.People {
		g.person(&ds, p, start.AddDate(0, 0, 3*p), o)
	}
	ds.Name = fmt.Sprintf("synthetic (seed %d: %d people × %d sessions)", o.Seed, o.People, o.Sessions)
	return ds
}

type synth struct {
	r     *rand.Rand
	names []string // not yet given to a person
}

func (g *synth) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// pickN returns n distinct members of xs.
func (g *synth) pickN(xs []string, n int) []string {
	p := g.r.Perm(len(xs))[:n]
	out := make([]string, n)
	for i, j := range p {
		out[i] = xs[j]
	}
	return out
}

var (
	firstNames = strings.Fields(`Hannah Priya Diego Mei Omar Kenji Fatima Zoe Lukas Amara Tomás Ingrid Ravi Sofia
		Noah Leila Mateo Yuki Elena Samir Clara Jonas Aisha Felix Nadia Oscar Rosa Viktor Hana Bruno`)
	cities = strings.Fields(`Lisbon Porto Berlin Munich Osaka Kyoto Toronto Denver Austin Nairobi Lagos Oslo
		Bergen Seville Valencia Krakow Tallinn Dublin Glasgow Lyon Marseille Turin Bologna Hanoi`)
	relations = []string{"sister", "brother", "cousin", "best friend", "old roommate", "neighbour", "colleague", "aunt"}
	tools     = map[string][]string{
		"database":        {"Postgres", "MySQL", "SQLite", "DynamoDB", "MongoDB"},
		"queue":           {"Kafka", "RabbitMQ", "SQS", "NATS", "Redis streams"},
		"frontend":        {"React", "Svelte", "Vue", "HTMX", "Solid"},
		"hosting":         {"Fly.io", "Render", "AWS", "Hetzner", "Vercel"},
		"test runner":     {"pytest", "Jest", "Vitest", "Go test", "Playwright"},
		"CI":              {"GitHub Actions", "CircleCI", "Buildkite", "GitLab CI", "Jenkins"},
		"error tracker":   {"Sentry", "Rollbar", "Honeybadger", "Bugsnag", "Datadog"},
		"design tool":     {"Figma", "Sketch", "Penpot", "Framer", "Excalidraw"},
		"note app":        {"Obsidian", "Notion", "Bear", "Logseq", "Apple Notes"},
		"payment service": {"Stripe", "Adyen", "Paddle", "Braintree", "Mollie"},
	}
	components = func() []string {
		var ks []string
		for k := range tools {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}()
	events = []string{"dentist appointment", "quarterly review", "investor demo", "team offsite", "conference talk",
		"wedding", "marathon", "housewarming party", "product launch", "visa interview", "piano recital", "job interview"}
	gifts = []string{"a ceramic teapot", "a vinyl record player", "a pair of hiking boots", "a cast iron pan",
		"a watercolour set", "a mechanical keyboard", "a board game", "a fountain pen", "a bonsai tree", "a yoga mat"}
	hobbies = []string{"bouldering", "sourdough baking", "salsa dancing", "birdwatching", "chess", "pottery",
		"trail running", "woodworking", "sailing", "watercolour painting"}
	channels = []string{"email", "a phone call", "Slack", "text messages", "a video call", "WhatsApp"}
	projects = []string{"Atlas", "Beacon", "Cinder", "Drift", "Ember", "Fable", "Garnet", "Harbor"}
	// smallTalk are the user's messages between the facts. {person},
	// {place} and {component} stand for a name, a place and a kind of tool
	// of the person's world, used in other roles; a message may use any of
	// them or none (see synth.smallTalk).
	smallTalk = []string{
		"Can you help me rename the handlers in the {component} module? The names are confusing.",
		"I had lunch with {person} today, we talked about the {place} office and the new coffee machine.",
		"{person} reviewed my pull request and asked for more tests around the {component} code.",
		"The build broke again this morning, something about the {component} config. Can you look?",
		"Remind me what the difference is between a mutex and a channel in Go.",
		"I'm tired today, the train from {place} was late again.",
		"Write a short summary of the changes we made yesterday for the changelog.",
		"{person} sent me an article about {place} startups, it was interesting but long.",
		"Let's refactor the retry logic, it's duplicated in three places.",
		"What's a good name for a function that merges two sorted lists?",
		"The weather in {place} is terrible this week, all rain.",
		"Can you draft a polite reply to {person} saying I'll look at it next week?",
		"I keep forgetting how to squash commits, walk me through it again.",
		"We should add logging to the {component} client before the next release.",
		"{person} thinks we should rewrite the parser, I'm not convinced.",
		"How do I profile memory usage in a long-running service?",
		"Please explain the error message about the nil pointer in the {component} layer.",
		"I watched a documentary about {place} last night, beautiful city.",
	}
	replies = []string{
		"Sure. Here is a plan: first we look at the current code, then we change one piece at a time and run the tests after each step.",
		"That makes sense. I would keep the change small and add a test that fails without it.",
		"Here is a draft you can adapt: thanks for sending this over, I will take a proper look next week.",
		"The short answer is that it depends on the access pattern; measure first, then decide.",
		"Done. I updated the code and the tests pass locally; let me know if you want a different approach.",
		"Good question. The usual approach is to keep the interface small and move the details behind it.",
		"I looked at the logs: the failure comes from a timeout in the setup step, not from your change.",
	}
)

// world is one person's cast: the names, places and tools their sessions
// talk about.
type world struct {
	people  []string // first names of people in their life
	rel     map[string]string
	places  []string
	project string
	uses    map[string]string // component: tool now in use
}

// fact is a planted fact: what the user says, and the questions that ask
// for it.
type fact struct {
	says  string
	reply string
	// asked is the fact as people also tell it: the user brings the
	// subject up, the assistant asks in words of its own, the user
	// answers in words that are not the question's, the assistant
	// acknowledges (see shape).
	asked     [4]string
	turns     []string // what is said, user and assistant in turn, when not says and reply
	questions []string
	answer    string
	kind      string
	// key names what the fact is about (where a person lives, which
	// queue a project uses): a later fact of the same key replaces it, and
	// only the latest is asked about.
	key string
}

func (g *synth) person(ds *Dataset, p int, start time.Time, o SynthOptions) {
	n := min(7, len(g.names)/max(1, o.People))
	w := world{
		people:  g.names[:n],
		rel:     map[string]string{},
		places:  g.pickN(cities, 6),
		project: projects[p%len(projects)],
		uses:    map[string]string{},
	}
	g.names = g.names[n:]
	for _, n := range w.people {
		w.rel[n] = g.pick(relations)
	}
	// The facts of every session, drawn first so that changes of mind
	// come after what they change.
	type planted struct {
		f       fact
		session int
	}
	var all []planted
	latest := map[string]int{} // fact key: index in all of its latest version
	movedTo := map[string]string{}
	for s := range o.Sessions {
		day := start.AddDate(0, 0, 3*s+g.r.IntN(2))
		for range 2 + g.r.IntN(2) {
			f := g.fact(&w, movedTo, day)
			if f.key != "" {
				if i, ok := latest[f.key]; ok {
					all[i].f.questions = nil // superseded: asked of the new session
				}
				latest[f.key] = len(all)
			}
			all = append(all, planted{f, s})
		}
	}
	for s := range o.Sessions {
		id := fmt.Sprintf("synth-p%d-s%02d", p, s)
		at := start.AddDate(0, 0, 3*s+g.r.IntN(2)).Add(time.Duration(g.r.IntN(8)) * time.Hour)
		sess := Session{ID: id, Project: "/home/" + strings.ToLower(w.people[0]) + "/src/" + strings.ToLower(w.project), Start: at}
		var facts []fact
		for _, x := range all {
			if x.session == s {
				facts = append(facts, x.f)
			}
		}
		// Facts fall at random places among the turns.
		slots := g.r.Perm(o.Turns + len(facts))
		factAt := map[int]fact{}
		for i, f := range facts {
			factAt[slots[i]] = f
		}
		for t := range o.Turns + len(facts) {
			if f, ok := factAt[t]; ok {
				turns := f.turns
				if turns == nil {
					turns = []string{f.says, f.reply}
				}
				for i, text := range turns {
					sess.add([]string{"user", "assistant"}[i%2], text)
				}
				for _, q := range f.questions {
					ds.Questions = append(ds.Questions, Question{Text: q, Sessions: []string{id}, Answer: f.answer, Kind: f.kind})
				}
				continue
			}
			sess.add("user", g.smallTalk(&w))
			sess.add("assistant", g.pick(replies))
		}
		ds.Sessions = append(ds.Sessions, sess)
	}
}

// smallTalk draws one message of small talk in w's world. A person, a
// place and a component are drawn for every message, whichever of them its
// template uses, so that what a seed draws next does not depend on which
// template came up.
func (g *synth) smallTalk(w *world) string {
	tmpl := g.pick(smallTalk)
	return strings.NewReplacer(
		"{person}", g.pick(w.people),
		"{place}", g.pick(w.places),
		"{component}", g.pick(components),
	).Replace(tmpl)
}

// Shapes of a planted fact besides the plain one (the user tells it in
// one message that holds the question's words, the assistant echoes it):
// asked, the assistant asks and the user answers in other words, across
// turns ("What has she taken up?" / "Pottery, every Thursday"); in
// passing, told after a greeting and something else. Each is a kind of
// its own in the report.
const (
	askedKind   = "asked and answered"
	passingKind = "in passing"
)

// greetings start a message that tells a fact in passing.
var greetings = []string{
	"Thanks, that fixed the build! Unrelated, but",
	"Morning! Quick one before the standup:",
	"Thanks for the help yesterday. Oh, and",
	"Hi again. Not about the code, but",
}

// fact draws one fact of w's world said on day, updates w, and gives it
// one of the shapes people tell facts in: plain for half of them, asked
// and answered for a third, in passing for the rest.
func (g *synth) fact(w *world, movedTo map[string]string, day time.Time) fact {
	f := g.draw(w, movedTo, day)
	switch g.r.IntN(6) {
	case 0, 1:
		f.turns, f.kind = f.asked[:], askedKind
	case 2:
		says := strings.ToLower(f.says[:1]) + f.says[1:]
		f.says, f.kind = g.pick(greetings)+" "+says, passingKind
	}
	return f
}

// draw draws one fact of w's world said on day, and updates w.
func (g *synth) draw(w *world, movedTo map[string]string, day time.Time) fact {
	name := g.pick(w.people)
	rel := w.rel[name]
	switch g.r.IntN(6) {
	case 0: // a person moves: asked where they live
		city := g.pick(slices.DeleteFunc(slices.Clone(cities), func(c string) bool { return c == movedTo[name] }))
		movedTo[name] = city
		return fact{
			says:  fmt.Sprintf("Big news from my %s %s: she just moved to %s for a new job, so I'll visit her there in the summer.", rel, name, city),
			reply: fmt.Sprintf("That's exciting for %s! %s is a lovely place to visit in summer.", name, city),
			asked: [4]string{
				fmt.Sprintf("I finally caught up with my %s %s on the phone last night.", rel, name),
				"Oh nice, how is she doing? Is she still at the same place?",
				fmt.Sprintf("She's great. New job, and she moved to %s, so I'll visit her there in the summer.", city),
				"That's lovely, a good excuse for a trip.",
			},
			answer: city, kind: "person-place", key: "lives:" + name,
			questions: []string{g.pick([]string{
				fmt.Sprintf("where does %s live now?", name),
				fmt.Sprintf("Which city did my %s %s move to?", rel, name),
				fmt.Sprintf("where did %s move for the new job", name),
			})},
		}
	case 1: // an event on a date
		ev := g.pick(events)
		when := day.AddDate(0, 0, 5+g.r.IntN(40))
		f := fact{
			says:  fmt.Sprintf("Put this in your memory: my %s is on %s, at 10:30, and %s is coming with me.", ev, when.Format("Monday 2 January 2006"), name),
			reply: fmt.Sprintf("Noted: %s on %s at 10:30, with %s.", ev, when.Format("2 January"), name),
			asked: [4]string{
				fmt.Sprintf("Can you keep track of something for me? %s is coming along to my %s.", name, ev),
				"Of course. When is it?",
				fmt.Sprintf("%s, at 10:30.", when.Format("Monday 2 January 2006")),
				fmt.Sprintf("Noted, 10:30 on %s.", when.Format("2 January")),
			},
			answer: when.Format("2 January 2006"), kind: "event-date", key: "event:" + ev + name,
			questions: []string{g.pick([]string{
				fmt.Sprintf("When is my %s with %s?", ev, name),
				fmt.Sprintf("what date is the %s %s is coming to", ev, name),
			})},
		}
		if g.r.IntN(3) == 0 {
			f.questions, f.answer = []string{fmt.Sprintf("who is coming with me to the %s on %s?", ev, when.Format("2 January"))}, name
		}
		return f
	case 2: // a preference
		ch := g.pick(channels)
		return fact{
			says:  fmt.Sprintf("By the way, %s really prefers %s for anything about scheduling, she never picks up otherwise.", name, ch),
			reply: fmt.Sprintf("Good to know. I'll suggest %s whenever we need to reach %s about a time.", ch, name),
			asked: [4]string{
				fmt.Sprintf("I need to find a time with %s next week.", name),
				"How does she like to be reached for that kind of thing?",
				fmt.Sprintf("Always %s, she never picks up otherwise.", ch),
				"Then that's the way to go.",
			},
			answer: ch, kind: "preference", key: "prefers:" + name,
			questions: []string{g.pick([]string{
				fmt.Sprintf("how does %s like to be contacted?", name),
				fmt.Sprintf("what's the best way to reach %s to set up a meeting", name),
				fmt.Sprintf("what does %s prefer for scheduling?", name),
			})},
		}
	case 3: // a gift
		gift := g.pick(gifts)
		return fact{
			says:  fmt.Sprintf("For %s's birthday I ended up buying %s, I hope she likes it.", name, gift),
			reply: fmt.Sprintf("%s sounds like a thoughtful present for %s.", strings.ToUpper(gift[:1])+gift[1:], name),
			asked: [4]string{
				fmt.Sprintf("%s's birthday was on Saturday, we had a small dinner.", name),
				"Sounds nice! Did you find something for her in the end?",
				fmt.Sprintf("I did, %s. I hope she likes it.", gift),
				"I'm sure she will.",
			},
			answer: strings.TrimPrefix(gift, "a "), kind: "gift", key: "gift:" + name,
			questions: []string{g.pick([]string{
				fmt.Sprintf("What did I get %s for her birthday?", name),
				fmt.Sprintf("what present did I buy for %s", name),
			})},
		}
	case 4: // a hobby someone took up
		h := g.pick(hobbies)
		return fact{
			says:  fmt.Sprintf("%s started taking %s classes on Thursday evenings, she says it's the best part of her week.", name, h),
			reply: fmt.Sprintf("Thursday %s sounds like a great way to unwind.", h),
			asked: [4]string{
				fmt.Sprintf("%s seems so much happier lately.", name),
				"That's good to hear! Has she taken up anything new?",
				fmt.Sprintf("Yes, %s, every week after work. She says it's the best part of her week.", h),
				"That sounds like a great way to unwind.",
			},
			answer: h, kind: "hobby", key: "hobby:" + name,
			questions: []string{g.pick([]string{
				fmt.Sprintf("what hobby did %s pick up?", name),
				fmt.Sprintf("What does %s do on Thursday evenings", name),
			})},
		}
	default: // a choice of tool, maybe a change of mind
		c := g.pick(components)
		old, had := w.uses[c]
		tool := g.pick(slices.DeleteFunc(slices.Clone(tools[c]), func(t string) bool { return t == old }))
		w.uses[c] = tool
		says := fmt.Sprintf("For %s we decided to go with %s as the %s, %s agreed after the review.", w.project, tool, c, name)
		asked := [4]string{
			fmt.Sprintf("We had the %s review for %s this morning.", c, w.project),
			"How did it end? Did you settle on one?",
			fmt.Sprintf("%s. %s agreed after all.", tool, name),
			"Good, one less open question.",
		}
		if had {
			says = fmt.Sprintf("Change of plans for %s: we're dropping %s and switching the %s to %s, it fits the team better.", w.project, old, c, tool)
			asked = [4]string{
				fmt.Sprintf("We talked about the %s of %s again today.", c, w.project),
				fmt.Sprintf("Are you keeping %s?", old),
				fmt.Sprintf("No, we're switching to %s, it fits the team better.", tool),
				"Makes sense, better now than later.",
			}
		}
		return fact{
			says: says, reply: fmt.Sprintf("Understood, %s it is for the %s of %s.", tool, c, w.project), asked: asked,
			answer: tool, kind: map[bool]string{false: "choice", true: "change-of-mind"}[had], key: "uses:" + c,
			questions: []string{g.pick([]string{
				fmt.Sprintf("which %s are we using for %s now?", c, w.project),
				fmt.Sprintf("What did we pick as the %s for %s?", c, w.project),
				fmt.Sprintf("what %s does %s use", c, w.project),
			})},
		}
	}
}

func (s *Session) add(role, text string) {
	at := s.Start.Add(time.Duration(len(s.Messages)) * 40 * time.Second)
	s.Messages = append(s.Messages, Message{Role: role, Text: text, Time: at})
}
