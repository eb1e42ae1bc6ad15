// Command hangar-chaos is the measuring half of scripts/chaos.sh:
//
//	hangar-chaos probe -base URL [-ready URL] [-orders FILE] [-since UNIXTIME] [-timeout 60s]
//	    after a fault: how long until the service's /readyz answers 200, a purchase made as
//	    a browser makes it (page load, tokenize, preview, submit, receipt) succeeds, and
//	    its receipt e-mail reaches the dev mail sink. Prints one line of seconds.
//	hangar-chaos buyers -base URL [-c 4] [-duration 30s]
//	    a steady purchase loop that never retries a request: prints each failure a buyer
//	    would see and a summary (requests, failed, orders); exits 1 on any failure.
//	hangar-chaos reconcile -db URL -prefix P -mail URL [-orders FILE] [-wait 4m]
//	    waits for the store to settle, then reconciles exactly, from the services' own
//	    databases and the mail sink: orders in checkout against captured charges in
//	    payments, the orders the buyers were told about against the orders written, and
//	    receipt and gift e-mails against orders and certificates. Exits 1 on any lost or
//	    doubled order, charge or e-mail.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/hangar/hangar/internal/devhuman"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hangar-chaos probe|buyers|reconcile [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "probe":
		err = probe(os.Args[2:])
	case "reconcile":
		err = reconcile(os.Args[2:])
	case "buyers":
		err = buyers(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangar-chaos:", err)
		os.Exit(1)
	}
}

// ---------------------------------------------------------------------------- probe

func probe(args []string) error {
	fs := flag.NewFlagSet("probe", flag.ExitOnError)
	base := fs.String("base", "http://127.0.0.1:8080", "the store's URL (the edge)")
	ready := fs.String("ready", "", "a service's /readyz URL that must answer 200 first (empty: none)")
	ordersFile := fs.String("orders", "", "append the probe's confirmed order here (for the reconciliation)")
	timeout := fs.Duration("timeout", 60*time.Second, "give up after this long")
	since := fs.Float64("since", 0, "the fault's time (Unix seconds) the recovery is measured from; 0: now")
	_ = fs.Parse(args)

	start := time.Now()
	if *since > 0 {
		start = time.Unix(0, int64(*since*1e9))
	}
	deadline := start.Add(*timeout)
	elapsed := func() float64 { return time.Since(start).Seconds() }
	client := &http.Client{Timeout: 5 * time.Second}

	readyAt := 0.0
	if *ready != "" {
		for {
			if resp, err := client.Get(*ready); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s not ready after %s", *ready, *timeout)
			}
			time.Sleep(100 * time.Millisecond)
		}
		readyAt = elapsed()
	}
	var email, invoiceID string
	attempts := 0
	for {
		attempts++
		var err error
		email, invoiceID, err = purchase(*base)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no purchase succeeded within %s (%d attempts; last: %v)", *timeout, attempts, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	purchaseAt := elapsed()
	if *ordersFile != "" {
		f, err := os.OpenFile(*ordersFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "order probe %s\n", invoiceID)
		f.Close()
	}
	mailAt := -1.0
	for time.Now().Before(deadline.Add(60 * time.Second)) {
		if n, err := receiptsTo(client, *base, email); err == nil && n > 0 {
			mailAt = elapsed()
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Printf("ready_s=%.1f purchase_s=%.1f receipt_mail_s=%.1f attempts=%d invoice=%s\n", readyAt, purchaseAt, mailAt, attempts, invoiceID)
	return nil
}

// purchase buys Premium + US + Europe as a new buyer, the browser's way, and answers the
// buyer's e-mail and the invoice id once the receipt reads back.
func purchase(base string) (string, string, error) {
	jar, _ := cookiejar.New(nil)
	b := &browser{base: base, c: &http.Client{Timeout: 5 * time.Second, Jar: jar}, jar: map[string]string{}}
	if _, err := b.do("GET", "/buy/api/me", nil, nil); err != nil {
		return "", "", err
	}
	// The card goes to the fields origin the client token names, never the store
	// (docs/pci-saq-a.md); that origin has no cookies.
	var ct struct{ HostedFieldsURL string }
	if err := b.json("GET", "/buy/api/payments/client-token", nil, nil, &ct); err != nil {
		return "", "", fmt.Errorf("client token: %w", err)
	}
	fieldsURL, err := url.Parse(ct.HostedFieldsURL)
	if err != nil || fieldsURL.Host == "" {
		return "", "", fmt.Errorf("client token: hostedFieldsUrl %q is not a URL", ct.HostedFieldsURL)
	}
	fields := &browser{base: fieldsURL.Scheme + "://" + fieldsURL.Host, c: b.c, jar: map[string]string{}}
	var tok struct{ Nonce string }
	if err := fields.json("POST", "/api/tokenize", map[string]any{"number": "4111111111111111", "cvv": "123",
		"expirationDate": "12/2030", "cardholderName": "Amelia Earhart", "postalCode": "97201"}, nil, &tok); err != nil {
		return "", "", fmt.Errorf("tokenize: %w", err)
	}
	email := fmt.Sprintf("chaos-probe-%d@load.test", time.Now().UnixNano())
	cfg := map[string]any{"email": email, "currency": "USD", "addOns": []string{"performance", "included_geo_us", "add_geo_eu"},
		"billingInfo": map[string]string{"zipcode": "97201", "country": "US"}}
	var pv struct{ QuoteID string }
	if err := b.json("POST", "/buy/api/invoice/preview", cfg, nil, &pv); err != nil {
		return "", "", fmt.Errorf("preview: %w", err)
	}
	cfg["quoteId"], cfg["nonce"], cfg["cardholderName"] = pv.QuoteID, tok.Nonce, "Amelia Earhart"
	// make dev runs with the development human verifier on: its values pass (a tick).
	cfg["recaptchaValue"] = devhuman.Token()
	var sub struct{ InvoiceID string }
	key := "chaos-probe-" + email
	// A 5xx is retried with the same key, as the web client does: never a second charge.
	for range 10 {
		if err = b.json("POST", "/buy/api/invoice/submit", cfg, map[string]string{"Idempotency-Key": key}, &sub); err == nil {
			break
		}
		var se statusErr
		if !errors.As(err, &se) || se.code < 500 {
			return "", "", fmt.Errorf("submit: %w", err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err != nil {
		return "", "", fmt.Errorf("submit: %w", err)
	}
	var rc struct{ InvoiceID string }
	if err := b.json("GET", "/buy/api/receipt/"+sub.InvoiceID, nil, nil, &rc); err != nil || rc.InvoiceID != sub.InvoiceID {
		return "", "", fmt.Errorf("receipt %s: %v", sub.InvoiceID, err)
	}
	return email, sub.InvoiceID, nil
}

// browser carries the store's cookies itself: they are Secure, and Go's jar (like k6's)
// keeps Secure cookies off plain http, while a browser on http://localhost sends them.
type browser struct {
	base string
	c    *http.Client
	jar  map[string]string
}

type statusErr struct {
	code int
	body string
}

func (e statusErr) Error() string { return fmt.Sprintf("%d %s", e.code, e.body) }

func (b *browser) do(method, path string, body any, hdr map[string]string) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, b.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-XSRF-TOKEN", b.jar["XSRF-TOKEN"])
	var cookies []string
	for k, v := range b.jar {
		cookies = append(cookies, k+"="+v)
	}
	req.Header.Set("Cookie", strings.Join(cookies, "; "))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		b.jar[c.Name] = c.Value
	}
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return out, statusErr{resp.StatusCode, strings.TrimSpace(string(out))}
	}
	return out, nil
}

func (b *browser) json(method, path string, body any, hdr map[string]string, out any) error {
	raw, err := b.do(method, path, body, hdr)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// sinkMail is what the reconciliation reads of a dev-sink mail.
type sinkMail struct {
	MessageID string              `json:"messageId"`
	To        string              `json:"to"`
	Subject   string              `json:"subject"`
	Headers   map[string][]string `json:"headers"`
}

func (m sinkMail) header(k string) string {
	for name, v := range m.Headers {
		if strings.EqualFold(name, k) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func readSink(c *http.Client, mailURL string) ([]sinkMail, error) {
	resp, err := c.Get(mailURL)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", mailURL, resp.Status)
	}
	var out struct{ Mails []sinkMail }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	return out.Mails, nil
}

func receiptsTo(c *http.Client, base, email string) (int, error) {
	mails, err := readSink(c, base+"/-/mail?brief=1&to="+url.QueryEscape(email))
	n := 0
	for _, m := range mails {
		if m.header("X-Hangar-Template") == "receipt" {
			n++
		}
	}
	return n, err
}

// ---------------------------------------------------------------------------- reconcile

type order struct {
	invoiceID, number, kind, chargeID, key, email, account string
	total                                                  int64
}

type charge struct {
	id, key, status, reference, processorTx string
	captured, refunded                      int64
}

func (c charge) net() int64 { return c.captured - c.refunded }

func reconcile(args []string) error {
	fs := flag.NewFlagSet("reconcile", flag.ExitOnError)
	dbURL := fs.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "the PostgreSQL server of the stack")
	prefix := fs.String("prefix", "hangar_", "the stack's database name prefix (HANGAR_DB_PREFIX)")
	mailURL := fs.String("mail", "http://127.0.0.1:8080/-/mail", "the dev mail sink's JSON")
	ordersFiles := fs.String("orders", "", "comma-separated files of 'order <kind> <invoiceId>' lines: the orders buyers were told about")
	wait := fs.Duration("wait", 4*time.Minute, "how long to wait for the store to settle (reconciler, outbox, consumers, mail)")
	broker := fs.String("broker", "", "the stack's Kafka broker: every event in its log is checked against the consumers' inboxes (empty: not checked)")
	_ = fs.Parse(args)

	ctx := context.Background()
	connect := func(svc string) (*pgx.Conn, error) {
		u, err := url.Parse(*dbURL)
		if err != nil {
			return nil, err
		}
		u.Path = "/" + *prefix + svc
		return pgx.Connect(ctx, u.String())
	}
	ck, err := connect("checkout")
	if err != nil {
		return err
	}
	defer ck.Close(ctx)
	pay, err := connect("payments")
	if err != nil {
		return err
	}
	defer pay.Close(ctx)
	nt, err := connect("notifications")
	if err != nil {
		return err
	}
	defer nt.Close(ctx)
	inboxes := map[string]*pgx.Conn{"notifications": nt, "checkout": ck}
	for _, svc := range []string{"identity", "allocation"} {
		c, err := connect(svc)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		inboxes[svc] = c
	}
	client := &http.Client{Timeout: 60 * time.Second}

	told, err := readClientOrders(*ordersFiles)
	if err != nil {
		return err
	}

	// Settle: interrupted submits reconciled, the outbox relayed, events consumed and the
	// mail sent. "Done" is every order's receipt in the sink and nothing pending anywhere.
	start := time.Now()
	var state string
	for {
		var pending, outbox, unsent, orders int
		err := ck.QueryRow(ctx, `SELECT (SELECT count(*) FROM submissions WHERE status = 'pending'),
			(SELECT count(*) FROM outbox WHERE published_at IS NULL), (SELECT count(*) FROM orders)`).Scan(&pending, &outbox, &orders)
		if err == nil {
			err = nt.QueryRow(ctx, `SELECT count(*) FROM messages WHERE sent_at IS NULL AND failed_at IS NULL`).Scan(&unsent)
		}
		receipts := 0
		if err == nil {
			var mails []sinkMail
			mails, err = readSink(client, withBrief(*mailURL))
			for _, m := range mails {
				if m.header("X-Hangar-Template") == "receipt" {
					receipts++
				}
			}
		}
		state = fmt.Sprintf("pending submits %d, unpublished events %d, unsent e-mails %d, receipts %d of %d orders", pending, outbox, unsent, receipts, orders)
		if err == nil && pending == 0 && outbox == 0 && unsent == 0 && receipts >= orders {
			break
		}
		if time.Since(start) > *wait {
			fmt.Printf("not settled after %s: %s (err %v); reconciling what is there\n", *wait, state, err)
			break
		}
		time.Sleep(2 * time.Second)
	}
	fmt.Printf("settled after %.0f s: %s\n", time.Since(start).Seconds(), state)

	// Orders and submissions.
	orders := map[string]order{}
	rows, err := ck.Query(ctx, `SELECT invoice_id::text, invoice_number, kind, charge_id, submission_key, email, coalesce(account_id::text, ''), total_in_cents FROM orders`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var o order
		if err := rows.Scan(&o.invoiceID, &o.number, &o.kind, &o.chargeID, &o.key, &o.email, &o.account, &o.total); err != nil {
			return err
		}
		orders[o.invoiceID] = o
	}
	rows.Close()
	subs := map[string]int{}
	rows, err = ck.Query(ctx, `SELECT status, count(*) FROM submissions GROUP BY status`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		var n int
		_ = rows.Scan(&s, &n)
		subs[s] = n
	}
	rows.Close()

	// Charges checkout made (its keys are checkout:<kind>:<hash>).
	charges := map[string]charge{}
	rows, err = pay.Query(ctx, `SELECT id::text, idempotency_key, status, reference, processor_tx_id, captured_amount, refunded_amount FROM charges WHERE idempotency_key LIKE 'checkout:%'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var c charge
		if err := rows.Scan(&c.id, &c.key, &c.status, &c.reference, &c.processorTx, &c.captured, &c.refunded); err != nil {
			return err
		}
		charges[c.id] = c
	}
	rows.Close()

	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	// Every order with a total was paid by exactly one charge, captured for its total;
	// no charge pays two orders.
	byCharge := map[string][]string{}
	for _, o := range orders {
		if o.total == 0 {
			continue
		}
		c, ok := charges[o.chargeID]
		switch {
		case !ok:
			bad("order %s (%s) has no charge in payments (charge id %q)", o.number, o.kind, o.chargeID)
		case c.net() != o.total:
			bad("order %s (%s): total %d, charge %s keeps %d (%s)", o.number, o.kind, o.total, c.id, c.net(), c.status)
		}
		byCharge[o.chargeID] = append(byCharge[o.chargeID], o.number)
	}
	doubleCharges := 0
	for id, nums := range byCharge {
		if len(nums) > 1 {
			doubleCharges++
			bad("charge %s pays %d orders: %v", id, len(nums), nums)
		}
	}
	// Every charge that kept money belongs to an order (else: a lost order); at most one
	// charge kept money per submission (else: a double charge).
	lostOrders := 0
	ordered := map[string]bool{}
	for _, o := range orders {
		ordered[o.chargeID] = true
	}
	perSubmission := map[string]int{}
	refunded := 0
	for _, c := range charges {
		if c.net() <= 0 {
			if c.refunded > 0 {
				refunded++
			}
			continue
		}
		perSubmission[c.reference]++
		if !ordered[c.id] {
			lostOrders++
			bad("charge %s (%s, key %s, reference %s) kept %d and has no order", c.id, c.status, c.key, c.reference, c.net())
		}
	}
	for ref, n := range perSubmission {
		if n > 1 {
			doubleCharges++
			bad("submission %s was charged %d times", ref, n)
		}
	}
	// A renewal's attempts have keys of their own (renewal:<subscription>:<term end>:<n>):
	// a term charged by two attempts is a customer charged twice for one year.
	perTerm := map[string]int{}
	for ref, n := range perSubmission {
		if strings.HasPrefix(ref, "renewal:") {
			if i := strings.LastIndex(ref, ":"); i > 0 {
				perTerm[ref[:i]] += n
			}
		}
	}
	termsTwice := 0
	for term, n := range perTerm {
		if n > 1 {
			termsTwice++
			doubleCharges++
			bad("renewal term %s was charged %d times", term, n)
		}
	}
	// What the card processor took (the sandbox's own record, what a card statement shows):
	// every capture that kept money is some charge's; else the buyer paid and the store does
	// not know it (a charge lost between the processor and payments' database).
	var orphanCaptures int
	if err := pay.QueryRow(ctx, `SELECT count(*) FROM sandbox_transactions t WHERE t.status = 'captured' AND t.amount > t.refunded
		AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.processor_tx_id = t.id)`).Scan(&orphanCaptures); err != nil {
		return err
	}
	if orphanCaptures > 0 {
		lostOrders += orphanCaptures
		bad("%d processor captures belong to no charge (the card was charged; no charge, no order)", orphanCaptures)
	}
	// And the other way: every charge that kept money is one capture of the processor's
	// that kept the same amount, and no capture backs two charges.
	captures := map[string]int64{}
	rows, err = pay.Query(ctx, `SELECT id, amount - refunded FROM sandbox_transactions WHERE status = 'captured'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		var kept int64
		if err := rows.Scan(&id, &kept); err != nil {
			return err
		}
		captures[id] = kept
	}
	rows.Close()
	chargesOfCapture := map[string]int{}
	unbacked := 0
	for _, c := range charges {
		if c.net() <= 0 {
			continue
		}
		chargesOfCapture[c.processorTx]++
		if kept, ok := captures[c.processorTx]; !ok || kept != c.net() {
			unbacked++
			bad("charge %s keeps %d; the processor's transaction %q keeps %d (found: %v)", c.id, c.net(), c.processorTx, kept, ok)
		}
	}
	for tx, n := range chargesOfCapture {
		if n > 1 {
			doubleCharges++
			bad("processor capture %s backs %d charges", tx, n)
		}
	}
	// Subscription orders ↔ subscriptions: each new buyer's subscription order made exactly
	// one subscription for its account, and no load buyer has a subscription without one.
	subsOf := map[string]int{}
	rows, err = ck.Query(ctx, `SELECT account_id::text, count(*) FROM subscriptions WHERE email LIKE '%@load.test' GROUP BY account_id`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var acct string
		var n int
		if err := rows.Scan(&acct, &n); err != nil {
			return err
		}
		subsOf[acct] = n
	}
	rows.Close()
	subOrders := map[string]int{}
	for _, o := range orders {
		if o.kind == "subscription" && strings.HasSuffix(o.email, "@load.test") {
			subOrders[o.account]++
		}
	}
	orphanSubs, subsMissing := 0, 0
	for acct, n := range subOrders {
		if subsOf[acct] != 1 || n != 1 {
			subsMissing++
			bad("account %s: %d subscription orders, %d subscriptions", acct, n, subsOf[acct])
		}
	}
	for acct := range subsOf {
		if subOrders[acct] == 0 {
			orphanSubs++
			bad("account %s has a subscription and no subscription order", acct)
		}
	}
	// Every order a buyer was told about exists.
	missing := 0
	for id, kind := range told {
		if _, ok := orders[id]; !ok {
			missing++
			bad("the buyer was given invoice %s (%s), which is not in orders", id, kind)
		}
	}
	lostOrders += missing

	// E-mails: one receipt per order; one gift-buyer copy per certificate; no Message-ID
	// delivered twice.
	mails, err := readSink(client, withBrief(*mailURL))
	if err != nil {
		return err
	}
	receipts := map[string]int{}
	byMessageID := map[string]int{}
	giftBuyer := map[string]bool{}
	templates := map[string]int{}
	for _, m := range mails {
		t := m.header("X-Hangar-Template")
		templates[t]++
		byMessageID[m.MessageID]++
		switch t {
		case "receipt":
			f := strings.Fields(m.Subject)
			if len(f) > 0 {
				receipts[f[len(f)-1]]++
			}
		case "gift-buyer":
			giftBuyer[m.MessageID] = true
		}
	}
	lostMail, doubledMail := 0, 0
	numbers := map[string]bool{}
	for _, o := range orders {
		numbers[o.number] = true
		switch n := receipts[o.number]; {
		case n == 0:
			lostMail++
			bad("order %s (%s, %s): no receipt e-mail", o.number, o.kind, o.email)
		case n > 1:
			doubledMail += n - 1
			bad("order %s (%s, %s): %d receipt e-mails", o.number, o.kind, o.email, n)
		}
	}
	for num, n := range receipts {
		if !numbers[num] {
			bad("%d receipt e-mail(s) for %s, which is not an order", n, num)
		}
	}
	for id, n := range byMessageID {
		if n > 1 {
			if id == "" {
				bad("%d e-mails without a Message-ID", n)
				continue
			}
			doubledMail += n - 1
			bad("Message-ID %s delivered %d times", id, n)
		}
	}
	var certs int
	if err := ck.QueryRow(ctx, `SELECT count(*) FROM gift_certificates g JOIN orders o ON o.invoice_id::text = g.order_id::text`).Scan(&certs); err != nil {
		return err
	}
	if len(giftBuyer) != certs {
		if len(giftBuyer) < certs {
			lostMail += certs - len(giftBuyer)
		}
		bad("%d gift certificates bought, %d distinct gift e-mails to their buyers", certs, len(giftBuyer))
	}
	var failed int
	if err := nt.QueryRow(ctx, `SELECT count(*) FROM messages WHERE failed_at IS NOT NULL`).Scan(&failed); err != nil {
		return err
	}
	if failed > 0 {
		bad("%d e-mails given up by notifications", failed)
	}

	// Events: every event in the broker's log is in the inbox of each consumer of its topic.
	var eventLines []string
	lostEvents, strayEvents, deadLetters := 0, 0, 0
	if *broker != "" {
		logged, dead, err := logEvents(ctx, *broker)
		if err != nil {
			return fmt.Errorf("read the broker's log: %w", err)
		}
		inbox, err := consumed(ctx, inboxes)
		if err != nil {
			return err
		}
		eventLines, lostEvents, strayEvents = compareEvents(logged, inbox, bad)
		for t, n := range dead {
			deadLetters += n
			bad("%d events dead-lettered in %s", n, t)
		}
	}

	kinds := map[string]int{}
	for _, o := range orders {
		kinds[o.kind]++
	}
	fmt.Println("reconciliation")
	fmt.Printf("  orders written            %d %v\n", len(orders), sortedCounts(kinds))
	fmt.Printf("  orders buyers were told   %d (missing from orders: %d)\n", len(told), missing)
	fmt.Printf("  submissions               %v\n", sortedCounts(subs))
	fmt.Printf("  charges (checkout keys)   %d (refunded: %d)\n", len(charges), refunded)
	fmt.Printf("  processor captures        %d kept money; without a charge: %d; charges without their capture: %d\n", len(captures), orphanCaptures, unbacked)
	fmt.Printf("  captures without an order %d\n", lostOrders-missing)
	fmt.Printf("  renewal terms charged     %d (charged twice: %d)\n", len(perTerm), termsTwice)
	fmt.Printf("  subscriptions             %d for %d subscription orders of load buyers (missing or doubled: %d, without an order: %d)\n", len(subsOf), len(subOrders), subsMissing, orphanSubs)
	if *broker != "" {
		fmt.Printf("  events (inbox/log)        lost %d, not in the log %d, dead letters %d\n", lostEvents, strayEvents, deadLetters)
		for _, l := range eventLines {
			fmt.Printf("    %s\n", l)
		}
	}
	fmt.Printf("  gift certificates         %d\n", certs)
	fmt.Printf("  e-mails in the sink       %d %v\n", len(mails), sortedCounts(templates))
	fmt.Printf("  lost orders               %d\n", lostOrders)
	fmt.Printf("  double charges            %d\n", doubleCharges)
	fmt.Printf("  lost e-mails              %d\n", lostMail)
	fmt.Printf("  doubled e-mails           %d\n", doubledMail)
	fmt.Printf("  unsettled submissions     %d\n", subs["pending"])
	for _, p := range problems {
		fmt.Println("  !", p)
	}
	if len(problems) > 0 || subs["pending"] > 0 {
		return fmt.Errorf("reconciliation failed: %d problem(s)", len(problems))
	}
	fmt.Println("  OK: 0 lost orders, 0 double charges, 0 orphan captures, 0 lost or doubled e-mails, subscriptions and events one to one")
	return nil
}

func withBrief(u string) string {
	if strings.Contains(u, "?") {
		return u + "&brief=1"
	}
	return u + "?brief=1"
}

// readClientOrders reads "order <kind> <invoiceId>" lines (k6's console log has them
// inside msg="..."), answering invoice id → kind.
func readClientOrders(files string) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range strings.Split(files, ",") {
		if name == "" {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			i := strings.Index(line, `msg="order `) + len(`msg="`)
			if i < len(`msg="`) {
				if !strings.HasPrefix(line, "order ") {
					continue
				}
				i = 0
			}
			fields := strings.Fields(strings.Trim(line[i:], `"`))
			if len(fields) >= 3 {
				out[strings.Trim(fields[2], `"`)] = fields[1]
			}
		}
		f.Close()
	}
	return out, nil
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		name := k
		if name == "" {
			name = "(none)"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, m[k]))
	}
	return strings.Join(parts, ", ")
}
