package human

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hangar/hangar/internal/platform/kitclient"
)

// GoogleSiteverify is Google's reCAPTCHA verification endpoint.
const GoogleSiteverify = "https://www.google.com/recaptcha/api/siteverify"

// RecaptchaConfig configures the Google reCAPTCHA verifier.
type RecaptchaConfig struct {
	// Secret is the site's secret key. It is sent to Google only, never logged or put in
	// an error.
	Secret string
	// URL of siteverify (default GoogleSiteverify; tests point it at a local server).
	URL string
	// Timeout bounds one verification (default 3 s).
	Timeout time.Duration
	// MinScore, when above 0, is the lowest reCAPTCHA v3 score taken for a human.
	MinScore float64
	// Registry receives the kit chain's metrics (client "recaptcha"); nil: not exported.
	Registry prometheus.Registerer
}

// Recaptcha verifies the human-verification value of a submit with Google's siteverify
// API (app.HumanVerifier), through the kit chain: its deadline, breaker and metrics. It is
// not retried: Google answers a token only once (a retry would read "timeout-or-duplicate").
type Recaptcha struct {
	cfg RecaptchaConfig
	ep  endpoint.Endpoint
}

// NewRecaptcha builds the verifier.
func NewRecaptcha(cfg RecaptchaConfig) *Recaptcha {
	if cfg.URL == "" {
		cfg.URL = GoogleSiteverify
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 3 * time.Second
	}
	r := &Recaptcha{cfg: cfg}
	kit := kitclient.New(kitclient.Config{Client: "recaptcha", Timeout: cfg.Timeout, Registry: cfg.Registry})
	r.ep = kit.Endpoint("siteverify", false, r.siteverify)
	return r
}

// siteverifyAnswer is Google's answer (developers.google.com/recaptcha/docs/verify).
type siteverifyAnswer struct {
	Success    bool     `json:"success"`
	Score      *float64 `json:"score"`
	Hostname   string   `json:"hostname"`
	ErrorCodes []string `json:"error-codes"`
}

// Verify answers whether value is a human's token: (false, nil) for a missing, invalid,
// expired or reused token or a v3 score under MinScore; an error when Google cannot be
// asked or refuses the site's own request (a wrong secret), which submit reports as 'We
// are having problems validating your form.'
func (r *Recaptcha) Verify(ctx context.Context, value, clientIP string) (bool, error) {
	if strings.TrimSpace(value) == "" {
		return false, nil
	}
	form := url.Values{"secret": {r.cfg.Secret}, "response": {value}}
	if clientIP != "" {
		form.Set("remoteip", clientIP)
	}
	resp, err := r.ep(ctx, form)
	if err != nil {
		return false, fmt.Errorf("recaptcha siteverify: %w", err)
	}
	a := resp.(*siteverifyAnswer)
	for _, code := range a.ErrorCodes {
		switch code {
		case "missing-input-secret", "invalid-input-secret", "bad-request":
			return false, fmt.Errorf("recaptcha siteverify refused the site's request: %s", strings.Join(a.ErrorCodes, ", "))
		}
	}
	if !a.Success {
		return false, nil
	}
	if r.cfg.MinScore > 0 && (a.Score == nil || *a.Score < r.cfg.MinScore) {
		return false, nil
	}
	return true, nil
}

// siteverify is one call of the API (the endpoint the kit chain wraps). Errors never carry
// the form: it holds the secret.
func (r *Recaptcha) siteverify(ctx context.Context, req any) (any, error) {
	body := req.(url.Values).Encode()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.cfg.URL, strings.NewReader(body))
	if err != nil {
		return nil, kitclient.Permanent(errors.New("build siteverify request"))
	}
	hreq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is fine to show, but keep the message short
		}
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case err != nil:
		return nil, err
	case resp.StatusCode >= 500:
		return nil, status.Errorf(codes.Unavailable, "siteverify answered %d", resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, kitclient.Permanent(fmt.Errorf("siteverify answered %d", resp.StatusCode))
	}
	var a siteverifyAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, status.Errorf(codes.Unavailable, "siteverify answered no JSON: %v", err)
	}
	return &a, nil
}
