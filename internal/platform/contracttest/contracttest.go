// Package contracttest holds the published OpenAPI 3 documents (gen/openapi3) to the wire:
// every request a test sends to a service's public HTTP port and every answer it gets are
// validated with kin-openapi's openapi3filter, and a test package whose exchanges break the
// documents fails. A service's app tests opt in with
//
//	func TestMain(m *testing.M) { os.Exit(contracttest.Main(m)) }
//
// The rules: a route the documents do not name may only answer the error object with 404 or
// 405; a request the documents refuse may only be refused (4xx, any documented answer); every
// answer matches the documented answer of its status (the error object for every status the
// route does not name).
package contracttest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/hangar/hangar/internal/platform/server"
)

// ErrorSchema names the error object in every document.
const ErrorSchema = "hangarError"

// Validator checks exchanges against the documents and keeps what broke them.
type Validator struct {
	routers []routers.Router
	errObj  *openapi3.Schema

	mu         sync.Mutex
	checked    int
	violations []string
}

// Dir answers the directory of the committed OpenAPI 3 documents.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "gen", "openapi3")
}

// Load reads every *.openapi.json under dir; each must be a valid OpenAPI 3 document.
func Load(dir string) (*Validator, error) {
	// The card images are documented as SVG text. kin-openapi keeps its body decoders in
	// one table of its own (locked); registering the same decoder again changes nothing.
	openapi3filter.RegisterBodyDecoder("image/svg+xml", openapi3filter.PlainBodyDecoder)
	v := &Validator{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".openapi.json") {
			return err
		}
		doc, err := openapi3.NewLoader().LoadFromFile(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		r, err := legacy.NewRouter(doc)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		v.routers = append(v.routers, r)
		if s := doc.Components.Schemas[ErrorSchema]; s != nil && v.errObj == nil {
			v.errObj = s.Value
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(v.routers) == 0 || v.errObj == nil {
		return nil, fmt.Errorf("no OpenAPI 3 document with the %s schema under %s", ErrorSchema, dir)
	}
	return v, nil
}

// Exchange is one request and its answer as the client saw them.
type Exchange struct {
	Request     *http.Request // its Body is not read; RequestBody is
	RequestBody []byte
	Status      int
	Header      http.Header
	Body        []byte
}

// Check answers what in x breaks the documents (nil when nothing does) and counts x.
func (v *Validator) Check(x Exchange) error {
	err := v.check(x)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.checked++
	if err != nil {
		v.violations = append(v.violations, fmt.Sprintf("%s %s -> %d: %v\n    answer: %s", x.Request.Method, x.Request.URL.RequestURI(), x.Status, err, clip(x.Body)))
	}
	return err
}

func (v *Validator) check(x Exchange) error {
	ctx := context.Background()
	if err := decode(&x); err != nil {
		return err
	}
	req := x.Request.Clone(ctx)
	req.Body = io.NopCloser(bytes.NewReader(x.RequestBody))
	route, params, err := v.find(req)
	if err != nil {
		// Not a documented operation: only the error object's 404 or 405 may answer it.
		if x.Status != http.StatusNotFound && x.Status != http.StatusMethodNotAllowed {
			return fmt.Errorf("no documented operation (%v), yet answered %d", err, x.Status)
		}
		return v.errorObject(x)
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	// A refused request may break the documents (that is what the tests of refusals send).
	if x.Status < 400 {
		if rerr := openapi3filter.ValidateRequest(ctx, in); rerr != nil {
			return fmt.Errorf("answered %d to a request the documents refuse: %v", x.Status, rerr)
		}
	}
	if x.Status == http.StatusMethodNotAllowed {
		return v.errorObject(x)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: x.Status, Header: x.Header, Options: opts}
	out.SetBodyBytes(x.Body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("answer not as documented: %v", err)
	}
	return nil
}

func (v *Validator) find(req *http.Request) (*routers.Route, map[string]string, error) {
	var first error
	for _, r := range v.routers {
		route, params, err := r.FindRoute(req)
		if err == nil {
			return route, params, nil
		}
		// A path one document has with another method wins over "no such path".
		if first == nil || errors.Is(err, routers.ErrMethodNotAllowed) {
			first = err
		}
	}
	return nil, nil, first
}

// errorObject checks that x answers the documented error object.
func (v *Validator) errorObject(x Exchange) error {
	if ct := x.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("error answer with Content-Type %q, want application/json", ct)
	}
	var body any
	if err := json.Unmarshal(x.Body, &body); err != nil {
		return fmt.Errorf("error answer is not JSON: %v", err)
	}
	if err := v.errObj.VisitJSON(body, openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("error answer is not the documented %s: %v", ErrorSchema, err)
	}
	return nil
}

// decode undoes the answer's Content-Encoding: the documents describe the representation.
func decode(x *Exchange) error {
	switch enc := x.Header.Get("Content-Encoding"); enc {
	case "", "identity":
		return nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(x.Body))
		if err != nil {
			return fmt.Errorf("Content-Encoding gzip, yet %v", err)
		}
		if x.Body, err = io.ReadAll(zr); err != nil {
			return fmt.Errorf("Content-Encoding gzip, yet %v", err)
		}
		return nil
	default:
		return fmt.Errorf("Content-Encoding %q not understood by the contract test", enc)
	}
}

// Violations answers what broke the documents so far, in order.
func (v *Validator) Violations() (checked int, violations []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.checked, append([]string(nil), v.violations...)
}

// Middleware records each exchange through next and checks it once the answer is written.
func (v *Validator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_ = r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		seen := r.Clone(r.Context())
		rec := server.NewAnswerRecorder(w)
		next.ServeHTTP(rec, r)
		_ = v.Check(Exchange{Request: seen, RequestBody: body, Status: rec.Status(), Header: w.Header().Clone(), Body: rec.Body()})
	})
}

// Main runs a test package with every service it starts checked against the documents: it
// fails the package when any exchange broke them, listing each.
func Main(m *testing.M) int {
	v, err := Load(Dir())
	if err != nil {
		fmt.Fprintln(os.Stderr, "contracttest:", err)
		return 1
	}
	server.ObserveHTTP(v.Middleware)
	code := m.Run()
	checked, bad := v.Violations()
	if len(bad) > 0 {
		sort.Strings(bad)
		fmt.Fprintf(os.Stderr, "contracttest: %d of %d exchanges break the OpenAPI documents (gen/openapi3; proto/openapi.contract.json):\n  %s\n", len(bad), checked, strings.Join(bad, "\n  "))
		return 1
	}
	if testing.Verbose() {
		fmt.Printf("contracttest: %d exchanges match the OpenAPI documents\n", checked)
	}
	return code
}

func clip(b []byte) string {
	const max = 400
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
