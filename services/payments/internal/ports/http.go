package ports

import (
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
	iapp "github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Paths served directly over HTTP.
const (
	HostedFieldsPath = "/buy/payments/"
	CardImagePath    = "/buy/payments/cards/"
	SimulatorPath    = "/buy/api/card-reader/simulate"
)

//go:embed page/*
var page embed.FS

var hostedTmpl = template.Must(template.ParseFS(page, "page/index.html"))

// HostedFields serves the hosted card-fields page and its assets. The page is framed by
// the store's pages (parentOrigins) and hands the nonce to its parent with postMessage to
// that one origin; its CSP allows nothing but its own script, style and API.
type HostedFields struct {
	// ParentOrigins are the origins allowed to frame the page and receive its messages;
	// empty: the page's own origin.
	ParentOrigins []string
}

// csp is the page's Content-Security-Policy: own script and style only (no inline code),
// XHR only to its own origin, no forms, no plugins, framed only by the store.
func (h HostedFields) csp(parents []string) string {
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"form-action 'none'; base-uri 'none'; object-src 'none'; frame-ancestors 'self' " + strings.Join(parents, " ")
}

func (h HostedFields) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sec := w.Header()
	sec.Set("X-Content-Type-Options", "nosniff")
	sec.Set("Referrer-Policy", "no-referrer")
	sec.Set("Cache-Control", "no-store")
	name := strings.TrimPrefix(r.URL.Path, HostedFieldsPath)
	switch {
	case name == "" || name == "index.html":
		parents := h.ParentOrigins
		if len(parents) == 0 {
			parents = []string{ownOrigin(r)}
		}
		parent := parents[0]
		if want := r.URL.Query().Get("parentOrigin"); want != "" {
			parent = ""
			for _, p := range parents {
				if strings.EqualFold(strings.TrimRight(want, "/"), p) {
					parent = p
				}
			}
			if parent == "" {
				server.WriteError(w, errs.Field("parentOrigin", "parent origin is not allowed"))
				return
			}
		}
		sec.Set("Content-Security-Policy", h.csp(parents))
		sec.Set("Content-Type", "text/html; charset=utf-8")
		_ = hostedTmpl.Execute(w, map[string]string{"ParentOrigin": parent})
	case name == "hosted-fields.js" || name == "hosted-fields.css":
		b, err := page.ReadFile("page/" + name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(name, ".js") {
			sec.Set("Content-Type", "text/javascript; charset=utf-8")
		} else {
			sec.Set("Content-Type", "text/css; charset=utf-8")
		}
		_, _ = w.Write(b)
	case strings.HasPrefix(r.URL.Path, CardImagePath) && strings.HasSuffix(name, ".svg"):
		label := strings.ToUpper(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, CardImagePath), ".svg"))
		sec.Set("Content-Type", "image/svg+xml")
		sec.Set("Cache-Control", "public, max-age=86400")
		_, _ = io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="30" viewBox="0 0 48 30"><rect width="48" height="30" rx="4" fill="#1a3b6e"/><text x="24" y="19" font-family="sans-serif" font-size="7" fill="#fff" text-anchor="middle">`+
			template.HTMLEscapeString(strings.ReplaceAll(label, "-", " "))+`</text></svg>`)
	default:
		http.NotFound(w, r)
	}
}

func ownOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return (&url.URL{Scheme: scheme, Host: r.Host}).String()
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
