package when

import (
	"strings"
	"testing"
	"time"
)

// now is a Monday afternoon.
var now = time.Date(2023, 5, 8, 14, 30, 0, 0, time.UTC)

func TestRead(t *testing.T) {
	for _, c := range []struct {
		q, window, rest string
		asks            bool
	}{
		{"what did I do yesterday?", "2023-05-07", "what did I do ?", false},
		{"what happened last week", "2023-05-01 to 2023-05-07", "what happened", false},
		{"plans for this week", "2023-05-08 to 2023-05-14", "plans", false},
		{"next week", "2023-05-15 to 2023-05-21", "", false},
		{"who did we meet in March?", "2023-03", "who did we meet ?", false},
		{"in December", "2022-12", "", false},
		{"last May", "2022-05", "", false},
		{"what did Sarah say on 8 May 2023", "2023-05-08", "what did Sarah say", false},
		{"May 8, 2023", "2023-05-08", "", false},
		{"on the 8th of May", "2023-05-08", "", false},
		{"3 days ago", "2023-05-05", "", false},
		{"two weeks ago", "2023-04-24 to 2023-04-30", "", false},
		{"a month ago", "2023-04", "", false},
		{"a couple of days ago", "2023-05-06", "", false},
		{"last year", "2022", "", false},
		{"trips in 2021", "2021", "trips", false},
		{"since last week", "since 2023-05-01", "", false},
		{"before March 2023", "before 2023-03-01", "", false},
		{"after 2023-05-01", "since 2023-05-02", "", false},
		{"until yesterday", "before 2023-05-08", "", false},
		{"in the last 3 days", "2023-05-05 to 2023-05-08", "", false},
		{"over the past month", "2023-04-08 to 2023-05-08", "", false},
		{"last Friday", "2023-05-05", "", false},
		{"next Friday", "2023-05-12", "", false},
		{"this Friday", "2023-05-12", "", false},
		{"this weekend", "2023-05-13 to 2023-05-14", "", false},
		{"last weekend", "2023-05-06 to 2023-05-07", "", false},
		{"the day before yesterday", "2023-05-06", "", false},
		{"tomorrow", "2023-05-09", "", false},
		{"this morning", "2023-05-08", "", false},
		{"last night", "2023-05-07", "", false},
		{"between March and April 2023", "2023-03-01 to 2023-04-30", "", false},
		{"from 1 May 2023 to 3 May 2023", "2023-05-01 to 2023-05-03", "", false},
		{"in 2022-11", "2022-11", "", false},
		{"in March last year", "2022-03", "", false},
		{"when did Caroline go to the support group?", "", "when did Caroline go to the support group?", true},
		{"When was the launch", "", "When was the launch", true},
		{"this may break the build", "", "this may break the build", false},
		{"we may ship in may", "2023-05", "we may ship", false},
		{"port 8080 is in use", "", "port 8080 is in use", false},
		{"march on", "", "march on", false},
		{"30 February 2023", "2023-02", "30", false}, // no such day: the month
		{"what did I work on in July 2025?", "2025-07", "what did I work on ?", false},
		{"what did we ship in 2024", "2024", "what did we ship", false},
		{"what did we do last spring?", "2022-03-01 to 2022-05-31", "what did we do ?", false}, // spring now: the one before
		{"last autumn", "2022-09-01 to 2022-11-30", "", false},
		{"in the summer of 2021", "2021-06-01 to 2021-08-31", "", false},
		{"trips in winter", "2022-12-01 to 2023-02-28", "trips", false},
		{"spring 2024", "2024-03-01 to 2024-05-31", "", false},
		{"this summer", "2023-06-01 to 2023-08-31", "", false},
		{"next winter", "2023-12-01 to 2024-02-29", "", false},
		{"what did we do the week before?", "2023-04-24 to 2023-04-30", "what did we do ?", false},
		{"the month before last", "2023-03", "", false},
		{"a week before the launch", "", "a week", false}, // an event, not the week before
		{"spring cleaning", "", "spring cleaning", false},
	} {
		r := Read(c.q, now)
		if got := r.Window.String(); got != c.window {
			t.Errorf("Read(%q).Window = %q, want %q (spans %+v)", c.q, got, c.window, r.Spans)
		}
		if r.Rest != c.rest {
			t.Errorf("Read(%q).Rest = %q, want %q", c.q, r.Rest, c.rest)
		}
		if r.AsksWhen != c.asks {
			t.Errorf("Read(%q).AsksWhen = %v, want %v", c.q, r.AsksWhen, c.asks)
		}
	}
}

func TestNamed(t *testing.T) {
	for _, c := range []struct {
		q     string
		named bool
	}{
		{"on 8 May 2023", true}, {"in March", true}, {"2023-05-08", true}, {"in 2021", true}, {"the 8th of May", true},
		{"yesterday", false}, {"3 days ago", false}, {"last week", false}, {"next Friday", false}, {"a couple of days ago", false},
	} {
		spans := Find(c.q, now)
		if len(spans) != 1 || spans[0].Named != c.named {
			t.Errorf("Find(%q) = %+v, want one span, Named %v", c.q, spans, c.named)
		}
	}
}

func TestReadEvents(t *testing.T) {
	for _, c := range []struct{ q, op, event, rest string }{
		{"what did we ship since the launch?", "since", "launch", "what did we ship ?"},
		{"before the product launch", "before", "product launch", ""},
		{"after my trip to Paris", "after", "trip", "to Paris"},
	} {
		r := Read(c.q, now)
		ev := r.Events()
		if len(ev) != 1 || ev[0].Op != c.op || ev[0].Event != c.event {
			t.Errorf("Read(%q).Events() = %+v, want %s %q", c.q, ev, c.op, c.event)
		}
		if !r.Window.IsZero() {
			t.Errorf("Read(%q).Window = %v, want none: an event is not dated here", c.q, r.Window)
		}
		if r.Rest != c.rest {
			t.Errorf("Read(%q).Rest = %q, want %q", c.q, r.Rest, c.rest)
		}
	}
}

func TestAnnotate(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"I went to the support group yesterday.", "I went to the support group yesterday (2023-05-07)."},
		{"See you next Friday!", "See you next Friday (2023-05-12)!"},
		{"We moved here last week, and 3 days ago the boxes came.", "We moved here last week (2023-05-01 to 2023-05-07), and 3 days ago (2023-05-05) the boxes came."},
		{"It was in March.", "It was in March (2023-03)."},
		{"The call is on 8 May 2023 at noon.", "The call is on 8 May 2023 at noon."},
		{"Since yesterday it fails.", "Since yesterday it fails."},
		{"I have been busy recently.", "I have been busy recently."},
		{"yesterday (2023-05-07) it rained", "yesterday (2023-05-07) it rained"},
		{"nothing to date here", "nothing to date here"},
		{"I'll visit her there in the summer.", "I'll visit her there in the summer."},
	} {
		if got := Annotate(c.in, now); got != c.want {
			t.Errorf("Annotate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNowsLocation checks that days are the days of now's location.
func TestNowsLocation(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	// Sunday 7 May 23:00 UTC is Monday 8 May in Tokyo.
	r := Read("yesterday", time.Date(2023, 5, 7, 23, 0, 0, 0, time.UTC).In(tokyo))
	if got := r.Window.String(); got != "2023-05-07" {
		t.Errorf("yesterday in Tokyo = %q, want 2023-05-07", got)
	}
	if !r.Window.Contains(time.Date(2023, 5, 7, 12, 0, 0, 0, tokyo)) || r.Window.Contains(time.Date(2023, 5, 7, 16, 0, 0, 0, time.UTC)) {
		t.Errorf("window %v: wrong bounds in Tokyo", r.Window)
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{"what did I do yesterday?", "since the launch", "between March and April 2023", "on the 8th of May",
		"from 1 May 2023 to 3 May 2023", "2023-05-08", "in the last 3 days", "last Friday", "a couple of days ago", "in 2023-1", "東京 last week", "last spring", "the week before last", "in the summer of 2021"} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, q string, offset int64) {
		at := now.Add(time.Duration(offset%(200*365*24)) * time.Hour)
		r := Read(q, at)
		end := 0
		for _, s := range r.Spans {
			if s.Start < end || s.End <= s.Start || s.End > len(q) || q[s.Start:s.End] != s.Text {
				t.Fatalf("Read(%q): span %+v out of order or bounds", q, s)
			}
			end = s.End
			if s.Event == "" && !s.Window.Since.IsZero() && !s.Window.Until.IsZero() && !s.Window.Since.Before(s.Window.Until) {
				t.Fatalf("Read(%q): empty window %v from %q", q, s.Window, s.Text)
			}
		}
		if len(r.Rest) > len(q) {
			t.Fatalf("Read(%q).Rest %q is longer than the question", q, r.Rest)
		}
		once := Annotate(q, at)
		if !strings.Contains(once, strings.TrimSpace(q)) && len(r.Spans) == 0 {
			t.Fatalf("Annotate(%q) = %q changed a text with no time in it", q, once)
		}
		if twice := Annotate(once, at); twice != once {
			t.Fatalf("Annotate is not idempotent: %q → %q → %q", q, once, twice)
		}
	})
}

func TestRange(t *testing.T) {
	for _, c := range []struct {
		since, until, want, err string
	}{
		{"2023-05-01", "", "since 2023-05-01", ""},
		{"", "2023-05-01", "before 2023-05-02", ""},
		{"2023-05-01", "2023-05-31", "2023-05", ""},
		{"last week", "", "since 2023-05-01", ""},
		{"", "yesterday", "before 2023-05-08", ""},
		{"March", "April", "2023-03-01 to 2023-04-30", ""},
		{"2023-05-08T10:00:00Z", "", "since 2023-05-08", ""},
		{"someday", "", "", `--since "someday": want a date`},
		{"since the launch", "", "", `--since "since the launch": want a date`},
		{"2023-05-08", "2023-05-01", "", "--since 2023-05-08 is not before --until 2023-05-01"},
	} {
		w, err := Range(now, Bound{"--since", c.since}, Bound{"--until", c.until})
		switch {
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("Range(%q, %q) error %v, want %q", c.since, c.until, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("Range(%q, %q): %v", c.since, c.until, err)
		case c.err == "" && w.String() != c.want:
			t.Errorf("Range(%q, %q) = %q, want %q", c.since, c.until, w, c.want)
		}
	}
}
