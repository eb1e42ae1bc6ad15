package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hangar/hangar/internal/platform/errs"
)

// fuzzLimits are small, so random bodies reach the depth and token caps often.
var fuzzLimits = Limits{MaxBodyBytes: 1 << 20, MaxFieldChars: 50, Fields: map[string]int{"username": 10}, MaxDepth: 8, MaxTokens: 64}

// FuzzGuardJSON runs bodies through the guard's JSON walk. Whatever the bytes, it answers
// nil or a 400 naming a field in plain words; what it lets through is well-formed JSON of
// valid UTF-8 within the depth and token caps. `go test` runs the seeds below and the
// committed corpus (testdata/fuzz/FuzzGuardJSON); fuzzing itself is manual:
// go test -fuzz FuzzGuardJSON ./internal/platform/server
func FuzzGuardJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `"x"`, `1`, `null`, `{"a":[1,{"b":"c"}]}`, `{"username":"01234567890"}`,
		strings.Repeat("[", 8) + strings.Repeat("]", 8), strings.Repeat("[", 9) + strings.Repeat("]", 9),
		strings.Repeat(`{"a":`, 9) + "1" + strings.Repeat("}", 9), strings.Repeat("[", 1000),
		"[" + strings.Repeat("1,", 70) + "1]", "{\"\xff\":1}", "{\"a\":\"\xff\"}", `{"a":"\u0000"}`,
		`{"a":1e999999999999999999999999999999999999999999}`, `{"a":`, `]`, `{"a":1}}`, `[1] [2]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		err := checkJSON(fuzzLimits, body)
		if err != nil {
			st := errs.ToStatus(err)
			b := errs.BodyOf(st)
			if errs.HTTPStatus(errs.FromStatus(st).Code) != 400 || len(b.FieldErrors) == 0 || b.FieldErrors[0].Field == "" {
				t.Fatalf("%q: %v; want a 400 naming a field", body, err)
			}
			for _, leak := range []string{"invalid character", "syntax error", "unexpected", "json:"} {
				if strings.Contains(b.Message, leak) {
					t.Fatalf("%q: message shows parser words: %q", body, b.Message)
				}
			}
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("%q passed with invalid UTF-8", body)
		}
		if depth, tokens, ok := measure(body); !ok || depth > fuzzLimits.MaxDepth || tokens > fuzzLimits.MaxTokens {
			t.Fatalf("%q passed: well-formed %v, depth %d, %d tokens", body, ok, depth, tokens)
		}
	})
}

// measure is the reference the guard is checked against: whether body is a stream of
// well-formed JSON values, its depth and its token count, by encoding/json alone.
func measure(body []byte) (depth, tokens int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // a number's range is the gateway's business, not well-formedness
	d := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return depth, tokens, errors.Is(err, io.EOF)
		}
		tokens++
		if delim, isDelim := tok.(json.Delim); isDelim {
			if delim == '{' || delim == '[' {
				d++
				depth = max(depth, d)
			} else {
				d--
			}
		}
	}
}

// BenchmarkGuardJSON shows the guard's cost linear in the body: the ns/byte of each shape
// stays flat from 1x to 100x its size (deep nesting grew with the square of the depth).
func BenchmarkGuardJSON(b *testing.B) {
	l := DefaultLimits
	l.MaxTokens = 1 << 30 // the cap would cut the larger sizes short
	shapes := map[string]func(n int) string{
		// The deepest the guard lets through, repeated side by side.
		"nested": func(n int) string {
			one := strings.Repeat(`{"a":[`, 31) + `"x"` + strings.Repeat("]}", 31)
			return "[" + strings.TrimSuffix(strings.Repeat(one+",", n), ",") + "]"
		},
		"flat": func(n int) string {
			return `{"items":[` + strings.TrimSuffix(strings.Repeat(`{"name":"pilot","quantity":12},`, 10*n), ",") + "]}"
		},
	}
	for _, name := range []string{"nested", "flat"} {
		for _, n := range []int{1, 10, 100} {
			body := []byte(shapes[name](n))
			if err := checkJSON(l, body); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%dx", name, n), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					_ = checkJSON(l, body)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(body)), "ns/byte")
			})
		}
	}
}
