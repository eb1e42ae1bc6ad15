package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Limits bound what a public request may carry. They are checked once, before any
// handler or the gateway sees the request, so no service stores a megabyte string or
// hands PostgreSQL a NUL byte (which it refuses with an error that would surface as a 500).
type Limits struct {
	// MaxBodyBytes: a larger body is refused with 413.
	MaxBodyBytes int64
	// MaxFieldChars: the longest string (in characters) a JSON body, form or query
	// parameter may carry in any field; longer is 400 naming the field.
	MaxFieldChars int
	// Fields overrides MaxFieldChars for fields of that name (the last element of the
	// field's path), e.g. {"username": 320}.
	Fields map[string]int
	// MaxDepth: a JSON body nested deeper (arrays and objects) is refused with 400.
	MaxDepth int
	// MaxTokens: a JSON body of more values, keys and brackets is refused with 400.
	MaxTokens int
}

// DefaultLimits: 256 KiB bodies, 2,000 characters per field, 320 for e-mail addresses
// (RFC 5321's 64 + 1 + 255) and 1,024 for passwords; JSON nested at most 64 deep (the
// deepest request of the API is under 10) and at most 20,000 tokens (a full cart is a few
// hundred).
var DefaultLimits = Limits{
	MaxBodyBytes:  256 << 10,
	MaxFieldChars: 2000,
	MaxDepth:      64,
	MaxTokens:     20_000,
	Fields: map[string]int{
		"username": 320, "email": 320, "password": 1024, "confirmPassword": 1024, "verifyPassword": 1024,
	},
}

func (l Limits) limitFor(field string) int {
	name := field
	if i := strings.LastIndexAny(name, ".]"); i >= 0 {
		name = name[i+1:]
	}
	if n, ok := l.Fields[name]; ok {
		return n
	}
	return l.MaxFieldChars
}

// guard refuses bad bytes and sizes with a client error naming the field: the path, every
// query parameter and every string (keys included) of a JSON or form body must be valid
// UTF-8 without NUL and within the field limit; the body within MaxBodyBytes; a JSON body
// must be well-formed. What passes is handed on unchanged (the body re-readable).
func guard(l Limits, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch err := checkText("path", r.URL.Path, 8192); {
		case err != nil && utf8.RuneCountInString(r.URL.Path) > 8192:
			WriteError(w, err)
			return
		case err != nil:
			// Bad bytes in the path: the route knows which parameter holds them, so the
			// refusal is left to it (gateway middleware, Handle wrapper, routing error),
			// which names the parameter. Nothing downstream acts on a marked request.
			r = r.WithContext(context.WithValue(r.Context(), badPathKey{}, true))
		}
		if r.URL.RawQuery != "" {
			q, err := url.ParseQuery(r.URL.RawQuery)
			if err != nil {
				WriteError(w, errs.Field("query", "The query string is not valid."))
				return
			}
			if err := checkValues(l, q); err != nil {
				WriteError(w, err)
				return
			}
		}
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > l.MaxBodyBytes {
			writeTooLarge(w, l)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, l.MaxBodyBytes))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeTooLarge(w, l)
			return
		case err != nil:
			WriteError(w, errs.Field("body", "The request body could not be read."))
			return
		}
		if err := checkBody(l, r.Header.Get("Content-Type"), body); err != nil {
			WriteError(w, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

type badPathKey struct{}

// hasBadPath reports whether guard found bad bytes in the request's path.
func hasBadPath(r *http.Request) bool { return r.Context().Value(badPathKey{}) != nil }

// badPathError names the path parameter holding bad bytes (its JSON name, as the client's
// API documentation calls it, e.g. ownerAccountId), or "path" when the bad bytes are in no
// parameter (a literal segment of a path no route serves).
func badPathError(params map[string]string) error {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		name := jsonFieldName(k)
		if err := checkText(name, params[k], 0); err != nil {
			return err
		}
	}
	return errs.Field("path", "The path contains bytes that are not valid UTF-8 text or a NUL character.")
}

// jsonFieldName answers protojson's name of a proto field path: lowerCamelCase per
// element ("owner_account_id" is "ownerAccountId", "a.b_c" is "a.bC").
func jsonFieldName(protoPath string) string {
	parts := strings.Split(protoPath, ".")
	for i, p := range parts {
		var b strings.Builder
		up := false
		for _, c := range p {
			switch {
			case c == '_':
				up = true
			case up:
				b.WriteString(strings.ToUpper(string(c)))
				up = false
			default:
				b.WriteRune(c)
			}
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, ".")
}

// reWildcard finds the wildcards of a net/http ServeMux pattern ("{id}", "{rest...}").
var reWildcard = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)(?:\.\.\.)?\}`)

// refuseBadPath wraps a Handle route: a path guard marked is refused naming the wildcard
// that holds the bad bytes.
func refuseBadPath(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hasBadPath(r) {
			h.ServeHTTP(w, r)
			return
		}
		params := map[string]string{}
		for _, m := range reWildcard.FindAllStringSubmatch(r.Pattern, -1) {
			params[m[1]] = r.PathValue(m[1])
		}
		WriteError(w, badPathError(params))
	})
}

func writeTooLarge(w http.ResponseWriter, l Limits) {
	w.Header().Set("Connection", "close")
	WriteError(w, &errs.Error{Code: errs.TooLarge, Message: fmt.Sprintf("The request body is too large (at most %d KiB).", l.MaxBodyBytes>>10),
		Fields: []errs.FieldError{{Field: "body", Message: fmt.Sprintf("The request body is too large (at most %d KiB).", l.MaxBodyBytes>>10)}}})
}

// checkText answers a field error when s is not acceptable text for field.
func checkText(field, s string, limit int) error {
	if p := textProblem(s, limit); p != "" {
		return textError(field, p, limit)
	}
	return nil
}

// textProblem says what is wrong with s as text ("" when nothing is), without a field name,
// so the JSON walk names the field only when there is something to report.
func textProblem(s string, limit int) string {
	switch {
	case !utf8.ValidString(s):
		return "utf8"
	case strings.IndexByte(s, 0) >= 0:
		return "nul"
	case limit > 0 && utf8.RuneCountInString(s) > limit:
		return "long"
	}
	return ""
}

func textError(field, problem string, limit int) error {
	switch problem {
	case "utf8":
		return errs.Field(field, fmt.Sprintf("%s contains bytes that are not valid UTF-8 text.", field))
	case "nul":
		return errs.Field(field, fmt.Sprintf("%s contains a NUL character.", field))
	}
	return errs.Field(field, fmt.Sprintf("%s is too long (at most %d characters).", field, limit))
}

// safeName answers a field name fit to show: a name that is itself bad is "query"/"body".
func safeName(name, fallback string) string {
	if name == "" || len(name) > 100 || checkText("", name, 0) != nil {
		return fallback
	}
	return name
}

func checkValues(l Limits, vals url.Values) error {
	for k, vs := range vals {
		name := safeName(k, "query")
		if name == "query" && k != "query" {
			return errs.Field("query", "A query parameter name is not valid text.")
		}
		for _, v := range vs {
			if err := checkText(name, v, l.limitFor(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkBody(l Limits, contentType string, body []byte) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/x-www-form-urlencoded" && trimmed[0] != '{':
		if !utf8.Valid(body) {
			return errs.Field("body", "The form contains bytes that are not valid UTF-8 text.")
		}
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return errs.Field("body", "The form is not valid.")
		}
		return checkValues(l, vals)
	case mt == "" || mt == "application/json" || strings.HasSuffix(mt, "+json") || trimmed[0] == '{' || trimmed[0] == '[':
		return checkJSON(l, body)
	}
	return nil // other media (the hosted fields' own posts) are their handler's business
}

// jsonFrame is an open array or object of the JSON walk: what names the value being read.
type jsonFrame struct {
	array bool
	key   string // the current key of an object
	index int    // the current index of an array
}

// jsonPath names the value being read ("a.b[2].c"; "body" outside any container). It is
// built only to report a problem: building it per token made the walk quadratic in depth.
func jsonPath(stack []jsonFrame) string {
	if len(stack) == 0 {
		return "body"
	}
	var b strings.Builder
	for _, f := range stack {
		if f.array {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f.key)
	}
	return b.String()
}

// checkJSON walks a JSON body token by token, naming the field of the first bad string.
// encoding/json replaces invalid UTF-8 silently, so the raw bytes are checked first and
// the offending offset is mapped to the field being read there. Its cost is linear in the
// body: the depth and the token count are capped, and a field's path is built only to
// report it.
func checkJSON(l Limits, body []byte) error {
	badAt := -1
	if !utf8.Valid(body) {
		badAt = firstInvalid(body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []jsonFrame
	name := func() string { return safeName(jsonPath(stack), "body") }
	expectKey := false
	for tokens := 1; ; tokens++ {
		if l.MaxTokens > 0 && tokens > l.MaxTokens {
			return errs.Field("body", fmt.Sprintf("The request body has too many values (at most %d).", l.MaxTokens))
		}
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if badAt >= 0 {
				f := name()
				return errs.Field(f, fmt.Sprintf("%s contains bytes that are not valid UTF-8 text.", f))
			}
			return errs.Field("body", "The request body is not valid JSON.")
		}
		end := dec.InputOffset()
		if badAt >= 0 && int64(badAt) >= start && int64(badAt) < end {
			f := name()
			if expectKey { // the bad bytes are in a key: there is no field name to show
				f = "body"
			}
			return errs.Field(f, fmt.Sprintf("%s contains bytes that are not valid UTF-8 text.", f))
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if l.MaxDepth > 0 && len(stack) >= l.MaxDepth {
					return errs.Field("body", fmt.Sprintf("The request body is nested too deeply (at most %d levels).", l.MaxDepth))
				}
				stack = append(stack, jsonFrame{array: t == '['})
				expectKey = t == '{'
				continue
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if expectKey {
				stack[len(stack)-1].key = t
				if p := textProblem(t, 200); p != "" {
					return textError(name(), p, 200)
				}
				expectKey = false
				continue
			}
			// The limit goes by the field's own name (the last element of its path).
			field := ""
			if n := len(stack); n > 0 && !stack[n-1].array {
				field = stack[n-1].key
			}
			limit := l.limitFor(field)
			if p := textProblem(t, limit); p != "" {
				return textError(name(), p, limit)
			}
		case json.Number:
			if len(t) > 40 {
				f := name()
				return errs.Field(f, fmt.Sprintf("%s is not a valid number.", f))
			}
		}
		// A value ended: the next token of an object is a key, of an array the next element
		// (also after an empty object closed: `[{}, "x"]` holds no key "x", `{}""` none at all).
		expectKey = false
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.array {
				top.index++
			} else {
				expectKey = true
			}
		}
	}
	if badAt >= 0 {
		return errs.Field("body", "The request body contains bytes that are not valid UTF-8 text.")
	}
	return nil
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}
