package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolArgs is what a tool's arguments may be called, and what kind of JSON
// value each takes, so that the names and shapes models commonly guess can be
// turned into the tool's own before its schema is checked.
type toolArgs struct {
	kinds   map[string]string // argument → string, integer, number, boolean, array, object
	items   map[string]string // array argument → the kind of its items
	aliases map[string]string // guessed name → argument
}

// commonAliases are names models guess for arguments, whatever the tool; an
// alias counts only for a tool that has the argument it stands for.
var commonAliases = map[string]string{
	"q": "query", "query_text": "query", "search": "query", "keywords": "query", "question": "query", "prompt": "query",
	"text": "content", "memory": "content", "fact": "content", "body": "content", "note": "content",
	"folder": "scope", "folders": "scope", "dir": "scope", "directory": "scope", "scopes": "scope",
	"entry": "name", "id": "name", "ref": "name", "key": "name", "title": "name", "query_name": "name",
	"max_results": "limit", "n": "limit", "k": "limit", "top_k": "limit", "count": "limit",
	"max_tokens": "budget", "token_budget": "budget", "tokens": "budget",
	"pinned": "pin", "tag": "tags", "labels": "tags", "linked_to": "links", "link": "links",
	"args": "params", "parameters": "params", "arguments": "params",
	"cmd": "command", "file_path": "path", "filepath": "path", "content_text": "file_text",
	"from": "old_path", "to": "new_path", "source": "old_path", "destination": "new_path",
	"old_string": "old_str", "new_string": "new_str", "line": "insert_line", "range": "view_range",
	"session": "session_id", "transcript": "transcript_path",
	"revision": "at", "rev": "at", "commit": "at",
}

// argsOf reads a tool's arguments from its input schema.
func argsOf(schema *jsonschema.Schema, extra map[string]string) *toolArgs {
	a := &toolArgs{kinds: map[string]string{}, items: map[string]string{}, aliases: map[string]string{}}
	for name, p := range schema.Properties {
		a.kinds[name] = kindOf(p)
		if p.Items != nil {
			a.items[name] = kindOf(p.Items)
		}
	}
	for alias, to := range commonAliases {
		if _, ok := a.kinds[to]; ok {
			if _, own := a.kinds[alias]; !own {
				a.aliases[alias] = to
			}
		}
	}
	for alias, to := range extra {
		a.aliases[alias] = to
	}
	return a
}

func kindOf(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// snake turns insertLine or InsertLine into insert_line.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		} else if r == '-' || r == ' ' {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fix renames guessed arguments to the tool's own, drops nulls, and turns
// values of a near kind into the kind the schema asks for: "5" for 5, "a, b"
// or "a" for ["a", "b"] or ["a"], ["a"] for "a", true for "true". What it
// cannot fix is left for the schema check, whose message names it.
func (a *toolArgs) fix(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	// The tool's own names first, so that an alias never overwrites one.
	for k, v := range args {
		if _, ok := a.kinds[k]; ok && v != nil {
			out[k] = v
		}
	}
	for k, v := range args {
		if _, ok := a.kinds[k]; ok || v == nil {
			continue
		}
		to := k
		if _, ok := a.kinds[to]; !ok {
			to = snake(k)
		}
		if _, ok := a.kinds[to]; !ok {
			if al, ok := a.aliases[to]; ok {
				to = al
			}
		}
		if _, ok := a.kinds[to]; !ok {
			out[k] = v // unknown: the schema check names it
			continue
		}
		if _, taken := out[to]; taken {
			continue
		}
		out[to] = v
	}
	for k, v := range out {
		out[k] = coerce(a.kinds[k], a.items[k], v)
	}
	return out
}

func coerce(kind, items string, v any) any {
	switch kind {
	case "string":
		switch x := v.(type) {
		case json.Number:
			return x.String()
		case bool:
			return strconv.FormatBool(x)
		case []any:
			if len(x) == 1 {
				if s, ok := x[0].(string); ok {
					return s
				}
			}
		}
	case "integer", "number":
		if s, ok := v.(string); ok {
			s = strings.TrimSpace(s)
			if _, err := strconv.ParseFloat(s, 64); err == nil {
				return json.Number(s)
			}
		}
	case "boolean":
		if s, ok := v.(string); ok {
			if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
				return b
			}
		}
	case "array":
		switch x := v.(type) {
		case string:
			s := strings.TrimSpace(x)
			if strings.HasPrefix(s, "[") {
				var list []any
				d := json.NewDecoder(strings.NewReader(s))
				d.UseNumber()
				if d.Decode(&list) == nil {
					return coerceItems(items, list)
				}
			}
			if items == "string" {
				list := []any{}
				for _, p := range strings.Split(s, ",") {
					if p = strings.TrimSpace(p); p != "" {
						list = append(list, p)
					}
				}
				return list
			}
		case []any:
			return coerceItems(items, x)
		default:
			if items != "" {
				return []any{coerce(items, "", v)}
			}
		}
	case "object":
		// A map of strings (learned query parameters): 30 stands for "30".
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				switch y := x.(type) {
				case json.Number:
					m[k] = y.String()
				case bool:
					m[k] = strconv.FormatBool(y)
				}
			}
			return m
		}
	}
	return v
}

func coerceItems(items string, list []any) []any {
	for i, x := range list {
		list[i] = coerce(items, "", x)
	}
	return list
}

// fixArguments is middleware that fixes the arguments of every tool call
// before the SDK checks them against the tool's schema.
func (s *Server) fixArguments(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		call, ok := req.(*sdk.CallToolRequest)
		if !ok || call.Params == nil || len(call.Params.Arguments) == 0 {
			return next(ctx, method, req)
		}
		a := s.tools[call.Params.Name]
		if a == nil {
			return next(ctx, method, req)
		}
		var args map[string]any
		d := json.NewDecoder(bytes.NewReader(call.Params.Arguments))
		d.UseNumber()
		if err := d.Decode(&args); err != nil || args == nil {
			return next(ctx, method, req)
		}
		if data, err := json.Marshal(a.fix(args)); err == nil {
			call.Params.Arguments = data
		}
		return next(ctx, method, req)
	}
}

// recoverTools is middleware that turns a panic in a tool into a tool error:
// one bad call must not end every client's server.
func recoverTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		if method == "tools/call" {
			defer func() {
				if p := recover(); p != nil {
					name := ""
					if call, ok := req.(*sdk.CallToolRequest); ok && call.Params != nil {
						name = call.Params.Name
					}
					r := &sdk.CallToolResult{}
					r.SetError(fmt.Errorf("internal error in ctx0's %s tool (a bug; nothing was lost): %v\n%s", name, p, firstLines(string(debug.Stack()), 12)))
					res, err = r, nil
				}
			}()
		}
		return next(ctx, method, req)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// addTool registers a tool whose input schema comes from In, with extra
// aliases for its arguments, and a hook to adjust the schema (enums).
func addTool[In, Out any](s *Server, t *sdk.Tool, extra map[string]string, adjust func(*jsonschema.Schema), h sdk.ToolHandlerFor[In, Out]) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", t.Name, err))
	}
	if adjust != nil {
		adjust(schema)
	}
	t.InputSchema = schema
	s.tools[t.Name] = argsOf(schema, extra)
	sdk.AddTool(s.sdk, t, h)
}
