// Package mcp serves a ctx0 vault over the Model Context Protocol, so that
// an agent that knows nothing of ctx0 gets a memory: tools to remember,
// search, retrieve, show and archive, the memory tool whose commands
// Anthropic's models are trained on, mapped onto the vault, and the entries
// as resources. It is an adapter: every tool translates its arguments into
// one call of the vault, the index, the extractor or the ingest state, and
// the result into text an agent reads.
package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// Options say what a server serves and how.
type Options struct {
	// Memory is what the tools read and write: the vault, its index (the
	// vault's catalog, kept fresh by its own checks or a watcher), the
	// past sessions, the model and the embeddings endpoint, and the
	// clock (nil: time.Now). The CLI's commands read the same one.
	Memory extractor.Memory
	// Budgets are the extractor's defaults from the vault's config.
	Budgets extractor.ExtractorConfig
	// Project is the project the client works on (the git remote of the
	// folder the server was started in): its entries rank higher.
	Project string
	// Version is ctx0's version, reported to clients.
	Version string
	// RememberRate limits remember in the vault, whatever the session or
	// process; zero: the vault's remember.per_vault_per_minute.
	RememberRate Rate
	// RememberClientRate limits remember by one client session; zero: the
	// vault's remember.per_client_per_minute.
	RememberClientRate Rate
	// WriteRate limits the memory tool's writes in the vault; zero:
	// DefaultWriteRate.
	WriteRate Rate
	// MemoryMaxChars is the longest file the memory tool writes; 0:
	// DefaultMemoryMaxChars.
	MemoryMaxChars int
	// Archive queues the client's current session for the librarian
	// (archive_now); nil: the tool says it cannot.
	Archive Archiver
	// Logger hears of the server's activity; nil logs nothing.
	Logger *slog.Logger
}

// Archiver hands the current session to the librarian.
type Archiver interface {
	// Archive ingests the session req names (or the newest one of the
	// client's folder) and queues its conversations, finishing the active
	// one. It returns what it did, for the agent to read.
	Archive(ctx context.Context, req ArchiveRequest) (ArchiveResult, error)
}

// DefaultMemoryMaxChars is the longest file the memory tool writes: ten
// remembered facts' worth, so that a file the agent views stays cheap.
const DefaultMemoryMaxChars = 20000

// Server is ctx0's MCP server. One Server serves any number of client
// sessions at once.
type Server struct {
	opts     Options
	sdk      *sdk.Server
	remember *limiter       // per vault
	client   *clientLimiter // remember per client session
	writes   *limiter
	tools    map[string]*toolArgs // per tool: argument names, aliases and kinds
}

// New returns a server for the vault in o.
func New(o Options) *Server {
	if o.Memory.Now == nil {
		o.Memory.Now = time.Now
	}
	rc := o.Memory.Vault.Config().Remember
	if o.RememberRate.N == 0 {
		o.RememberRate = Rate{N: rc.PerVaultPerMinute, Per: time.Minute}
	}
	if o.RememberClientRate.N == 0 {
		o.RememberClientRate = Rate{N: rc.PerClientPerMinute, Per: time.Minute}
	}
	if o.WriteRate.N == 0 {
		o.WriteRate = DefaultWriteRate
	}
	if o.MemoryMaxChars == 0 {
		o.MemoryMaxChars = DefaultMemoryMaxChars
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &Server{
		opts:     o,
		remember: newLimiter("remember", o.RememberRate, o.Memory.Vault.Root(), o.Memory.Now),
		client:   newClientLimiter(o.RememberClientRate, "remember.per_client_per_minute", o.Memory.Now),
		writes:   newLimiter("memory writes", o.WriteRate, o.Memory.Vault.Root(), o.Memory.Now),
		tools:    map[string]*toolArgs{},
	}
	s.remember.setting = "remember.per_vault_per_minute"
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "ctx0", Title: "ctx0 memory", Version: o.Version}, &sdk.ServerOptions{
		Instructions: instructionsFor(o.Memory.Vault.Config()),
		Logger:       o.Logger,
	})
	s.sdk.AddReceivingMiddleware(redactAnswers, s.fixArguments, recoverTools, s.listEntries)
	s.addTools()
	s.addResources()
	s.addPrompts()
	return s
}

// SDK is the server as the MCP SDK knows it, to connect to any transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Run serves one client over t (such as &sdk.StdioTransport{}) until it
// disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.sdk.Run(ctx, t)
}

// instructionsFor is what goes into the client's system prompt: when to
// retrieve and when to remember, in the names of the tools here, with the
// vault's own limit.
func instructionsFor(cfg vault.Config) string {
	return fmt.Sprintf(instructions, cfg.Remember.MaxChars)
}

// instructions is instructionsFor's text; %d is the remember limit.
const instructions = `ctx0 is your long-term memory: a vault of short markdown entries that persists across sessions and agents.
Retrieve before assuming: when a task starts, a person or project is named, or a decision is to be made, call retrieve (a question in plain words) or search (keywords), then show only the entries you need.
Remember proactively but selectively: when the user shares a fact or preference, a decision is made (with its why), or you learn something surprising, call remember with one clear, standalone fact (under %d characters). Not for transient steps, what the code already says, or what any model knows.
Use query for the vault's learned queries, context for the session-start summary, archive_now when a task is done or the user asks to save progress.
The memory tool (view, create, str_replace, insert, delete, rename under /memories) works on the same vault as files.`

// entryURI is the resource address of an entry.
func entryURI(name string) string {
	return "ctx0://entry/" + name
}

// entryOfURI is the entry name a resource address names.
func entryOfURI(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "ctx0://entry/")
	if !ok || rest == "" {
		return "", false
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		return "", false
	}
	return name, true
}

func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "entry",
		Title:       "A vault entry",
		Description: "An entry of the ctx0 vault by name (contacts/sarah-chen), unique slug, title or alias: its frontmatter and body.",
		MIMEType:    "text/markdown",
		URITemplate: "ctx0://entry/{+name}",
	}, s.readEntry)
	s.sdk.AddResource(&sdk.Resource{
		Name:        "context",
		Title:       "Session-start memory",
		Description: "The <memory> block a session starts with: pinned entries and the latest ones, within a small token budget.",
		MIMEType:    "text/plain",
		URI:         "ctx0://context",
	}, s.readContext)
}

func (s *Server) readEntry(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := entryOfURI(uri)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	d, err := s.opts.Memory.Vault.Get(ctx, name)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{
		URI: entryURI(d.Name), MIMEType: "text/markdown", Text: string(d.Entry.Bytes()),
	}}}, nil
}

func (s *Server) readContext(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	b, err := extractor.Context(ctx, s.memory(), extractor.ContextOptions{Project: s.opts.Project, Budget: s.opts.Budgets.ContextBudget, Usage: extractor.UsageMCP})
	if err != nil {
		return nil, fmt.Errorf("context block: %w", err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: b.Text}}}, nil
}

// memory is what the extractor reads.
func (s *Server) memory() extractor.Memory {
	return s.opts.Memory
}

// listedEntries is how many entries resources/list offers besides the
// pinned ones: the most recently changed. Every entry is readable through
// the template ctx0://entry/{+name}; the list is for people to pick from
// (an @-mention in Claude Code), not a dump of the vault.
const listedEntries = 100

// listEntries is middleware that adds the pinned and the latest entries to
// resources/list, which the SDK answers with the static resources only.
func (s *Server) listEntries(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*sdk.ListResourcesResult)
		if err != nil || method != "resources/list" || !ok || list.NextCursor != "" || s.opts.Memory.Index == nil {
			return res, err
		}
		if p, ok := req.GetParams().(*sdk.ListResourcesParams); ok && p != nil && p.Cursor != "" {
			return res, err // a later page of static resources: the entries came with the first
		}
		seen := map[string]bool{}
		for _, l := range []index.Listing{{Pinned: true, Limit: listedEntries}, {Limit: listedEntries}} {
			rs, err := s.opts.Memory.Index.Latest(ctx, l)
			if err != nil {
				return nil, fmt.Errorf("list entries: %w", err)
			}
			for _, r := range rs {
				if seen[r.Name] {
					continue
				}
				seen[r.Name] = true
				list.Resources = append(list.Resources, &sdk.Resource{
					URI: entryURI(r.Name), Name: r.Name, Title: r.Title, MIMEType: "text/markdown",
					Description: strings.TrimSpace(r.Type + " entry"),
				})
			}
		}
		return list, nil
	}
}

// addPrompts offers the server's instructions with the session's memory as a
// prompt: Claude Code shows it as the command /mcp__ctx0__memory, for
// clients that do not pass the server's instructions to the model.
func (s *Server) addPrompts() {
	s.sdk.AddPrompt(&sdk.Prompt{
		Name:        "memory",
		Title:       "Use ctx0 memory",
		Description: "How and when to use ctx0's memory tools, with the <memory> block of pinned and latest entries.",
		Arguments:   []*sdk.PromptArgument{{Name: "project", Description: "the project worked on (default: the server's)"}},
	}, func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		project := s.opts.Project
		if p := req.Params.Arguments["project"]; p != "" {
			project = p
		}
		b, err := extractor.Context(ctx, s.memory(), extractor.ContextOptions{Project: project, Budget: s.opts.Budgets.ContextBudget, Usage: extractor.UsageMCP})
		if err != nil {
			return nil, fmt.Errorf("context block: %w", err)
		}
		return &sdk.GetPromptResult{
			Description: "ctx0 memory: how to use it, and what it holds now",
			Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{
				Text: "## Memory (ctx0)\n\n" + instructionsFor(s.opts.Memory.Vault.Config()) + "\n\n" + b.Text,
			}}},
		}, nil
	})
}
