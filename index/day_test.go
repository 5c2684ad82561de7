package index

import (
	"fmt"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index/query"
)

// TestSearchWeighsTheAskedDay: "who is coming with me to the dentist
// appointment on 4 April?" ranks first the entry that names that day, in
// whatever form ("April 4th", "2023-04-04"), above entries about other
// dentist appointments of April that say the question's other words more
// often, and one whose "2023-04-14" and "10:45" hold the day's digits;
// a watcher in another process, sent the question and when it was read,
// ranks alike.
func TestSearchWeighsTheAskedDay(t *testing.T) {
	files := map[string]string{
		"episodes/2023-03-03.md": "---\ntitle: Dentist\n---\nMy sister Nadia is coming with me to the dentist appointment. When is it? On April 4th, at 10:30.\n",
		"episodes/2023-03-14.md": "---\ntitle: Dentist appointment\n---\nMy dentist appointment is on Friday 14 April, and Samir is coming with me to the dentist appointment in April.\n",
		"episodes/2023-03-20.md": "---\ntitle: Dentist appointment\n---\nNoted: dentist appointment on 2023-04-14 at 10:45, Omar is coming with me to the dentist appointment.\n",
		"episodes/2023-03-21.md": "---\ntitle: Appointment\n---\nThe dentist appointment: Leila is coming with me. Booked for 2023-04-04 at 9:00.\n",
	}
	// Other entries, so that the question's words are not in every one.
	for i, body := range []string{"We moved the nightly build to Jenkins.", "Sarah prefers email.", "The capture service listens on port 8080.", "Deploys stay on Fridays.", "Omar moved to Lyon.", "The parser needs a rewrite."} {
		files[fmt.Sprintf("knowledge/note-%d.md", i)] = "---\ntitle: Note\n---\n" + body + "\n"
	}
	v, ix := searchVault(t, files)
	at := time.Date(2023, 3, 30, 9, 0, 0, 0, time.UTC)
	for _, q := range []string{
		"who is coming with me to the dentist appointment on 4 April?",
		"who is coming with me to the dentist appointment on the 4th of April?",
	} {
		p := query.Parse(q, at)
		got := names(find(t, ix, Query{Plan: p}))
		if len(got) < 4 || !namesDay(got[0]) || !namesDay(got[1]) {
			t.Errorf("%q: got %v, want the two entries naming 4 April first", q, got)
		}
	}

	p := query.Parse("who is coming with me to the dentist appointment on 4 April?", at)
	stop := startWatcher(t, v)
	defer stop()
	remote, err := ix.searchWatcher(t.Context(), Query{Text: p.Text(), Read: p.Now()})
	if err != nil {
		t.Fatal(err)
	}
	local, err := (&Index{shared: ix.shared, checked: true}).searchHere(t.Context(), Query{Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	if r, l := jsonOf(t, remote), jsonOf(t, local); r != l {
		t.Errorf("the watcher answered\n%s\nthe reader finds\n%s", r, l)
	}
}

func namesDay(name string) bool {
	return name == "episodes/2023-03-03" || name == "episodes/2023-03-21"
}
