package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

// printer prints what a command found or did. A command hands it its
// result together with the function that prints that result for people;
// the printer, chosen once from --json, decides which form goes out, so no
// command body asks.
type printer interface {
	// result prints a command's one result: v as indented JSON on stdout,
	// or whatever text prints.
	result(v any, text func() error) error
	// event prints one result of a stream that goes on (a watch): v as a
	// line of JSON on stdout, or whatever text prints.
	event(v any, text func() error) error
	// progress prints what a person sees while the work goes on, such as
	// each item as it is done; for programs the result holds it, so the
	// JSON printer prints nothing.
	progress(text func() error) error
}

// textPrinter prints for people: the command's own text.
type textPrinter struct{}

func (textPrinter) result(_ any, text func() error) error { return text() }
func (textPrinter) event(_ any, text func() error) error  { return text() }
func (textPrinter) progress(text func() error) error      { return text() }

// jsonPrinter prints for programs: the result itself, as JSON, and no text.
type jsonPrinter struct{ w io.Writer }

func (p jsonPrinter) result(v any, _ func() error) error {
	enc := json.NewEncoder(p.w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (p jsonPrinter) event(v any, _ func() error) error {
	enc := json.NewEncoder(p.w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (jsonPrinter) progress(func() error) error { return nil }

var (
	_ printer = textPrinter{}
	_ printer = jsonPrinter{}
)

// jsonFlag adds --json to cmd: it chooses the printer for the whole run.
// Only one command runs per process, so every command shares the one
// setting.
func (a *app) jsonFlag(cmd *cobra.Command, usage string) {
	cmd.Flags().BoolVar(&a.json, "json", false, usage)
}

// out is the printer --json chose.
func (a *app) out() printer {
	if a.json {
		return jsonPrinter{a.stdout}
	}
	return textPrinter{}
}

// listed prints a listing command's result, the one rule for every
// listing: under --json the list (an empty array when nothing was found);
// for people the rows, or, when there are none, one line on stderr saying
// so and what to do if there is something to do, so that no listing ends
// in silence.
func (a *app) listed(v any, n int, none string, rows func() error) error {
	return a.out().result(v, func() error {
		if n == 0 {
			a.note("%s", none)
			return nil
		}
		return rows()
	})
}

// failure is an error as it is printed under --json: one JSON object on
// stderr, with the message as the text form prints it and the exit code.
type failure struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
}

// printError prints the message of a failed command on stderr: the line
// "ctx0: msg", or with asJSON the object {"error":"ctx0: msg","code":code}.
func printError(w io.Writer, msg string, code int, asJSON bool) {
	if !asJSON {
		io.WriteString(w, msg+"\n")
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(failure{Error: msg, Code: code})
}

// wantsJSON reports whether the command line asked command c for JSON: c's
// --json flag is set, or, when parsing its flags failed before reaching
// --json, the word is among args before "--".
func wantsJSON(c *cobra.Command, args []string) bool {
	f := c.Flags().Lookup("json")
	if f == nil {
		return false
	}
	if f.Changed {
		return f.Value.String() == "true"
	}
	for _, s := range args {
		switch s {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}
