package librarian

import (
	"time"

	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/transcript"
)

// dated returns msgs with the date beside each relative time their texts
// say ("yesterday" said on 2023-05-08 becomes "yesterday (2023-05-07)"),
// read against the message's own time in loc: so what the librarian files
// from them, offline or through a model, says when things happened, and a
// later question finds and dates them. msgs is not changed.
func dated(msgs []transcript.Message, loc *time.Location) []transcript.Message {
	out := make([]transcript.Message, len(msgs))
	for i, m := range msgs {
		if m.Text != "" && !m.Time.IsZero() {
			m.Text = when.Annotate(m.Text, m.Time.In(loc))
		}
		out[i] = m
	}
	return out
}
