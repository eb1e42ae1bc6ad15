package ports

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/encoding/protojson"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
	iapp "github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Paths served directly over HTTP. The store's origin (the main HTTP listener) serves the
// card images and the reader simulator; the hosted card fields and tokenisation are served
// only on the fields origin (Fields, a listener of its own: PAYMENTS_FIELDS_ADDR).
const (
	CardImagePath = "/buy/payments/cards/"
	SimulatorPath = "/buy/api/card-reader/simulate"

	// The fields origin's paths: the page, its two assets and tokenisation.
	FieldsPagePath     = "/"
	FieldsTokenizePath = "/api/tokenize"
)

//go:embed page/*
var page embed.FS

var hostedTmpl = template.Must(template.ParseFS(page, "page/index.html"))

// Fields serves the card-data origin (PCI DSS SAQ A: docs/pci-saq-a.md): the hosted
// card-fields page, its script and stylesheet, and tokenisation. Nothing else is served
// there, and nothing of it on the store's origin, so no script of the store can read the
// fields (the browser's same-origin policy) and card numbers never reach the store. The
// page is framed by the store's pages (ParentOrigins) and hands the nonce to its parent
// with postMessage to that one origin.
//
// The origin has no session and sets no cookie: tokenising needs no account (a nonce is
// worth nothing without a purchase on the store, which has its own CSRF and session), so
// there is no ambient credential to forge. Non-safe requests must still be JSON (a form
// cannot send it without a CORS preflight, which this origin never grants) and, from a
// browser, same-origin: a page of another site cannot make a visitor's browser tokenise.
type Fields struct {
	// Origin is the fields' public origin (https://pay.store.example); empty: the
	// request's own (tests).
	Origin string
	// ParentOrigins are the store's origins, the only ones allowed to frame the page and
	// receive its messages. Empty: no page is served (nothing may frame it).
	ParentOrigins []string
	// Tokenize is the use case (the gRPC method, so both take the same input and answer).
	Tokenize func(context.Context, *paymentsv1.TokenizeRequest) (*paymentsv1.TokenizeResponse, error)
	Log      *slog.Logger

	static *fieldsAssets // the script and stylesheet, named and compressed (NewFields)
}

// NewFields answers f with its script and stylesheet named by content and compressed,
// once for the process.
func NewFields(f Fields) (Fields, error) {
	a, err := loadFieldsAssets()
	if err != nil {
		return Fields{}, fmt.Errorf("hosted card fields: %w", err)
	}
	f.static = a
	return f, nil
}

// assets answers the page's assets; a Fields not made by NewFields loads them per request.
func (f Fields) assets() *fieldsAssets {
	if f.static != nil {
		return f.static
	}
	a, err := loadFieldsAssets()
	if err != nil {
		panic(err) // the files are embedded in the binary: only a broken build lacks them
	}
	return a
}

// fieldsMaxBody bounds a tokenize body (card fields are a few hundred bytes).
const fieldsMaxBody = 16 << 10

// CSP is the page's Content-Security-Policy: own script and style only (no inline code),
// XHR only to its own origin, no forms, no plugins, framed only by the store's origins.
func (f Fields) CSP() string {
	ancestors := "'none'"
	if len(f.ParentOrigins) > 0 {
		ancestors = strings.Join(f.ParentOrigins, " ")
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"form-action 'none'; base-uri 'none'; object-src 'none'; frame-ancestors " + ancestors
}

func (f Fields) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sec := w.Header()
	sec.Set("X-Content-Type-Options", "nosniff")
	sec.Set("Referrer-Policy", "no-referrer")
	sec.Set("Cache-Control", "no-store")
	sec.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.URL.Path == FieldsTokenizePath && r.Method == http.MethodPost {
		f.tokenize(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead || r.URL.Path == FieldsTokenizePath {
		server.WriteError(w, errs.E(errs.NotFound, "no route for %s %s", r.Method, r.URL.Path))
		return
	}
	switch r.URL.Path {
	case FieldsPagePath, "/index.html":
		f.page(w, r)
	default:
		if asset, current := f.assets().lookup(r.URL.Path); asset != nil {
			asset.serve(w, r, current)
			return
		}
		server.WriteError(w, errs.E(errs.NotFound, "no route for %s", r.URL.Path))
	}
}

// page serves the fields for the parent origin the query names (one of ParentOrigins; the
// first when it names none): the page posts its messages to that origin only and takes
// messages from it only.
func (f Fields) page(w http.ResponseWriter, r *http.Request) {
	if len(f.ParentOrigins) == 0 {
		server.WriteError(w, errs.E(errs.NotFound, "no store may frame the card fields (ALLOWED_ORIGINS is empty)"))
		return
	}
	parent := f.ParentOrigins[0]
	if want := r.URL.Query().Get("parentOrigin"); want != "" {
		parent = ""
		for _, p := range f.ParentOrigins {
			if strings.EqualFold(strings.TrimRight(want, "/"), p) {
				parent = p
			}
		}
		if parent == "" {
			server.WriteError(w, errs.Field("parentOrigin", "parent origin is not allowed"))
			return
		}
	}
	flow := "card"
	if r.URL.Query().Get("flow") == "wallet" {
		flow = "wallet"
	}
	h := w.Header()
	h.Set("Content-Security-Policy", f.CSP())
	h.Set("Content-Type", "text/html; charset=utf-8")
	a := f.assets()
	_ = hostedTmpl.Execute(w, map[string]string{"ParentOrigin": parent, "Flow": flow, "Script": a.script.name, "Style": a.style.name})
}

func (f Fields) tokenize(w http.ResponseWriter, r *http.Request) {
	if msg := f.refuseCrossOrigin(r); msg != "" {
		server.WriteError(w, errs.E(errs.Forbidden, "%s", msg))
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		server.WriteError(w, errs.E(errs.Invalid, "send the card fields as JSON (Content-Type: application/json)"))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, fieldsMaxBody))
	if err != nil {
		server.WriteError(w, errs.E(errs.Invalid, "the request body is too large"))
		return
	}
	var in paymentsv1.TokenizeRequest
	if err := protojson.Unmarshal(body, &in); err != nil {
		// Never the parser's message: it may quote the body, which holds the card number.
		server.WriteError(w, errs.E(errs.Invalid, "malformed JSON body"))
		return
	}
	ctx := gatewayContext(r)
	out, err := f.Tokenize(ctx, &in)
	if err != nil {
		if c := errs.CodeOf(err); (c == errs.Internal || c == errs.Unavailable) && f.Log != nil {
			f.Log.ErrorContext(ctx, "tokenize failed", "code", string(c), "err", err.Error())
		}
		server.WriteError(w, err)
		return
	}
	b, err := protojson.Marshal(out)
	if err != nil {
		server.WriteError(w, errs.E(errs.Internal, "internal error"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// refuseCrossOrigin answers why a browser request made by another origin is refused ("" when
// it is not): Origin, when sent, must be the fields' own, and Sec-Fetch-Site same-origin.
// Clients that are not browsers (curl, k6) send neither.
func (f Fields) refuseCrossOrigin(r *http.Request) string {
	own := f.Origin
	if own == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		own = (&url.URL{Scheme: scheme, Host: r.Host}).String()
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(strings.TrimRight(o, "/"), strings.TrimRight(own, "/")) {
		return "Cross-origin request refused."
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return "Cross-origin request refused."
	}
	return ""
}

// gatewayContext answers the request's context carrying what grpc-gateway would pass a
// method (the client's address chain and user agent as incoming metadata, the peer), so the
// use case sees a tokenisation from the fields origin as it sees any call from a browser
// (auth.ClientIP).
func gatewayContext(r *http.Request) context.Context {
	md := metadata.MD{}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	xff := host
	if prior := r.Header.Get("X-Forwarded-For"); prior != "" {
		xff = prior + ", " + host
	}
	md.Set("x-forwarded-for", xff)
	if ua := r.UserAgent(); ua != "" {
		md.Set("grpcgateway-user-agent", ua)
	}
	ctx := metadata.NewIncomingContext(r.Context(), md)
	if ip := net.ParseIP(host); ip != nil {
		ctx = peer.NewContext(ctx, &peer.Peer{Addr: &net.TCPAddr{IP: ip}})
	}
	return ctx
}

// CardImages serves the brand images the store shows beside a stored card (no card data):
// /buy/payments/cards/{brand}.svg on the store's origin.
type CardImages struct{}

func (CardImages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, CardImagePath)
	if name == r.URL.Path || !strings.HasSuffix(name, ".svg") || strings.Contains(name, "/") {
		server.WriteError(w, errs.E(errs.NotFound, "no route for %s", r.URL.Path))
		return
	}
	label := strings.ToUpper(strings.TrimSuffix(name, ".svg"))
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="30" viewBox="0 0 48 30"><rect width="48" height="30" rx="4" fill="#1a3b6e"/><text x="24" y="19" font-family="sans-serif" font-size="7" fill="#fff" text-anchor="middle">`+
		template.HTMLEscapeString(strings.ReplaceAll(label, "-", " "))+`</text></svg>`)
}

// Simulator is the development card reader: POST {readerSerialNumber, number, cvv,
// expirationDate, cardholderName, postalCode} presents a card to the named reader, which
// completes the reader's waiting vault request. Mounted only when enabled in config.
type Simulator struct{ Svc *iapp.Service }

func (s Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ReaderSerialNumber string `json:"readerSerialNumber"`
		Number             string `json:"number"`
		CVV                string `json:"cvv"`
		ExpirationDate     string `json:"expirationDate"`
		CardholderName     string `json:"cardholderName"`
		PostalCode         string `json:"postalCode"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&in); err != nil {
		server.WriteError(w, errs.E(errs.Invalid, "malformed JSON body"))
		return
	}
	sess, err := s.Svc.PresentCard(r.Context(), in.ReaderSerialNumber, domain.CardInput{Number: in.Number, CVV: in.CVV,
		ExpirationDate: in.ExpirationDate, CardholderName: in.CardholderName, PostalCode: in.PostalCode})
	if err != nil {
		server.WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"contextId": sess.ContextID, "status": string(sess.Status), "message": sess.Message})
}
