package llm

import "strings"

// price is US dollars per million tokens.
type price struct{ in, out float64 }

// prices are the list prices of a few current models, per million input
// and output tokens, as published when this was written. They are
// approximate: they ignore prompt caching, batch discounts and later price
// changes, and are meant for "about how much did runs cost", not billing.
var prices = map[string]price{
	"claude-opus-4-5":   {5, 25},
	"claude-opus-4-1":   {15, 75},
	"claude-opus-4":     {15, 75},
	"claude-sonnet-4-5": {3, 15},
	"claude-sonnet-4":   {3, 15},
	"claude-haiku-4-5":  {1, 5},
	"claude-3-5-haiku":  {0.80, 4},
	"gpt-5":             {1.25, 10},
	"gpt-5-mini":        {0.25, 2},
	"gpt-5-nano":        {0.05, 0.40},
	"gpt-4.1":           {2, 8},
	"gpt-4.1-mini":      {0.40, 1.60},
	"gpt-4.1-nano":      {0.10, 0.40},
	"gpt-4o":            {2.50, 10},
	"gpt-4o-mini":       {0.15, 0.60},
	"o4-mini":           {1.10, 4.40},
}

// costUSD is the approximate price of a completion by model, 0 when the
// model is not in the table. A model matches the longest name that is the
// whole of it or a prefix ending before a '-' (so "claude-sonnet-4-5-20250929"
// is "claude-sonnet-4-5" and "gpt-4o-mini-2024-07-18" is "gpt-4o-mini").
func costUSD(model string, inputTokens, outputTokens int) float64 {
	best := ""
	for name := range prices {
		if len(name) > len(best) && (model == name || strings.HasPrefix(model, name+"-")) {
			best = name
		}
	}
	if best == "" {
		return 0
	}
	p := prices[best]
	return (float64(inputTokens)*p.in + float64(outputTokens)*p.out) / 1e6
}

// usage is a completion's usage, priced when the model is known.
func usage(model string, inputTokens, outputTokens int) Usage {
	return Usage{InputTokens: inputTokens, OutputTokens: outputTokens, CostUSD: costUSD(model, inputTokens, outputTokens)}
}
