package index

import "context"

// EmbedAfter returns a report function for Watch that passes each report
// on to report and then embeds with e what changed: the first report
// embeds every entry that is due (the watch catching up), later ones embed
// only when they changed the index. embedded hears of each embedding, or
// of its error; a failed embedding does not stop the watch, and what it
// left is embedded after the next change. With e nil, it is report alone.
// Every watcher that embeds (ctx0 index --watch --embed, the daemon) runs
// this one loop.
func (ix *Index) EmbedAfter(ctx context.Context, e Embedder, report func(Report), embedded func(EmbedReport, error)) func(Report) {
	if report == nil {
		report = func(Report) {}
	}
	if e == nil {
		return report
	}
	started := false
	return func(rep Report) {
		report(rep)
		if started && rep.Changes() == 0 {
			return
		}
		started = true
		erep, err := ix.Embed(ctx, e, 0)
		if embedded != nil {
			embedded(erep, err)
		}
	}
}
