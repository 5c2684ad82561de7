package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/redact"
)

// redactAnswers is middleware that passes every text a tool, a prompt or
// a resource answers through the one redactor: an answer goes to a model, and the
// vault can hold a secret ctx0 never wrote (a file a person committed by
// hand, a session transcript stored before a rule existed).
func redactAnswers(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		switch r := res.(type) {
		case *sdk.CallToolResult:
			if r != nil {
				redactContent(r.Content)
			}
		case *sdk.GetPromptResult:
			if r != nil {
				for _, m := range r.Messages {
					redactContent([]sdk.Content{m.Content})
				}
			}
		case *sdk.ReadResourceResult:
			if r != nil {
				for _, c := range r.Contents {
					if c != nil {
						c.Text = redact.String(c.Text)
					}
				}
			}
		}
		return res, err
	}
}

func redactContent(cs []sdk.Content) {
	for _, c := range cs {
		if t, ok := c.(*sdk.TextContent); ok {
			t.Text = redact.String(t.Text)
		}
	}
}
