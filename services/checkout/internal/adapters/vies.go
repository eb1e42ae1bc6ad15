package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// VIESURL is the European Commission's VIES REST service.
const VIESURL = "https://ec.europa.eu/taxation_customs/vies/rest-api"

// VIES asks the Commission's VAT Information Exchange System whether an EU VAT number is
// registered (app.VATRegistry): GET {URL}/ms/{state}/vat/{number}, answering isValid and
// userError. Answers are kept for a day (VIES limits concurrent requests, and a preview
// runs on every change of the cart); an outage (a member state's register unavailable,
// VIES busy, a timeout) is an error, never a "not registered".
type VIES struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu    sync.Mutex
	known map[string]viesAnswer
}

type viesAnswer struct {
	registered bool
	at         time.Time
}

// viesKeep is how long an answer is kept; viesMax bounds the kept answers.
const (
	viesKeep = 24 * time.Hour
	viesMax  = 10_000
)

// NewVIES answers the VIES register at base (VIESURL in production), each request
// bounded by timeout.
func NewVIES(base string, timeout time.Duration) *VIES {
	return &VIES{url: strings.TrimRight(base, "/"), client: &http.Client{Timeout: timeout}, now: time.Now, known: map[string]viesAnswer{}}
}

// Registered implements app.VATRegistry.
func (v *VIES) Registered(ctx context.Context, country, number string) (bool, error) {
	state := strings.ToUpper(country)
	if state == "GR" {
		state = "EL" // VIES names Greece by its VAT prefix
	}
	key := state + number
	v.mu.Lock()
	a, ok := v.known[key]
	v.mu.Unlock()
	if ok && v.now().Sub(a.at) < viesKeep {
		return a.registered, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.url+"/ms/"+url.PathEscape(state)+"/vat/"+url.PathEscape(number), nil)
	if err != nil {
		return false, fmt.Errorf("vies request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return false, fmt.Errorf("vies: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("vies: HTTP %d", resp.StatusCode)
	}
	var body struct {
		IsValid   bool   `json:"isValid"`
		UserError string `json:"userError"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&body); err != nil {
		return false, fmt.Errorf("vies answer: %w", err)
	}
	switch body.UserError {
	case "", "VALID", "INVALID":
	default: // MS_UNAVAILABLE, TIMEOUT, SERVICE_UNAVAILABLE, *_MAX_CONCURRENT_REQ, INVALID_INPUT...
		return false, fmt.Errorf("vies: %s", body.UserError)
	}
	v.mu.Lock()
	if len(v.known) >= viesMax {
		clear(v.known)
	}
	v.known[key] = viesAnswer{registered: body.IsValid, at: v.now()}
	v.mu.Unlock()
	return body.IsValid, nil
}
