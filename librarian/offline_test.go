package librarian

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

// TestOfflineGolden runs the offline extractor on every conversation of
// the real transcripts; the goldens show what it keeps of each.
func TestOfflineGolden(t *testing.T) {
	st := ingestFiles(t, t.TempDir(), publishedFiles(t))
	convs, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) == 0 {
		t.Fatal("no conversation queued")
	}
	type result struct {
		Conversation string     `json:"conversation"`
		Extraction   Extraction `json:"extraction"`
	}
	var all []result
	for _, c := range convs {
		msgs, err := st.Messages(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		x := Offline(c, msgs)
		data, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseExtraction(data); err != nil {
			t.Errorf("conversation %s: the offline extraction fails the schema: %v", ConversationRef(c), err)
		}
		all = append(all, result{ConversationRef(c), x})
	}
	got, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "offline.golden.json"), append(got, '\n'), *update)
}

// TestOfflineRules: what the offline extractor catches in what the user
// says and in the tools' outcomes, one category per row. Tools without an
// id come from a transcript that kept no outcomes: what the assistant says
// tells their failures.
func TestOfflineRules(t *testing.T) {
	t0 := time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC)
	user := func(s string) transcript.Message { return transcript.Message{Role: transcript.User, Time: t0, Text: s} }
	said := func(s string) transcript.Message {
		return transcript.Message{Role: transcript.Assistant, Time: t0, Text: s}
	}
	tool := func(kind transcript.ToolKind, target string) transcript.Message {
		return transcript.Message{Role: transcript.Assistant, Time: t0, Tools: []transcript.Tool{{Name: "Bash", Kind: kind, Target: target}}}
	}
	// ran and edit are tool uses whose outcomes the transcript kept.
	ran := func(target string, o transcript.Outcome) transcript.Message {
		return transcript.Message{Role: transcript.Assistant, Time: t0, Tools: []transcript.Tool{{ID: "t", Name: "Bash", Kind: transcript.Command, Target: target, Outcome: o}}}
	}
	edit := func(file string) transcript.Message {
		return transcript.Message{Role: transcript.Assistant, Time: t0, CWD: "/src/app", Tools: []transcript.Tool{{ID: "e", Name: "Edit", Kind: transcript.Write, Target: "/src/app/" + file}}}
	}
	for _, tc := range []struct {
		name string
		msgs []transcript.Message
		want string // category: text
	}{
		{"remember a fact", []transcript.Message{user("Please remember that the staging DB listens on 5433.")}, "facts: The staging DB listens on 5433"},
		{"a fragment to remember is no fact", []transcript.Message{user("Note: to prepare emotionally, since the wait can be hard.")}, ""},
		{"a hedge to remember is no fact", []transcript.Message{user("Remember that the release is maybe on Friday.")}, ""},
		{"a feeling to remember is no fact", []transcript.Message{user("Keep in mind that I'm so nervous about the launch.")}, ""},
		{"a question to remember is no fact", []transcript.Message{user("Remember: who owns the deploy script?"), said("Nobody is named in the repository.")}, ""},
		{"too short to stand alone", []transcript.Message{user("Remember that Friday.")}, ""},
		{"memory input fragment", []transcript.Message{user("<user-memory-input>and the other one</user-memory-input>")}, ""},
		{"who, what, where, when", []transcript.Message{user("Remember that the board meeting is on March 3 in Lisbon.")}, "facts: The board meeting is on March 3 in Lisbon"},
		{"how a tool behaves", []transcript.Message{user("Node v24 no longer requires the --experimental-strip-types (enabled by default)... please update package.json scripts.")}, "facts: Node v24 no longer requires the --experimental-strip-types (enabled by default)"},
		{"a default", []transcript.Message{user("Postgres listens on 5432 by default, but staging listens on 5433.")}, "facts: Postgres listens on 5432 by default, but staging listens on 5433"},
		{"a hedged statement of how a tool behaves", []transcript.Message{user("I think Node v24 no longer requires the flag.")}, ""},
		{"remember a rule", []transcript.Message{user("Remember: always run make lint before pushing.")}, "preferences: Always run make lint before pushing"},
		{"from now on", []transcript.Message{user("Fix the build. From now on, use pnpm instead of npm.")}, "preferences: From now on, use pnpm instead of npm"},
		{"i prefer", []transcript.Message{user("I prefer short commit messages.")}, "preferences: I prefer short commit messages"},
		{"don't ever", []transcript.Message{user("Don't ever push to main directly!")}, "preferences: Don't ever push to main directly!"},
		{"never", []transcript.Message{user("Never commit the .env file.")}, "preferences: Never commit the .env file"},
		{"memory input", []transcript.Message{user("<user-memory-input>Always use conventional commits</user-memory-input>")}, "preferences: Always use conventional commits"},
		{"we decided", []transcript.Message{user("We decided to drop Redis because Postgres can hold the queue.")}, "decisions: Drop Redis (why: Postgres can hold the queue)"},
		{"let's go with", []transcript.Message{said("Option A or B?"), user("Let's go with B.")}, "decisions: Use B"},
		{"in favor of", []transcript.Message{user("yes, in a previous session we remove the react web app in favor of generating static PNG files. Can you update the README?")}, "decisions: Remove the react web app in favor of generating static PNG files"},
		{"a change of plan", []transcript.Message{said("Jobs go to three queues."), user("I want to update my spec to remove this queue separation and just have a codex queue"), edit("spec.md")}, "decisions: Remove the queue separation and have a codex queue"},
		{"a change of plan not taken is no decision", []transcript.Message{user("I want to update my spec to remove this queue separation and just have a codex queue"), said("Separate queues keep each worker's auth volume; merging them would break that."), user("Fine, keep them.")}, ""},
		{"update to use", []transcript.Message{user("ok lets deal with some technical debt. We're currently using CJS. Update the project to use typescript and ESM... we're using the last node v24, so we don't need to transpile to use typescript."), said("I'll help you migrate the project.")}, "decisions: Update the project to use typescript and ESM (why: We're using the last node v24, so we don't need to transpile to use typescript)"},
		{"let's rename", []transcript.Message{user("Since we no longer have 2 separate apps, we no longer need a separate data-capture folder. Let's rename `/data-capture` to `/src`."), tool(transcript.Command, "mv data-capture src")}, "decisions: Rename `/data-capture` to `/src` (why: Since we no longer have 2 separate apps, we no longer need a separate data-capture folder)"},
		{"a request refused is no decision", []transcript.Message{user("Let's rename `/data-capture` to `/src`."), ran("mv data-capture src", transcript.Rejected), user("Actually leave it.")}, "episode: corrected: Actually leave it"},
		{"a line of a pasted spec is no decision", []transcript.Message{user("Build a Pomodoro timer. The app should let the user:\n•Start a 25-minute timer for focused work.\n•Automatically switch to a 5-minute break when the work session ends.\n- Use localStorage instead of cookies for the count."), edit("index.html")}, ""},
		{"bold lines are no list", []transcript.Message{user("**Plan**\n**Let's rename `/data-capture` to `/src`.**"), tool(transcript.Command, "mv data-capture src")}, "decisions: Rename `/data-capture` to `/src`"},
		{"a question is no decision", []transcript.Message{user("Should we switch to Postgres for the job queue?"), said("Yes: I'll switch it.")}, ""},
		{"a polite request done is one", []transcript.Message{user("Can you please switch the CI to GitHub Actions?"), tool(transcript.Write, ".github/workflows/ci.yml")}, "decisions: Switch the CI to GitHub Actions"},
		{"ideas named from a list offered", []transcript.Message{user("Anything else we should add?"), said("Here are a few ideas:\n\n*   **Sound notifications:** Replace the alert.\n*   **Visual progress bar:** Show the remaining time.\n*   **Long breaks:** After a few Pomodoros, offer a longer break.\n\nDo any of these sound interesting to you?"), user("Add a visual progress bar and long breaks suggestions")},
			"decisions: Add a visual progress bar and long breaks suggestions (why: Chosen among the ideas offered: Sound notifications; Visual progress bar; Long breaks)"},
		{"use over instead", []transcript.Message{user("Use async/await instead of Combine for the new client."), said("Sure, I'll use async/await.")}, "decisions: Use async/await instead of Combine for the new client"},
		{"switch to", []transcript.Message{user("We should switch to Postgres for the job queue."), said("Agreed, Postgres can hold it.")}, "decisions: Switch to Postgres for the job queue"},
		{"yes to the recommendation", []transcript.Message{user("Clarify the spec."), said("Question 1 of up to 5:\n\nWhich concurrency model should the public API treat as primary?\n\n**Recommended:** Option A - `async/await` as the primary API. This fits Swift's direction.\n\n| Option | Description |\n|--------|-------------|\n| A | Make `async/await` the primary API, keeping Combine as secondary. |\n| B | Keep multiple specialized request entry points. |\n| Short | Provide a different short answer. |"), user("yes")},
			"decisions: Make `async/await` the primary API, keeping Combine as secondary (why: Chosen in answer to: Which concurrency model should the public API treat as primary?)"},
		{"an option by its letter", []transcript.Message{user("Clarify the spec."), said("Question 1 of up to 5:\n\nWhich concurrency model should the public API treat as primary?\n\n**Recommended:** Option A - `async/await` as the primary API. This fits Swift's direction.\n\n| Option | Description |\n|--------|-------------|\n| A | Make `async/await` the primary API, keeping Combine as secondary. |\n| B | Keep multiple specialized request entry points. |\n| Short | Provide a different short answer. |"), user("B")},
			"decisions: Keep multiple specialized request entry points (why: Chosen in answer to: Which concurrency model should the public API treat as primary?)"},
		{"a letter with no options is nothing", []transcript.Message{user("Clarify the spec."), said("Done. The spec is clear."), user("B")}, ""},
		{"a yes with no recommendation is nothing", []transcript.Message{user("Commit it?"), said("Shall I commit?"), user("yes")}, ""},
		{"a plan is not a decision", []transcript.Message{user("Move `metrics.db` to `/data`. Fix the failing test. I want to update the README.")}, ""},
		{"a correction of a step is part of the episode", []transcript.Message{user("Add a test."), said("I'll run git init first."), user("No, the repo exists already. Just add the test.")}, "episode: corrected: No, the repo exists already"},
		{"after an interruption", []transcript.Message{user("Commit it."), tool(transcript.Command, "git init"), user("[Request interrupted by user for tool use]"), user("We already have a repo, so you don't need to git init.")}, "episode: corrected: We already have a repo, so you don't need to git init"},
		{"a correction in the words of a standing rule is a preference", []transcript.Message{user("Commit it."), said("Committed with the message 'stuff'."), user("No. From now on, always write conventional commit messages.")}, "preferences: From now on, always write conventional commit messages"},
		{"don't, for this step", []transcript.Message{user("Deploy it."), said("I'll bump the version first."), user("Don't bump the version, it is set by CI.")}, "episode: corrected: Don't bump the version, it is set by CI"},
		{"error then fix", []transcript.Message{
			user("Run the tests."), tool(transcript.Command, "go test ./..."), said("The tests failed: a nil map."),
			said("The fix is to make the map first."), tool(transcript.Command, "cd app && go test ./... 2>&1 | tail"), said("All tests pass now.")},
			"resolutions: The tests failed: a nil map (Bash `cd app && go test ./... 2>&1 | tail`) → The fix is to make the map first. Then Bash `cd app && go test ./... 2>&1 | tail`: All tests pass now"},
		{"a marked failure, then a fix", []transcript.Message{
			user("Run the tests."), ran("go test ./...", transcript.Failed), said("The fix is to make the map first."),
			edit("sync.go"), ran("go test ./...", ""), said("All tests pass now.")},
			"resolutions: Bash `go test ./...` failed → The fix is to make the map first. Changed `sync.go`. Then Bash `go test ./...` went through: All tests pass now."},
		{"marks win over words", []transcript.Message{
			user("Run the tests."), ran("go test ./...", ""), said("The tests failed: a nil map."),
			said("The fix is to make the map first."), ran("go test ./...", ""), said("All tests pass now.")},
			""},
		{"the assistant's report names the error", []transcript.Message{
			user("Start it."), ran("npm start", transcript.Failed), said("Port 8080 is in use. The fix is to set PORT=8081 in .env."),
			edit(".env"), ran("npm start", ""), said("It works.")},
			"resolutions: Port 8080 is in use (Bash `npm start`) → The fix is to set PORT=8081 in .env. Changed `.env`. Then Bash `npm start` went through: It works."},
		{"the assistant's intent is no fix", []transcript.Message{
			user("Start it."), ran("cd .. && node serve-charts.ts", transcript.Failed), said("Port 8080 is in use. Let me find what's using it:"),
			ran("lsof -i :8080", ""), said("There's already a node process on 8080. Let me kill it and test:"),
			ran("kill 60782", ""), ran("cd .. && node serve-charts.ts", ""), said("Perfect! The web server is working.")},
			""},
		{"intent is left out of a fix", []transcript.Message{
			user("Start it."), ran("npm start", transcript.Failed), said("I need to fix the imports to use .ts extensions instead of .js. Let me fix this."),
			edit("index.ts"), ran("npm start", ""), said("Great! The application is running.")},
			"resolutions: Bash `npm start` failed → I need to fix the imports to use .ts extensions instead of .js. Changed `index.ts`. Then Bash `npm start` went through: Great! The application is running."},
		{"a folder made first is a transient step", []transcript.Message{
			user("Move them."), ran("cd .. && mv data-capture/*.ts src/", transcript.Failed),
			ran("cd .. && mkdir -p src data web/charts && mv data-capture/*.ts src/", "")},
			""},
		{"a process stopped first is a transient step", []transcript.Message{
			user("Serve it."), ran("python -m http.server 8000", transcript.Failed),
			ran("pkill -f http.server; python -m http.server 8000", "")},
			""},
		{"a variable set for the command is the fix", []transcript.Message{
			user("Build it."), ran("cd app && go build ./...", transcript.Failed),
			ran("cd app && CGO_ENABLED=1 go build ./...", "")},
			"resolutions: Bash `cd app && go build ./...` failed → Then Bash `cd app && CGO_ENABLED=1 go build ./...` went through."},
		{"a changed command is the fix", []transcript.Message{
			user("Test it."), ran("pytest -q", transcript.Failed), ran("PYTHONPATH=. pytest -q", "")},
			"resolutions: Bash `pytest -q` failed → Then Bash `PYTHONPATH=. pytest -q` went through."},
		{"the same call from another folder is no lesson", []transcript.Message{
			user("Move them."), ran("mv a.ts src/", transcript.Failed), ran("cd .. && mv a.ts src/", "")},
			""},
		{"a rejected call is neither", []transcript.Message{
			user("Test it."), ran("make", transcript.Failed), said("The fix is to add the target."),
			ran("make", transcript.Rejected)},
			""},
		{"a server stopped at its time limit works if the assistant says so", []transcript.Message{
			user("Start it."), ran("npm start", transcript.Failed), said("The fix is to import logger.ts."),
			ran("npm start", transcript.TimedOut), said("Great! The application is running.")},
			"resolutions: Bash `npm start` failed → The fix is to import logger.ts. Then Bash `npm start` went through: Great! The application is running."},
		{"a pipeline the assistant says failed did not go through", []transcript.Message{
			user("Start it."), ran("npm start", transcript.Failed), said("The fix is to import logger.ts."),
			ran("npm start | head", ""), said("Still an error.")},
			""},
		{"the assistant's question is not the user's", []transcript.Message{user("Add the endpoint."), said("Added it. Should it require auth?")}, ""},
		{"the assistant's greeting is no question", []transcript.Message{user("how are you doing"), said("I'm doing well, thanks for asking! What would you like to work on today?")}, ""},
		{"the assistant's offer is no question", []transcript.Message{user("Add the planner."), said("Added it. Want me to extend the planner to emit multiple tasks?")}, ""},
		{"the user's question left unanswered", []transcript.Message{
			user("start phoenix in background"), said("Phoenix server is starting in the background."),
			user("scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions"),
			tool(transcript.Command, "curl xtermjs.org"), user("[Request interrupted by user]")},
			"questions: scrolling back in xterm.js still does not work (maybe because outer web catches it)?"},
		{"a question the assistant answered", []transcript.Message{user("Why would jobs be routed to codex-1?"), said("Because each worker has its own queue and volume.")}, ""},
		{"a request is no question", []transcript.Message{user("Can you update the README?")}, ""},
		{"the last open question", []transcript.Message{user("Which port does staging use? And who owns the deploy script?")}, "questions: And who owns the deploy script?"},
		{"a question in code is not the user's", []transcript.Message{user("Look:\n```\nremember that x = 1\n```")}, ""},
		{"a feeling about the moment is no preference", []transcript.Message{user("I hate this flaky test. I don't like the output of that command.")}, ""},
		{"a one-off instruction is no preference", []transcript.Message{user("Update the README. Use tabs in this file.")}, ""},
		{"always", []transcript.Message{user("Always run the linter before committing.")}, "preferences: Always run the linter before committing"},
		{"i'd rather", []transcript.Message{user("I'd rather you ask before deleting files.")}, "preferences: I'd rather you ask before deleting files"},
		{"never mind is not a rule", []transcript.Message{user("Never mind, it works now.")}, ""},
		{"slash commands are not requests", []transcript.Message{user("/clear"), user("<command-name>/init</command-name>")}, ""},
		{"a person introduced", []transcript.Message{user("Sarah Chen is our investor at Example Ventures; she prefers email.")}, "people: Sarah Chen: Sarah Chen is our investor at Example Ventures; she prefers email"},
		{"a person by role", []transcript.Message{user("Draft the update. My manager is Priya Patel and she reads it on Mondays.")}, "people: Priya Patel: My manager is Priya Patel and she reads it on Mondays"},
		{"a person between commas", []transcript.Message{user("Our designer, Mei, wants the mockups in Figma.")}, "people: Mei: Our designer, Mei, wants the mockups in Figma"},
		{"a person to remember", []transcript.Message{user("Remember that Diego is my cofounder.")}, "facts: Diego is my cofounder\npeople: Diego: Diego is my cofounder"},
		{"a tool is no person", []transcript.Message{user("Redis is our cache. Kafka is our client library. This is our lead candidate.")}, ""},
		{"lower case is no name", []transcript.Message{user("the manager is responsible. our lead is slow.")}, ""},
		{"a milestone", []transcript.Message{user("Good news: we just shipped v2.0 to all customers!")}, "milestones: We just shipped v2.0 to all customers!"},
		{"a milestone of money", []transcript.Message{user("We closed the seed round yesterday.")}, "milestones: We closed the seed round yesterday"},
		{"a milestone of users", []transcript.Message{user("We just hit 1,000 users!")}, "milestones: We just hit 1,000 users!"},
		{"plans are no milestone", []transcript.Message{user("We will ship v2 next week. We shipping? I finished the refactor.")}, ""},
		{"steps of the work are no milestone", []transcript.Message{user("I launched the server but it crashes. We released the lock too early. We raised the timeout. We hit 3 errors.")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := Offline(sessions.Conversation{}, tc.msgs)
			var got []string
			for cat, items := range map[string][]Item{"facts": x.Facts, "preferences": x.Preferences, "decisions": x.Decisions, "corrections": x.Corrections, "questions": x.Questions, "milestones": x.Milestones} {
				for _, it := range items {
					s := cat + ": " + it.Text
					if it.Why != "" {
						s += " (why: " + it.Why + ")"
					}
					got = append(got, s)
				}
			}
			for _, r := range x.Resolutions {
				got = append(got, "resolutions: "+r.Error+" → "+r.Fix)
			}
			if _, c, ok := strings.Cut(x.Episode.Done, "corrected: "); ok {
				got = append(got, "episode: corrected: "+c)
			}
			for _, p := range x.People {
				got = append(got, "people: "+p.Name+": "+p.Note)
			}
			slices.Sort(got)
			want := []string{}
			if tc.want != "" {
				want = strings.Split(tc.want, "\n")
			}
			if got == nil {
				got = []string{}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t0 := time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC)
	msgs := []transcript.Message{
		{Role: transcript.User, Time: t0, Text: "/clear"},
		{Role: transcript.User, Time: t0, Text: "In the billing repo. Can you add a retry to the sync job?"},
		{Role: transcript.Assistant, Time: t0, Tools: []transcript.Tool{{Name: "Edit", Kind: transcript.Write, Target: "sync.go"}, {Name: "Edit", Kind: transcript.Write, Target: "sync.go"}}},
		{Role: transcript.Assistant, Time: t0, Tools: []transcript.Tool{{Name: "Bash", Kind: transcript.Command, Target: "go test ./..."}}},
		{Role: transcript.User, Time: t0, Text: "Thanks! Now commit it."},
		{Role: transcript.Assistant, Time: t0, Text: "Committed the retry with a test.\n\nAnything else?"},
		{Role: transcript.Assistant, Time: t0, Text: "Done."},
	}
	got := summarize(msgs)
	want := Episode{
		Title: "Can you add a retry to the sync job", Request: "In the billing repo. Can you add a retry to the sync job?",
		Done: "Wrote 1 file; ran 1 command; then: Now commit it", Outcome: "Committed the retry with a test.",
		Files: []string{"sync.go"}, Commands: []string{"go test ./..."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestEpisode: an episode says what was asked, what was done, what was
// decided and what is left, in a few lines, from the real shapes of
// conversations: a skill run with short answers, a rejected command, a
// heading over the last words.
func TestEpisode(t *testing.T) {
	t0 := time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC)
	user := func(s string) transcript.Message { return transcript.Message{Role: transcript.User, Time: t0, Text: s} }
	said := func(s string) transcript.Message {
		return transcript.Message{Role: transcript.Assistant, Time: t0, Text: s}
	}
	ran := func(target string, o transcript.Outcome) transcript.Message {
		return transcript.Message{Role: transcript.Assistant, Time: t0, Tools: []transcript.Tool{{ID: "t", Name: "Bash", Kind: transcript.Command, Target: target, Outcome: o}}}
	}
	edit := func(file string) transcript.Message {
		return transcript.Message{Role: transcript.Assistant, Time: t0, Tools: []transcript.Tool{{ID: "e", Name: "apply_patch", Kind: transcript.Write, Target: file}}}
	}
	options := func(n int, q string) string {
		return fmt.Sprintf("Question %d of up to 5:\n\n%s\n\n**Recommended:** Option A - the first. It is simpler.\n\n| Option | Description |\n|---|---|\n| A | Make async/await the primary API. |\n| B | Keep multiple request entry points. |", n, q)
	}
	for _, tc := range []struct {
		name string
		msgs []transcript.Message
		want Episode
	}{
		{"a skill run with short answers", []transcript.Message{
			user("$speckit-clarify"), said("Using speckit-clarify."),
			said(options(1, "Which concurrency model should the API treat as primary?")), user("yes"),
			said("I'm recording that the API makes async/await primary."), edit("specs/001/spec.md"),
			said(options(2, "What should the request model be?")), user("B"),
			said("I'm recording that the API keeps multiple request entry points."), edit("specs/001/spec.md"),
			said(options(3, "How aggressive should breaking changes be?")),
		}, Episode{
			Title: "Ran speckit-clarify on spec.md", Files: []string{"specs/001/spec.md"},
			Done:    "Wrote 1 file; decided: Make async/await the primary API; Keep multiple request entry points",
			Outcome: "I'm recording that the API keeps multiple request entry points. Left open: How aggressive should breaking changes be?",
		}},
		{"a rejected command was not run", []transcript.Message{
			user("I made some updates to the README. You can commit now"), said("I'll commit the README updates now."),
			ran("git init", transcript.Rejected), user("[Request interrupted by user for tool use]"),
			user("We already have a repo, so you don't need to git init. Instead stage the latest changes."),
			ran("git add README.md", ""), ran("git commit -m docs", ""), said("Done! I've committed the changes."),
		}, Episode{
			Title: "I made some updates to the README", Request: "I made some updates to the README. You can commit now",
			Commands: []string{"git add README.md", "git commit -m docs"},
			Done:     "Ran 2 commands; corrected: We already have a repo, so you don't need to git init",
			Outcome:  "Done! I've committed the changes.",
		}},
		{"a heading over the last words", []transcript.Message{
			user("Remove the queue separation and just have a codex queue."), edit("spec.md"),
			said("**Spec Updates**\n- `spec.md` now frames User Story 2 around a single shared queue."),
		}, Episode{
			Title: "Remove the queue separation and just have a codex queue", Request: "Remove the queue separation and just have a codex queue.",
			Files: []string{"spec.md"}, Done: "Wrote 1 file; decided: Remove the queue separation and have a codex queue",
			Outcome: "- `spec.md` now frames User Story 2 around a single shared queue.",
		}},
		{"the user's question left open", []transcript.Message{
			user("start phoenix in background"), ran("mix phx.server", ""), said("Phoenix server is starting in the background."),
			user("scrolling back in xterm.js still does not work? search for it"), user("[Request interrupted by user]"),
		}, Episode{
			Title: "Start phoenix in background", Request: "start phoenix in background", Commands: []string{"mix phx.server"},
			Done:    "Ran 1 command; then: scrolling back in xterm.js still does not work",
			Outcome: "Phoenix server is starting in the background. Left open: scrolling back in xterm.js still does not work?",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Offline(sessions.Conversation{}, tc.msgs).Episode
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestCommandKey(t *testing.T) {
	for in, want := range map[string]string{
		"npm start":                         "npm start",
		"npm start 2>&1 | head -20":         "npm start",
		"cd .. && npm start &":              "npm start",
		"cd app; go test ./...":             "go test ./...",
		"  go   vet ./... 2>&1 | tail -5":   "go vet ./...",
		"PYTHONPATH=. pytest -q":            "pytest -q",
		"CGO_ENABLED=0 GOOS=linux go build": "go build",
		"A=1":                               "A=1",
	} {
		if got := commandKey(in); got != want {
			t.Errorf("commandKey(%q) = %q, want %q", in, got, want)
		}
	}
}
