package extractor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/templates"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/decay"
	"github.com/ctx0/ctx0/vault/entry"
)

// Context budgets, in tokens counted with Tokens.
const (
	// DefaultContextBudget keeps the block small: it is loaded into every
	// session.
	DefaultContextBudget = 1500
	// MinContextBudget holds the block's frame and instructions and a
	// few lines.
	MinContextBudget = 300
)

// How the block shares its budget, after its frame, between sections.
// Each section takes what it needs up to its share of what the sections
// before it left, so that what one does not use goes to the next; the
// latest entries take the rest.
const (
	pinnedShare  = 0.5
	prefShare    = 0.3 // the preferences, of what the pinned entries left
	contextShare = 0.4 // the compacted summary
	recentShare  = 0.4 // the incremental summaries since
)

// Limits on what the block lists.
const (
	maxPinned      = 50
	maxLatest      = 10 // the newest entries not covered by a summary yet
	projectLatest  = 5  // of which up to this many of the current project come first
	episodeType    = "episode"
	pinnedLine     = 80 // tokens for one pinned entry
	latestLine     = 50 // tokens for one latest entry
	latestFetch    = 60 // entries listed to choose the latest from
	maxSummaryRead = 20
	maxPreferences = 8 // the most confident few, so the block stays short
	// prefRead bounds the preferences read to choose from, newest first.
	// It is meant to take them all: an old one can be the most confident
	// (stated by the user, it never fades), and the curator archives those
	// that faded, so a vault holds few. The bound keeps a vault that never
	// runs the curator quick to start (a read takes about 0.1 ms).
	prefRead = 500
)

// Summaries, as the curator files them: entries of type summary, tagged
// compacted (a roll-up of older summaries) or incremental (of the entries
// since the last summary), dated by created. The block loads the newest
// compacted summary, the incremental ones made after it, and then only
// entries changed after the newest summary.
const (
	summaryType    = "summary"
	preferenceType = "preference"
	compactedTag   = "compacted"
	incrementalTag = "incremental"
)

// ContextOptions say which block to make.
type ContextOptions struct {
	// Project is the project worked on. If it is "" and Dir is set, it is
	// the project of the git repository at Dir (see ProjectOf).
	Project string
	Dir     string
	// Budget is the most tokens the block may take; 0 means
	// DefaultContextBudget.
	Budget int
	// Usage is how the block's instructions name what the agent can do:
	// ctx0 commands (the default), or ctx0's MCP tools for an agent that
	// reaches the memory only over MCP.
	Usage Usage
}

// Usage is how the block's instructions tell an agent to look things up,
// save and correct them: the way the agent reaches ctx0.
type Usage int

const (
	// UsageCLI names ctx0 commands (ctx0 retrieve, remember, supersede),
	// for an agent with a shell: the CLI and the hooks.
	UsageCLI Usage = iota
	// UsageMCP names ctx0's MCP tools (retrieve, remember, memory), for an
	// agent that has only those.
	UsageMCP
)

// Block is the session-start context: a <memory> block for an agent's
// system prompt. Text is the block; the rest says what is in it.
type Block struct {
	Project string      `json:"project"`
	Items   []BlockItem `json:"items"`
	// Omitted are the entries that did not fit the budget.
	Omitted []string `json:"omitted,omitempty"`
	Tokens  int      `json:"tokens"`
	Budget  int      `json:"budget"`
	Text    string   `json:"text"`
}

// BlockItem is one line of the block, or one summary.
type BlockItem struct {
	Section string    `json:"section"` // pinned, context, recent or latest
	Name    string    `json:"name"`
	Title   string    `json:"title"`
	Project string    `json:"project,omitempty"`
	Date    time.Time `json:"date,omitzero"` // when it happened (vault.Happened), as search and retrieve date it
	Text    string    `json:"text"`

	created time.Time
}

// Block sections, in the order they are printed: what changes least comes
// first, so that a prompt cache keeps as long a prefix as it can.
var sections = []struct{ key, heading string }{
	{"pinned", "Pinned"},
	{"preferences", "Preferences"},
	{"context", "Context"},
	{"recent", "Recent"},
	{"latest", "Latest"},
}

// Context returns the block an agent's session starts with: pinned entries
// first, then the preferences whose confidence is above the curator's
// threshold (see decay.Confidence; the most confident first), then the
// curator's summaries where there are some, else the latest entries; of the
// current project and global ones (entries of no project); within the
// budget. The same vault gives the same block, byte for byte: entries are
// ordered by their own dates and names, never by the time of the call. Only
// a preference the curator watches fading below the threshold (m.Now) takes
// it out of the block.
func Context(ctx context.Context, m Memory, opt ContextOptions) (Block, error) {
	if opt.Budget == 0 {
		opt.Budget = DefaultContextBudget
	}
	if opt.Budget < MinContextBudget {
		return Block{}, fmt.Errorf("context: %w: %d tokens, the least is %d", ErrBudget, opt.Budget, MinContextBudget)
	}
	if opt.Project == "" && opt.Dir != "" {
		opt.Project = sessions.ProjectOf(opt.Dir)
	}
	ix, err := m.Index.Checked(ctx)
	if err != nil {
		return Block{}, fmt.Errorf("context: %w", err)
	}
	m.Index = ix
	projects := projectNames(opt.Project)
	c := &blockMaker{m: m, b: Block{Project: opt.Project, Items: []BlockItem{}, Budget: opt.Budget}, usage: opt.Usage}
	pinned, err := m.Index.Latest(ctx, index.Listing{Pinned: true, Projects: projects, Limit: maxPinned})
	if err != nil {
		return Block{}, fmt.Errorf("context: %w", err)
	}
	prefs, err := m.Index.Latest(ctx, index.Listing{Type: preferenceType, Projects: projects, Limit: prefRead})
	if err != nil {
		return Block{}, fmt.Errorf("context: %w", err)
	}
	if c.decay, err = decay.ParseSettings(m.Vault.Settings()); err != nil {
		return Block{}, fmt.Errorf("context: %w", err)
	}
	c.now = time.Now()
	if m.Now != nil {
		c.now = m.Now()
	}
	summaries, err := m.Index.Latest(ctx, index.Listing{Type: summaryType, Projects: projects, Limit: maxSummaryRead})
	if err != nil {
		return Block{}, fmt.Errorf("context: %w", err)
	}
	compacted, incremental, since := pickSummaries(summaries)
	latest, err := m.Index.Latest(ctx, index.Listing{Projects: projects, ChangedSince: since, Limit: latestFetch})
	if err != nil {
		return Block{}, fmt.Errorf("context: %w", err)
	}
	if err := c.fill(ctx, pinned, prefs, compacted, incremental, latest, opt.Project); err != nil {
		return Block{}, err
	}
	return c.b, nil
}

// pickSummaries returns the newest compacted summary, the incremental ones
// made after it, newest first, and the time from which entries are not
// summarized yet: just after the newest of those. list is newest first.
func pickSummaries(list []index.Result) (compacted *index.Result, incremental []index.Result, since time.Time) {
	for i := range list {
		s := &list[i]
		switch {
		case compacted != nil:
			return compacted, incremental, since
		case slices.Contains(s.Tags, compactedTag):
			compacted = s
		case slices.Contains(s.Tags, incrementalTag):
			incremental = append(incremental, *s)
		default:
			continue
		}
		if since.IsZero() && !s.Updated.IsZero() {
			since = s.Updated.Add(time.Second)
		}
	}
	return compacted, incremental, since
}

// blockMaker fills a block within its budget.
type blockMaker struct {
	m     Memory
	b     Block
	usage Usage
	decay decay.Settings
	now   time.Time
}

// fill fills the block's sections in order, each from what the budget
// left after the ones before it, then renders the block.
func (c *blockMaker) fill(ctx context.Context, pinned, prefs []index.Result, compacted *index.Result, incremental, latest []index.Result, project string) error {
	frame := Tokens(c.render(nil))
	for _, s := range sections {
		frame += Tokens("## " + s.heading + "\n")
	}
	left := c.b.Budget - frame
	if left <= 0 {
		return fmt.Errorf("context: %w: the block's frame takes %d tokens of %d", ErrBudget, frame, c.b.Budget)
	}
	pins, err := c.pins(ctx, pinned)
	if err != nil {
		return err
	}
	left -= c.take(pins, int(pinnedShare*float64(left)))
	prefItems, faded, err := c.preferences(ctx, prefs)
	if err != nil {
		return err
	}
	left -= c.take(prefItems, int(prefShare*float64(left)))
	if compacted != nil {
		it, err := c.summary(ctx, "context", *compacted, int(contextShare*float64(left)))
		if err != nil {
			return err
		}
		if it != nil {
			left -= c.take([]BlockItem{*it}, left)
		}
	}
	share := int(recentShare * float64(left))
	recent, err := c.recent(ctx, incremental, share)
	if err != nil {
		return err
	}
	left -= c.take(recent, share)
	lines, err := c.latest(ctx, latest, faded, project)
	if err != nil {
		return err
	}
	c.take(lines, left)
	c.fitBudget()
	c.b.Text = c.render(c.b.Items)
	c.b.Tokens = Tokens(c.b.Text)
	return nil
}

// pins are the pinned entries' lines, oldest first: a new pin adds a line
// at the end.
func (c *blockMaker) pins(ctx context.Context, pinned []index.Result) ([]BlockItem, error) {
	var pins []BlockItem
	for _, r := range pinned {
		it, err := c.line(ctx, "pinned", r, pinnedLine)
		if err != nil {
			return nil, err
		}
		if it != nil {
			pins = append(pins, *it)
		}
	}
	slices.SortFunc(pins, func(a, b BlockItem) int { return cmp.Or(a.created.Compare(b.created), cmp.Compare(a.Name, b.Name)) })
	return pins, nil
}

// preferences are the lines of the preferences above the curator's
// threshold, the most confident first, at most maxPreferences; faded names
// the ones below it, which are left out of the latest entries too.
func (c *blockMaker) preferences(ctx context.Context, prefs []index.Result) (items []BlockItem, faded map[string]bool, err error) {
	faded = map[string]bool{}
	type pref struct {
		it   BlockItem
		conf float64
	}
	var ps []pref
	for _, r := range prefs {
		if r.Pinned {
			continue
		}
		e, err := c.read(ctx, r.Name)
		if err != nil {
			return nil, nil, err
		}
		if e == nil {
			continue
		}
		conf := decay.Confidence(e, c.now, c.decay.HalfLife)
		if conf < c.decay.Threshold {
			faded[r.Name] = true
			continue
		}
		it, err := c.line(ctx, "preferences", r, latestLine)
		if err != nil {
			return nil, nil, err
		}
		if it != nil {
			ps = append(ps, pref{*it, conf})
		}
	}
	slices.SortStableFunc(ps, func(a, b pref) int {
		return cmp.Or(cmp.Compare(b.conf, a.conf), a.it.created.Compare(b.it.created), cmp.Compare(a.it.Name, b.it.Name))
	})
	for _, p := range ps {
		if len(items) == maxPreferences {
			break
		}
		items = append(items, p.it)
	}
	return items, faded, nil
}

// recent are the incremental summaries, oldest first, as they were made,
// sharing share tokens evenly. incremental is newest first.
func (c *blockMaker) recent(ctx context.Context, incremental []index.Result, share int) ([]BlockItem, error) {
	var recent []BlockItem
	for i := len(incremental) - 1; i >= 0; i-- {
		it, err := c.summary(ctx, "recent", incremental[i], share/max(len(incremental), 1))
		if err != nil {
			return nil, err
		}
		if it != nil {
			recent = append(recent, *it)
		}
	}
	return recent, nil
}

// latest are the lines of the latest entries that are not in the block yet,
// not faded, not pinned and not summaries: up to projectLatest of the
// current project's first, then the newest of any, up to maxLatest in all,
// listed newest first.
func (c *blockMaker) latest(ctx context.Context, latest []index.Result, faded map[string]bool, project string) ([]BlockItem, error) {
	pickedNames := map[string]bool{}
	for _, it := range c.b.Items {
		pickedNames[it.Name] = true
	}
	for n := range faded {
		pickedNames[n] = true
	}
	var chosen []int // indexes in latest, which is newest first
	for pass := range 2 {
		for i, r := range latest {
			if len(chosen) == maxLatest || pass == 0 && len(chosen) == projectLatest {
				break
			}
			if pickedNames[r.Name] || r.Pinned || r.Type == summaryType || pass == 0 && !sameProject(project, r.Project) {
				continue
			}
			if r.Type == "log" {
				// The librarian's own log (the questions it could not
				// answer) is for the user to go through, not news.
				e, err := c.read(ctx, r.Name)
				if err != nil {
					return nil, err
				}
				if e == nil || e.Source() == "librarian" {
					continue
				}
			}
			if project != "" && r.Type == episodeType {
				// A day's episode holds every project's sessions of
				// that day: in a project's session, only a day that
				// names the project is of use.
				e, err := c.read(ctx, r.Name)
				if err != nil {
					return nil, err
				}
				if e == nil || !mentionsProject(e.Body(), project) {
					continue
				}
			}
			pickedNames[r.Name] = true
			chosen = append(chosen, i)
		}
	}
	slices.Sort(chosen)
	var lines []BlockItem
	for _, i := range chosen {
		it, err := c.line(ctx, "latest", latest[i], latestLine)
		if err != nil {
			return nil, err
		}
		if it != nil {
			lines = append(lines, *it)
		}
	}
	return lines, nil
}

// fitBudget checks the whole block once more, as the sections are counted
// apart, and drops its last lines while it is over budget.
func (c *blockMaker) fitBudget() {
	for len(c.b.Items) > 0 && Tokens(c.render(c.b.Items)) > c.b.Budget {
		c.b.Omitted = append(c.b.Omitted, c.b.Items[len(c.b.Items)-1].Name)
		c.b.Items = c.b.Items[:len(c.b.Items)-1]
	}
}

// take adds items while their lines fit in budget tokens, clipping the
// text of the one that fits only in part, and returns the tokens they
// take.
func (c *blockMaker) take(items []BlockItem, budget int) int {
	used := 0
	for _, it := range items {
		n := Tokens(formatItem(it))
		full := it.Text
		for room := budget - used - (n - Tokens(full)); used+n > budget && room >= minClip; room -= 2 {
			it.Text = clip(full, room)
			n = Tokens(formatItem(it))
		}
		if used+n > budget || it.Text == "" {
			c.b.Omitted = append(c.b.Omitted, it.Name)
			continue
		}
		used += n
		c.b.Items = append(c.b.Items, it)
	}
	return used
}

// line makes an entry one line of at most limit tokens: its whole body
// when it is short, else its title and the start of its lead paragraph.
func (c *blockMaker) line(ctx context.Context, section string, r index.Result, limit int) (*BlockItem, error) {
	e, err := c.read(ctx, r.Name)
	if err != nil || e == nil {
		return nil, err
	}
	it := c.item(section, r, e)
	if templates.Unfilled(e.Body()) {
		// Still its template's text: it says nothing of the user yet,
		// and is said to be empty rather than shown as known.
		if section != "pinned" {
			return nil, nil
		}
		it.Text = clip(it.Title+": empty, not filled in yet ("+vault.EntryPath(r.Name)+")", limit)
		return &it, nil
	}
	body := oneLine(e.Body())
	text := body
	if it.Title != "" && !strings.HasPrefix(strings.ToLower(body), strings.ToLower(it.Title)) {
		text = it.Title + ": " + body
	}
	if body == "" {
		text = it.Title
	}
	it.Text = clip(text, limit)
	return &it, nil
}

// summary makes a summary entry an item of at most limit tokens.
func (c *blockMaker) summary(ctx context.Context, section string, r index.Result, limit int) (*BlockItem, error) {
	e, err := c.read(ctx, r.Name)
	if err != nil || e == nil || limit < minClip {
		return nil, err
	}
	it := c.item(section, r, e)
	it.Text = clip(strings.TrimSpace(e.Body()), limit)
	return &it, nil
}

// read reads an entry; nil if it is gone or malformed since the index saw
// it.
func (c *blockMaker) read(ctx context.Context, name string) (*entry.Entry, error) {
	doc, err := c.m.Vault.Read(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, vault.ErrNotFound) || errors.Is(err, entry.ErrFrontmatter) || errors.Is(err, entry.ErrTooLarge) {
			return nil, nil
		}
		return nil, fmt.Errorf("context: %w", err)
	}
	return doc.Entry, nil
}

func (c *blockMaker) item(section string, r index.Result, e *entry.Entry) BlockItem {
	it := BlockItem{Section: section, Name: r.Name, Title: e.Title(), Project: e.Project(), Date: vault.Happened(r.Name, e), created: e.Created()}
	if it.Title == "" {
		it.Title = vault.Slug(r.Name)
	}
	return it
}

// oneLine joins a body's lines; a heading ends with a colon, so that it
// still reads as one.
func oneLine(body string) string {
	var parts []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if h := strings.TrimLeft(l, "#"); h != l && strings.HasPrefix(h, " ") {
			l = strings.TrimSpace(h)
			if l != "" && !strings.ContainsRune(".:!?", rune(l[len(l)-1])) {
				l += ":"
			}
		}
		if l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// formatItem is an item as the block prints it: a list line for an entry,
// the text itself for a summary.
func formatItem(it BlockItem) string {
	if it.Section == "context" || it.Section == "recent" {
		return it.Text + "\n"
	}
	date := ""
	if !it.Date.IsZero() {
		date = " [" + it.Date.UTC().Format(time.DateOnly) + "]"
	}
	return fmt.Sprintf("- %s%s (%s)\n", it.Text, date, it.Name)
}

// render prints the block with these items, in section order.
func (c *blockMaker) render(items []BlockItem) string {
	var w strings.Builder
	w.WriteString("<memory>\nYou have persistent memory from previous sessions, kept by ctx0 as a vault of markdown entries")
	if c.b.Project != "" {
		fmt.Fprintf(&w, " (this session's project: %s)", escapeTags(c.b.Project))
	}
	w.WriteString(".\n" + instructions[c.usage])
	if len(items) == 0 {
		w.WriteString("Nothing is saved yet.\n")
	}
	for _, s := range sections {
		first := true
		for _, it := range items {
			if it.Section != s.key {
				continue
			}
			if first {
				fmt.Fprintf(&w, "## %s\n", s.heading)
				first = false
			}
			w.WriteString(escapeTags(formatItem(it)))
		}
	}
	w.WriteString("</memory>\n")
	return w.String()
}

// tagOpen is what starts a tag: "<" and a letter, or "</", "<!", "<?".
var tagOpen = lazy.Regexp(`<([/!?]|[\p{L}])`)

// escapeTags keeps what entries say from reading as markup around them:
// every "<" that would open or close a tag (</memory>, <system>, <!--)
// becomes "‹", so no text inside the block can end it or open another
// tag. A "<" that opens no tag (a < b, <-) stays.
func escapeTags(s string) string {
	return tagOpen().ReplaceAllString(s, "‹$1")
}

// instructions end the block: when to look things up and when to save
// them, in the words of each usage, short enough to be read every session.
var instructions = map[Usage]string{
	UsageCLI: `## Using it
- Before asking the user, look here; for more, run ctx0 retrieve "your question".
- Save what lasts with ctx0 remember "...": what the user asks you to remember, preferences, decisions and why, people, fixes, where things live. One standalone sentence each; nothing transient, obvious or already here.
- If something here is wrong: ctx0 supersede NAME "the correction".
`,
	UsageMCP: `## Using it
- Before asking the user, look here; for more, call the retrieve tool with your question in plain words.
- Save what lasts with the remember tool: what the user asks you to remember, preferences, decisions and why, people, fixes, where things live. One standalone sentence each; nothing transient, obvious or already here.
- If something here is wrong, correct the entry with the memory tool (str_replace in /memories/NAME.md).
`,
}
