package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hangar/hangar/internal/devhuman"
)

// buyers runs a steady purchase loop and counts what a buyer would see: every request of
// every purchase (me, client token, tokenize, preview, keyed submit, receipt) is made
// once, never retried, so any failed request is a failure a buyer saw (issue 30 item 5:
// with two replicas, a kill -9 of one must leave this at 0), except "This order is being
// processed", which the page answers by asking again with the same key while the buyer
// waits: those are counted as waits (with the longest). Failures are printed as they
// happen; the summary line is printed at the end (also when stopped by SIGINT or SIGTERM:
// purchases under way finish first), and the exit status is 1 on any failure.
//
//	hangar-chaos buyers -base URL [-c 4] [-duration 30s]
func buyers(args []string) error {
	fs := flag.NewFlagSet("buyers", flag.ExitOnError)
	base := fs.String("base", "http://127.0.0.1:8080", "the store's URL (the edge)")
	conc := fs.Int("c", 4, "concurrent buyers")
	dur := fs.Duration("duration", 30*time.Second, "how long to buy")
	ordersFile := fs.String("orders", "", "append each confirmed order here as 'order buyers <invoiceId>' (for the reconciliation)")
	_ = fs.Parse(args)
	var told *os.File
	if *ordersFile != "" {
		f, err := os.OpenFile(*ordersFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		told = f
	}

	var requests, failed, orders, waits atomic.Int64
	var mu sync.Mutex
	var longest time.Duration
	var wg sync.WaitGroup
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *dur)
	defer cancel()
	for range *conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n, wait, invoice, err := buyOnce(*base)
				requests.Add(int64(n))
				if wait > 0 {
					waits.Add(1)
					mu.Lock()
					longest = max(longest, wait)
					mu.Unlock()
					fmt.Fprintf(os.Stderr, "%s waited %.1fs: order being processed\n", time.Now().UTC().Format("15:04:05.000"), wait.Seconds())
				}
				if err != nil {
					failed.Add(1)
					fmt.Fprintf(os.Stderr, "%s failed: %v\n", time.Now().UTC().Format("15:04:05.000"), err)
					continue
				}
				orders.Add(1)
				if told != nil {
					mu.Lock()
					fmt.Fprintf(told, "order buyers %s\n", invoice)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("requests=%d failed=%d orders=%d waits=%d longest_wait_s=%.1f\n", requests.Load(), failed.Load(), orders.Load(), waits.Load(), longest.Seconds())
	if failed.Load() > 0 {
		return errors.New("buyers saw failures")
	}
	return nil
}

// buyOnce is purchase with no retry of any step (but the page's wait on an order being
// processed); it answers the requests made and how long the buyer was told to wait.
func buyOnce(base string) (int, time.Duration, string, error) {
	jar, _ := cookiejar.New(nil)
	b := &browser{base: base, c: &http.Client{Timeout: 30 * time.Second, Jar: jar}, jar: map[string]string{}}
	n := 1
	if _, err := b.do("GET", "/buy/api/me", nil, nil); err != nil {
		return n, 0, "", fmt.Errorf("me: %w", err)
	}
	n++
	var ct struct{ HostedFieldsURL string }
	if err := b.json("GET", "/buy/api/payments/client-token", nil, nil, &ct); err != nil {
		return n, 0, "", fmt.Errorf("client token: %w", err)
	}
	fieldsURL, err := url.Parse(ct.HostedFieldsURL)
	if err != nil || fieldsURL.Host == "" {
		return n, 0, "", fmt.Errorf("client token: hostedFieldsUrl %q is not a URL", ct.HostedFieldsURL)
	}
	fields := &browser{base: fieldsURL.Scheme + "://" + fieldsURL.Host, c: b.c, jar: map[string]string{}}
	var tok struct{ Nonce string }
	n++
	if err := fields.json("POST", "/api/tokenize", map[string]any{"number": "4111111111111111", "cvv": "123",
		"expirationDate": "12/2030", "cardholderName": "Amelia Earhart", "postalCode": "97201"}, nil, &tok); err != nil {
		return n, 0, "", fmt.Errorf("tokenize: %w", err)
	}
	email := fmt.Sprintf("replica-buyer-%d@load.test", time.Now().UnixNano())
	cfg := map[string]any{"email": email, "currency": "USD", "addOns": []string{"performance", "included_geo_us", "add_geo_eu"},
		"billingInfo": map[string]string{"zipcode": "97201", "country": "US"}}
	var pv struct{ QuoteID string }
	n++
	if err := b.json("POST", "/buy/api/invoice/preview", cfg, nil, &pv); err != nil {
		return n, 0, "", fmt.Errorf("preview: %w", err)
	}
	cfg["quoteId"], cfg["nonce"], cfg["cardholderName"] = pv.QuoteID, tok.Nonce, "Amelia Earhart"
	cfg["recaptchaValue"] = devhuman.Token() // hangar-dev's human verification is on by default
	var sub struct{ InvoiceID string }
	// "This order is being processed" (409 ORDER_IN_PROGRESS) is the one answer the page retries
	// with the same key (web/apps/buy/src/submit.ts) while it shows the buyer a wait: its
	// retries are counted as a wait, not failures.
	started, waited := time.Now(), false
	for {
		n++
		err := b.json("POST", "/buy/api/invoice/submit", cfg, map[string]string{"Idempotency-Key": "replica-" + email}, &sub)
		if err == nil {
			break
		}
		var se statusErr
		if !errors.As(err, &se) || se.code != http.StatusConflict || !strings.Contains(se.body, `"reason":"ORDER_IN_PROGRESS"`) || time.Since(started) > time.Minute {
			return n, 0, "", fmt.Errorf("submit: %w", err)
		}
		waited = true
		time.Sleep(time.Second)
	}
	var wait time.Duration
	if waited {
		wait = time.Since(started)
	}
	var rc struct{ InvoiceID string }
	n++
	if err := b.json("GET", "/buy/api/receipt/"+sub.InvoiceID, nil, nil, &rc); err != nil || rc.InvoiceID != sub.InvoiceID {
		return n, 0, "", fmt.Errorf("receipt %s: %v", sub.InvoiceID, err)
	}
	return n, wait, sub.InvoiceID, nil
}
