package app_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/services/payments/app"
	iapp "github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// syncBuffer collects the service's logs for the card-data scan.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testClock struct{ ns atomic.Int64 }

func (c *testClock) now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) add(d time.Duration) { c.ns.Add(int64(d)) }
func newClock(t time.Time) *testClock    { c := &testClock{}; c.ns.Store(t.UnixNano()); return c }

type running struct {
	base   string
	fields string // the fields origin's listener (the hosted fields and tokenize)
	// fieldsOrigin is what a browser on the fields page sends as Origin.
	fieldsOrigin string
	admin        string
	dbURL        string
	rpc          paymentsv1.PaymentsServiceClient
	logs         *syncBuffer
	clock        *testClock
	stop         func() // stops the App (a replica going away); also run at cleanup
}

// Sessions of the fake identity: a credit-card admin, a pilot and another customer.
var callers = map[string]auth.Caller{
	"admin-token": {AccountUUID: "staff-0001", Username: "cardadmin@demo.hangar.test", IsCreditCardAdmin: true, IsEmployee: true},
	"pilot-token": {AccountUUID: "acct-pilot", Username: "pilot@demo.hangar.test"},
	"other-token": {AccountUUID: "acct-other", Username: "other@demo.hangar.test"},
	// Acme: the owner's business account is the organization's account.
	"acme-owner-token":  {AccountUUID: "acct-acme", OrganizationAccount: "acct-acme", Roles: []string{"owner", "aircraft_admin"}, Memberships: []auth.Membership{{OrganizationAccount: "acct-acme", Roles: []string{"owner", "aircraft_admin"}}}},
	"acme-admin-token":  {AccountUUID: "acct-acme-admin", OrganizationAccount: "acct-acme", Roles: []string{"user_admin", "member"}, Memberships: []auth.Membership{{OrganizationAccount: "acct-acme", Roles: []string{"user_admin", "member"}}}},
	"acme-member-token": {AccountUUID: "acct-acme-member", OrganizationAccount: "acct-acme", Roles: []string{"member"}, Memberships: []auth.Membership{{OrganizationAccount: "acct-acme", Roles: []string{"member"}}}},
	// An owner of Acme whose own account is not Acme's (a second owner): Acme's card pays
	// for them as the organization's billing owner.
	"acme-coowner-token": {AccountUUID: "acct-acme-coowner", Memberships: []auth.Membership{{OrganizationAccount: "acct-acme", Roles: []string{"owner"}}}},
	// An employee without the credit-card-admin right.
	"employee-token": {AccountUUID: "staff-0002", Username: "employee@demo.hangar.test", IsEmployee: true},
}

func start(t testing.TB, extra map[string]string) *running {
	t.Helper()
	vars := map[string]string{
		"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0", "SHUTDOWN_TIMEOUT": "2s",
		"PAYMENTS_FIELDS_ADDR": "127.0.0.1:0", "TRUSTED_PROXIES": "0", "LOG_LEVEL": "debug",
		"PAYMENTS_CARD_READERS": "RDR-0001,RDR-0002", "PAYMENTS_READER_SIMULATOR": "true", "PAYMENTS_DEV_SEED": "true",
		"ALLOWED_ORIGINS": "http://store.test",
	}
	for k, v := range extra {
		vars[k] = v
	}
	if vars["DATABASE_URL"] == "" {
		vars["DATABASE_URL"] = dbtest.New(t)
	}
	var cfg app.Config
	if err := config.LoadFrom(&cfg, func(k string) (string, bool) { v, ok := vars[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	r := &running{dbURL: vars["DATABASE_URL"], logs: &syncBuffer{}, clock: newClock(time.Now())}
	resolver := auth.ResolverFunc(func(_ context.Context, token string) (auth.Caller, error) {
		if c, ok := callers[token]; ok {
			return c, nil
		}
		return auth.Caller{}, auth.ErrLoginRequired
	})
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, r.logs, app.WithResolver(resolver), app.WithClock(r.clock.now))
	if err != nil {
		t.Fatal(err)
	}
	stop := servicetest.Run(t, ctx, cancel, a)
	r.stop = func() { _ = stop() }
	grpcAddr, httpAddr, adminAddr := a.Addrs()
	r.base, r.admin, r.fields = "http://"+httpAddr, adminAddr, "http://"+a.FieldsAddr()
	r.fieldsOrigin = cmp.Or(vars["PAYMENTS_FIELDS_ORIGIN"], r.fields)
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r.rpc = paymentsv1.NewPaymentsServiceClient(conn)
	return r
}

// do sends a request as the session token's caller (none when empty), with the XSRF pair.
func (r *running) do(t *testing.T, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, r.base+path, rd)
	// With a session the XSRF token is the session's own (auth.SessionXSRF).
	xsrf := "xsrf-test"
	if token != "" {
		xsrf = auth.SessionXSRF(token)
	}
	cookie := auth.XSRFCookie + "=" + xsrf
	if token != "" {
		cookie += "; " + auth.SessionCookie + "=" + token
	}
	req.Header.Set("Cookie", cookie)
	req.Header.Set(auth.XSRFHeader, xsrf)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

func cvvOf(number string) string {
	if len(number) == 15 {
		return "7373"
	}
	return "737"
}

// postFields posts body as JSON to the fields origin's path, as the hosted page does.
func (r *running) postFields(t *testing.T, path string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", r.fields+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", r.fieldsOrigin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// tokenize posts card fields to the fields origin's tokenize and answers the nonce.
func (r *running) tokenize(t *testing.T, number string) string {
	t.Helper()
	code, body := r.postFields(t, "/api/tokenize", map[string]string{
		"number": number, "cvv": cvvOf(number), "expirationDate": "12/2031", "cardholderName": "Amelia Earhart", "postalCode": "94105"})
	if code != 200 || body["nonce"] == nil {
		t.Fatalf("tokenize %s = %d %v", number, code, body)
	}
	return body["nonce"].(string)
}

func (r *running) charge(t *testing.T, key, nonce string, amount int64) *paymentsv1.ChargeResponse {
	t.Helper()
	resp, err := r.rpc.Charge(context.Background(), &paymentsv1.ChargeRequest{IdempotencyKey: key, Amount: amount, Currency: "USD",
		Nonce: nonce, CustomerId: "acct-pilot", Reference: "order-" + key})
	if err != nil {
		t.Fatalf("Charge(%s) = %v", key, err)
	}
	return resp
}

func TestTestCardsChargesRefundsAndNoCardDataAnywhere(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	ctx := context.Background()
	cases := []struct {
		number  string
		status  paymentsv1.ChargeStatus
		failure string
	}{
		{gateway.CardVisaOK, paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED, ""},
		{gateway.CardMastercardOK, paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED, ""},
		{gateway.CardAmexOK, paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED, ""},
		{gateway.CardDiscoverOK, paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED, ""},
		{gateway.CardDecline, paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED, "declined"},
		{gateway.CardInsufficientFunds, paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED, "insufficient_funds"},
		{gateway.CardExpired, paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED, "expired_card"},
		{gateway.CardCVVFailure, paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED, "cvv_failed"},
		{gateway.CardTimeout, paymentsv1.ChargeStatus_CHARGE_STATUS_PENDING, "processor_unavailable"},
	}
	charges := map[string]*paymentsv1.Charge{}
	nonces := map[string]string{}
	// Keys and references must not quote the card number either: the scan below would
	// (rightly) find it.
	key := func(number string) string { return "card-" + number[len(number)-4:] + "-" + number[:1] }
	for _, c := range cases {
		t.Run(c.number, func(t *testing.T) {
			nonces[c.number] = r.tokenize(t, c.number)
			resp := r.charge(t, key(c.number), nonces[c.number], 19999)
			ch := resp.GetCharge()
			if ch.GetStatus() != c.status || ch.GetFailureCode() != c.failure {
				t.Fatalf("charge = %s %s (%s), want %s %s", ch.GetStatus(), ch.GetFailureCode(), ch.GetFailureMessage(), c.status, c.failure)
			}
			if c.status == paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED && ch.GetPaymentMethod().GetLast4() != c.number[len(c.number)-4:] {
				t.Errorf("last4 = %s", ch.GetPaymentMethod().GetLast4())
			}
			charges[c.number] = ch
		})
	}

	t.Run("a timed-out charge is resolved by a retry with the same key", func(t *testing.T) {
		first := charges[gateway.CardTimeout]
		// The retry carries the same request, so the same (now used) nonce.
		resp, err := r.rpc.GetCharge(ctx, &paymentsv1.GetChargeRequest{ChargeId: first.GetId()})
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_PENDING {
			t.Fatalf("stored = %v, %v", resp, err)
		}
		retry := r.charge(t, key(gateway.CardTimeout), nonces[gateway.CardTimeout], 19999)
		if retry.GetCharge().GetId() != first.GetId() || retry.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("retry = %v", retry.GetCharge())
		}
	})

	t.Run("partial and full refunds, never above the captured amount", func(t *testing.T) {
		id := charges[gateway.CardVisaOK].GetId()
		rf, err := r.rpc.Refund(ctx, &paymentsv1.RefundRequest{ChargeId: id, Amount: 5000, IdempotencyKey: "r1"})
		if err != nil || rf.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_PARTIALLY_REFUNDED {
			t.Fatalf("partial refund = %v, %v", rf, err)
		}
		again, err := r.rpc.Refund(ctx, &paymentsv1.RefundRequest{ChargeId: id, Amount: 5000, IdempotencyKey: "r1"})
		if err != nil || !again.GetReplayed() || again.GetRefundId() != rf.GetRefundId() || again.GetCharge().GetRefundedAmount() != 5000 {
			t.Fatalf("refund replay = %v, %v", again, err)
		}
		_, err = r.rpc.Refund(ctx, &paymentsv1.RefundRequest{ChargeId: id, Amount: 15000, IdempotencyKey: "r2"})
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("refund above captured = %v", err)
		}
		rest, err := r.rpc.Refund(ctx, &paymentsv1.RefundRequest{ChargeId: id, IdempotencyKey: "r3"})
		if err != nil || rest.GetAmount() != 14999 || rest.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_REFUNDED {
			t.Fatalf("full refund = %v, %v", rest, err)
		}
		_, err = r.rpc.Refund(ctx, &paymentsv1.RefundRequest{ChargeId: charges[gateway.CardDecline].GetId(), IdempotencyKey: "r4"})
		if status.Code(err) != codes.FailedPrecondition {
			t.Errorf("refund of a failed charge = %v", err)
		}
	})

	t.Run("authorize, then capture or void", func(t *testing.T) {
		auth1, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "auth-1", Amount: 1000, Currency: "EUR",
			Nonce: r.tokenize(t, gateway.CardVisaOK), CustomerId: "acct-pilot", AuthorizeOnly: true})
		if err != nil || auth1.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_AUTHORIZED {
			t.Fatalf("authorize = %v, %v", auth1, err)
		}
		capd, err := r.rpc.Capture(ctx, &paymentsv1.CaptureRequest{ChargeId: auth1.GetCharge().GetId()})
		if err != nil || capd.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("capture = %v, %v", capd, err)
		}
		auth2, _ := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "auth-2", Amount: 1000, Currency: "EUR",
			Nonce: r.tokenize(t, gateway.CardVisaOK), CustomerId: "acct-pilot", AuthorizeOnly: true})
		v, err := r.rpc.Void(ctx, &paymentsv1.VoidRequest{ChargeId: auth2.GetCharge().GetId()})
		if err != nil || v.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_VOIDED {
			t.Fatalf("void = %v, %v", v, err)
		}
		if _, err := r.rpc.Capture(ctx, &paymentsv1.CaptureRequest{ChargeId: auth2.GetCharge().GetId()}); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("capture of a voided charge = %v", err)
		}
	})

	t.Run("invalid card fields are CUSTOMER errors shown with 'process'", func(t *testing.T) {
		code, body := r.postFields(t, "/api/tokenize", map[string]string{"number": "4111111111111112", "cvv": "12", "expirationDate": "13/2030"})
		if code != 400 || body["message"] != "Some payment input fields are invalid. Cannot process invalid card fields." {
			t.Fatalf("tokenize invalid = %d %v", code, body)
		}
		if fe, _ := body["fieldErrors"].([]any); len(fe) != 3 {
			t.Errorf("fieldErrors = %v, want number, expirationDate, cvv", body["fieldErrors"])
		}
	})

	t.Run("events: captured and refunded, protobuf, no card data", func(t *testing.T) {
		rows := pgxQuery(t, r.dbURL, `SELECT topic, payload FROM outbox ORDER BY id`, nil)
		var captured, refunded int
		for _, row := range rows {
			switch row[0].(string) {
			case events.TopicPaymentCaptured:
				var e eventsv1.PaymentCaptured
				if err := proto.Unmarshal(row[1].([]byte), &e); err != nil || e.GetChargeId() == "" || e.GetAmount() <= 0 {
					t.Errorf("captured event %v: %v", &e, err)
				}
				captured++
			case events.TopicPaymentRefunded:
				refunded++
			}
		}
		// 4 approved cards + the resolved timeout + the captured authorization.
		if captured != 6 || refunded != 2 {
			t.Errorf("events: %d captured, %d refunded; want 6 and 2", captured, refunded)
		}
	})

	t.Run("no full card number or CVV in logs, events or any database column", func(t *testing.T) {
		// Vault a card and a wallet too, so every sandbox table holds rows for the scan.
		if code, body := r.do(t, "POST", "/account/api/subscription/payment-method", "pilot-token", map[string]string{
			"accountId": "acct-pilot", "nonce": r.tokenize(t, gateway.CardMastercardOK), "zipcode": "94105",
			"cardholderName": "Amelia Earhart", "country": "US", "paymentMethod": "CREDIT_CARD"}); code != 200 || body["status"] != "succeeded" {
			t.Fatalf("vault = %d %v", code, body)
		}
		// And vault a card without a charge (VaultPaymentMethod), a declined verification too.
		for i, number := range []string{gateway.CardDiscoverOK, gateway.CardDecline} {
			if _, err := r.rpc.VaultPaymentMethod(ctx, &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: fmt.Sprintf("scan-vault-%d", i),
				CustomerId: "acct-scan", Nonce: r.tokenize(t, number), CardholderName: "Amelia Earhart", PostalCode: "94105"}); err != nil {
				t.Fatalf("vault: %v", err)
			}
		}
		for _, tb := range []string{"sandbox_nonces", "sandbox_methods", "sandbox_transactions", "sandbox_refunds", "sandbox_vaults", "vaults"} {
			if n := pgxQuery(t, r.dbURL, `SELECT count(*) FROM `+tb, nil)[0][0].(int64); n == 0 {
				t.Fatalf("%s is empty; the scan would prove nothing for it", tb)
			}
		}
		var pans []string
		for _, c := range gateway.TestCards {
			pans = append(pans, c.Number)
		}

		logs := r.logs.String()
		if !strings.Contains(logs, "card tokenized") {
			t.Fatal("the debug logs of tokenisation were not captured; the scan would prove nothing")
		}
		scan := func(where, text string) {
			for _, p := range pans {
				if strings.Contains(text, p) {
					t.Errorf("full card number %s found in %s", p, where)
				}
			}
			if cvvRe.MatchString(text) {
				t.Errorf("a CVV value or field found in %s: %q", where, cvvRe.FindString(text))
			}
		}
		scan("logs", logs)
		tables := pgxQuery(t, r.dbURL, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`, nil)
		if len(tables) < 10 {
			t.Fatalf("only %d tables", len(tables))
		}
		for _, tb := range tables {
			name := tb[0].(string)
			for i, row := range pgxQuery(t, r.dbURL, `SELECT * FROM `+pgx.Identifier{name}.Sanitize(), nil) {
				for j, v := range row {
					s := fmt.Sprint(v)
					if b, ok := v.([]byte); ok {
						s = string(b)
					}
					scan(fmt.Sprintf("%s row %d column %d", name, i, j), s)
					for _, n := range nonces {
						// Nonces are stored by hash: one found in the database could be spent.
						if strings.Contains(s, n) {
							t.Errorf("nonce stored in %s row %d column %d", name, i, j)
						}
					}
					if s == "737" || s == "7373" {
						t.Errorf("CVV stored in %s row %d column %d", name, i, j)
					}
				}
			}
		}
	})
}

// cvvRe finds a CVV of the test cards as a field or a quoted/assigned value.
var cvvRe = regexp.MustCompile(`(?i)"(cvv|cvc|securityCode)"|[="]7373?["\s,}]`)

func pgxQuery(t testing.TB, url, sql string, args []any) [][]any {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestIdempotency(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	ctx := context.Background()
	nonce := r.tokenize(t, gateway.CardVisaOK)
	first := r.charge(t, "order-1", nonce, 4200)
	again := r.charge(t, "order-1", nonce, 4200)
	if !again.GetReplayed() || again.GetCharge().GetId() != first.GetCharge().GetId() || first.GetReplayed() {
		t.Fatalf("replay = %v (first %v)", again, first)
	}
	_, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "order-1", Amount: 4300, Currency: "USD", Nonce: nonce, CustomerId: "acct-pilot", Reference: "order-order-1"})
	if status.Code(err) != codes.Aborted {
		t.Fatalf("same key, different request = %v, want aborted (409)", err)
	}
	// A declined charge replays its decline.
	d := r.tokenize(t, gateway.CardDecline)
	if a, b := r.charge(t, "order-2", d, 100), r.charge(t, "order-2", d, 100); b.GetCharge().GetFailureCode() != "declined" || a.GetCharge().GetId() != b.GetCharge().GetId() {
		t.Errorf("decline replay = %v", b)
	}

	t.Run("50 concurrent duplicates make exactly one charge", func(t *testing.T) {
		nonce := r.tokenize(t, gateway.CardMastercardOK)
		var wg sync.WaitGroup
		ids := make(chan string, 50)
		errc := make(chan error, 50)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "burst", Amount: 9900, Currency: "USD",
					Nonce: nonce, CustomerId: "acct-pilot", Reference: "order-burst"})
				if err != nil {
					errc <- err
					return
				}
				if resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
					errc <- fmt.Errorf("status %s %s", resp.GetCharge().GetStatus(), resp.GetCharge().GetFailureMessage())
				}
				ids <- resp.GetCharge().GetId()
			}()
		}
		wg.Wait()
		close(ids)
		close(errc)
		for err := range errc {
			t.Error(err)
		}
		seen := map[string]bool{}
		for id := range ids {
			seen[id] = true
		}
		n := pgxQuery(t, r.dbURL, `SELECT count(*) FROM charges WHERE idempotency_key = 'burst'`, nil)[0][0].(int64)
		if len(seen) != 1 || n != 1 {
			t.Errorf("%d distinct charge ids answered, %d rows stored; want 1 and 1", len(seen), n)
		}
		ev := pgxQuery(t, r.dbURL, `SELECT count(*) FROM outbox WHERE topic = $1`, []any{events.TopicPaymentCaptured})[0][0].(int64)
		if ev != 2 {
			t.Errorf("%d captured events, want 2 (order-1 and the burst)", ev)
		}
	})
}

func TestNonceReuseAndExpiry(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	nonce := r.tokenize(t, gateway.CardVisaOK)
	r.charge(t, "a", nonce, 100)
	if c := r.charge(t, "b", nonce, 100).GetCharge(); c.GetFailureCode() != "invalid_nonce" {
		t.Errorf("reused nonce = %v", c)
	}
	old := r.tokenize(t, gateway.CardVisaOK)
	r.clock.add(3*time.Hour + time.Second)
	if c := r.charge(t, "c", old, 100).GetCharge(); c.GetFailureCode() != "nonce_expired" {
		t.Errorf("expired nonce = %v", c)
	}
	if c := r.charge(t, "d", "tokencc_made_up", 100).GetCharge(); c.GetFailureCode() != "invalid_nonce" {
		t.Errorf("unknown nonce = %v", c)
	}
}

func TestCardReaderFlow(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	if code, body := r.do(t, "GET", "/buy/api/card-reader/list", "", nil); code != 401 {
		t.Errorf("anonymous list = %d %v, want 401", code, body)
	}
	if code, body := r.do(t, "GET", "/buy/api/card-reader/list", "pilot-token", nil); code != 403 {
		t.Errorf("a customer's list = %d %v, want 403", code, body)
	}
	code, body := r.do(t, "GET", "/buy/api/card-reader/list", "admin-token", nil)
	if sn, _ := body["serialNumbers"].([]any); code != 200 || len(sn) != 2 {
		t.Fatalf("admin list = %d %v", code, body)
	}
	req := map[string]string{"email": "buyer@example.com", "readerSerialNumber": "RDR-0001"}
	if code, _ := r.do(t, "POST", "/buy/api/card-reader/vault", "pilot-token", req); code != 403 {
		t.Errorf("vault by a customer = %d, want 403", code)
	}
	if code, _ := r.do(t, "POST", "/buy/api/card-reader/vault", "", req); code != 401 {
		t.Errorf("vault anonymous = %d, want 401", code)
	}
	if code, body := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", map[string]string{"email": "buyer@example.com", "readerSerialNumber": "NOPE"}); code != 400 || body["message"] != "Unknown card reader." {
		t.Errorf("unknown reader = %d %v", code, body)
	}
	code, body = r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", req)
	ctxID, _ := body["contextId"].(string)
	if code != 200 || ctxID == "" {
		t.Fatalf("vault = %d %v", code, body)
	}
	code, body = r.do(t, "GET", "/buy/api/card-reader/vault-result?contextId="+ctxID, "admin-token", nil)
	if code != 200 || body["paymentMethod"] != nil || body["status"] != "waiting" {
		t.Fatalf("result before the card = %d %v", code, body)
	}
	code, body = r.do(t, "POST", "/buy/api/card-reader/simulate", "", map[string]string{"readerSerialNumber": "RDR-0001",
		"number": gateway.CardAmexOK, "cvv": "7373", "expirationDate": "0931", "cardholderName": "Amelia Earhart"})
	if code != 200 || body["status"] != "completed" {
		t.Fatalf("simulate = %d %v", code, body)
	}
	code, body = r.do(t, "GET", "/buy/api/card-reader/vault-result?contextId="+ctxID, "admin-token", nil)
	pm, _ := body["paymentMethod"].(map[string]any)
	if code != 200 || pm["last4"] != "0005" || pm["type"] != "American Express" || pm["isCreditCard"] != true ||
		pm["expirationDate"] != "09/2031" || body["cardholderName"] != "Amelia Earhart" || pm["token"] == "" {
		t.Fatalf("result = %d %v", code, body)
	}

	t.Run("a declined card is an error carrying the generic message", func(t *testing.T) {
		_, body := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", req)
		id := body["contextId"].(string)
		r.do(t, "POST", "/buy/api/card-reader/simulate", "", map[string]string{"readerSerialNumber": "RDR-0001",
			"number": gateway.CardDecline, "cvv": "737", "expirationDate": "09/2031"})
		code, body := r.do(t, "GET", "/buy/api/card-reader/vault-result?contextId="+id, "admin-token", nil)
		if code != 412 || body["message"] != iapp.MsgCardNotVerified {
			t.Errorf("declined result = %d %v", code, body)
		}
	})
	t.Run("a newer request supersedes, and a request times out", func(t *testing.T) {
		_, a := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", req)
		_, b := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", req)
		if code, body := r.do(t, "GET", "/buy/api/card-reader/vault-result?contextId="+a["contextId"].(string), "admin-token", nil); code != 412 || body["message"] == "" {
			t.Errorf("superseded = %d %v", code, body)
		}
		r.clock.add(6 * time.Minute)
		if code, body := r.do(t, "GET", "/buy/api/card-reader/vault-result?contextId="+b["contextId"].(string), "admin-token", nil); code != 412 || !strings.Contains(fmt.Sprint(body["message"]), "in time") {
			t.Errorf("timed out = %d %v", code, body)
		}
	})
}

func TestPaymentMethodUpdate(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	upd := func(token, path string, body map[string]string) (int, map[string]any) {
		return r.do(t, "POST", path, token, body)
	}
	card := func(account string) map[string]string {
		return map[string]string{"accountId": account, "nonce": r.tokenize(t, gateway.CardMastercardOK), "zipcode": "94105",
			"cardholderName": "Amelia Earhart", "country": "US", "paymentMethod": "CREDIT_CARD"}
	}
	code, body := upd("pilot-token", "/account/api/subscription/payment-method", card("acct-pilot"))
	if code != 200 || body["status"] != "succeeded" {
		t.Fatalf("update = %d %v", code, body)
	}
	// A method changed on the update page (not by checkout's order) is announced to checkout.
	if rows := pgxQuery(t, r.dbURL, `SELECT count(*) FROM outbox WHERE topic = $1 AND key = $2`,
		[]any{events.TopicPaymentMethodUpdated, []byte("acct-pilot")}); rows[0][0].(int64) != 1 {
		t.Errorf("%d payment-method-updated events for the update page's card, want 1", rows[0][0])
	}
	code, body = r.do(t, "GET", "/buy/api/subscription/payment-method/acct-pilot", "pilot-token", nil)
	pm, _ := body["paymentMethod"].(map[string]any)
	if code != 200 || pm["last4"] != "4444" || pm["cardholder_name"] != "Amelia Earhart" || body["paymentMethodType"] != "CREDIT_CARD" || body["canUpdate"] != true {
		t.Fatalf("get = %d %v", code, body)
	}
	if code, _ := upd("other-token", "/buy/api/subscription/update-payment-method", card("acct-pilot")); code != 403 {
		t.Errorf("update of another's account = %d, want 403", code)
	}
	if code, _ := r.do(t, "GET", "/buy/api/subscription/payment-method/acct-pilot", "", nil); code != 401 {
		t.Errorf("anonymous get = %d, want 401", code)
	}
	code, body = upd("pilot-token", "/buy/api/subscription/update-payment-method", map[string]string{"accountId": "acct-pilot"})
	if errs, _ := body["errors"].([]any); code != 200 || body["status"] != "failed" || len(errs) != 4 || errs[0] != "Credit Card cannot be blank" {
		t.Errorf("missing fields = %d %v", code, body)
	}
	decl := card("acct-pilot")
	decl["nonce"] = r.tokenize(t, gateway.CardCVVFailure)
	if _, body := upd("pilot-token", "/buy/api/subscription/update-payment-method", decl); body["status"] != "failed" || fmt.Sprint(body["errors"]) != "["+iapp.MsgCardNotVerified+"]" {
		t.Errorf("CVV failure = %v, want only the generic message", body)
	}
	// The wallet ('vault' flow) becomes PAYPAL with the provider-held e-mail.
	_, w := r.postFields(t, "/api/tokenize", map[string]string{"flow": "vault", "walletEmail": "payer@example.com"})
	_, body = upd("pilot-token", "/buy/api/subscription/update-payment-method", map[string]string{"accountId": "acct-pilot", "nonce": w["nonce"].(string), "paymentMethod": "PAYPAL"})
	if pm, _ := body["paymentMethod"].(map[string]any); body["status"] != "succeeded" || body["paymentMethodType"] != "PAYPAL" || pm["braintreeEmail"] != "payer@example.com" || pm["isCreditCard"] != false {
		t.Errorf("wallet = %v", body)
	}
	if _, body := upd("pilot-token", "/buy/api/subscription/update-payment-method", map[string]string{"accountId": "acct-pilot", "paymentMethod": "INVOICE"}); body["status"] != "succeeded" || body["paymentMethodType"] != "CHECK" {
		t.Errorf("invoice = %v", body)
	}

	t.Run("quarterly check payers are told to contact sales", func(t *testing.T) {
		if _, err := r.rpc.SetBillingProfile(context.Background(), &paymentsv1.SetBillingProfileRequest{AccountId: "acct-other", PaymentMethod: "INVOICE", BillingPeriod: "QUARTERLY"}); err != nil {
			t.Fatal(err)
		}
		_, body := upd("other-token", "/account/api/subscription/payment-method", card("acct-other"))
		if body["status"] != "failed" || !strings.Contains(fmt.Sprint(body["errors"]), "contact sales") {
			t.Errorf("quarterly check = %v", body)
		}
		_, body = r.do(t, "GET", "/buy/api/subscription/payment-method/"+app.DevQuarterlyCheckAccount, "admin-token", nil)
		if body["canUpdate"] != false || body["paymentMethodType"] != "CHECK" || body["billingPeriod"] != "QUARTERLY" ||
			!strings.Contains(fmt.Sprint(body["errors"]), "contact sales") {
			t.Errorf("seeded quarterly check account = %v", body)
		}
	})
}

// The dev seed puts a card on file for every seeded card-paying subscriber, so a renewal
// pass over checkout's seed charges each of them (before, only the pilot had one and the
// others were dunned for 'No payment method is stored').
func TestDevSeedCardsOnFile(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	for _, h := range app.DevCardHolders {
		res, err := r.rpc.GetBillingProfile(context.Background(), &paymentsv1.GetBillingProfileRequest{AccountId: h.Account})
		if err != nil {
			t.Fatalf("%s: %v", h.Email, err)
		}
		if p := res.GetProfile(); p.GetPaymentMethodToken() == "" || p.GetPaymentMethod() != "CREDIT_CARD" {
			t.Errorf("%s: profile %v, want a stored card", h.Email, p)
		}
	}
}

// Only the account itself, its organization's owner and staff see or replace the
// organization's payment method; a plain member (or a user admin) is refused. Before,
// any member of the organization read and replaced the owner's card.
func TestOrganizationPaymentMethodByRole(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	card := func() map[string]string {
		return map[string]string{"accountId": "acct-acme", "nonce": r.tokenize(t, gateway.CardMastercardOK), "zipcode": "94105",
			"cardholderName": "Acme Owner", "country": "US", "paymentMethod": "CREDIT_CARD"}
	}
	if code, body := r.do(t, "POST", "/account/api/subscription/payment-method", "acme-owner-token", card()); code != 200 || body["status"] != "succeeded" {
		t.Fatalf("owner's update = %d %v", code, body)
	}
	for _, c := range []struct {
		who, token string
		want       int
	}{
		{"the owner", "acme-owner-token", 200},
		{"a credit-card admin", "admin-token", 200},
		{"a plain member", "acme-member-token", 403},
		{"a user admin", "acme-admin-token", 403},
		{"another customer", "other-token", 403},
		{"anonymous", "", 401},
	} {
		if code, _ := r.do(t, "GET", "/buy/api/subscription/payment-method/acct-acme", c.token, nil); code != c.want {
			t.Errorf("%s reads the organization's payment method: %d, want %d", c.who, code, c.want)
		}
		if c.want == 200 {
			continue
		}
		for _, path := range []string{"/buy/api/subscription/update-payment-method", "/account/api/subscription/payment-method"} {
			if code, body := r.do(t, "POST", path, c.token, card()); code != c.want {
				t.Errorf("%s replaces it through %s: %d %v, want %d", c.who, path, code, body, c.want)
			}
		}
	}
	_, body := r.do(t, "GET", "/buy/api/subscription/payment-method/acct-acme", "acme-owner-token", nil)
	if pm, _ := body["paymentMethod"].(map[string]any); pm["cardholder_name"] != "Acme Owner" {
		t.Errorf("the method on file changed: %v", body)
	}
}

// The fields origin (docs/pci-saq-a.md): its own listener serves the hosted page, its assets
// and tokenize, with a CSP that only the store may frame it and that lets it connect only
// to itself; the store's listener serves none of them (tokenize there is a JSON 404, the
// page is gone), and the client token names the fields origin.
func TestFieldsOriginServesTheCardFieldsAndTheStoreDoesNot(t *testing.T) {
	t.Parallel()
	r := start(t, map[string]string{"PAYMENTS_FIELDS_ORIGIN": "https://pay.store.test"})
	get := func(url string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}

	resp, page := get(r.fields + "/?parentOrigin=http://store.test")
	csp := resp.Header.Get("Content-Security-Policy")
	wantCSP := "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"form-action 'none'; base-uri 'none'; object-src 'none'; frame-ancestors http://store.test"
	if resp.StatusCode != 200 || csp != wantCSP {
		t.Errorf("page = %d, CSP %q, want %q", resp.StatusCode, csp, wantCSP)
	}
	if !strings.Contains(page, `content="http://store.test"`) || !strings.Contains(page, `id="number"`) || !strings.Contains(page, `src="/hosted-fields.`) {
		t.Errorf("page body = %s", page)
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("the fields origin set a cookie: %q", resp.Header.Get("Set-Cookie"))
	}
	if resp, _ := get(r.fields + "/?parentOrigin=https://evil.example"); resp.StatusCode != 400 {
		t.Errorf("foreign parent origin = %d, want 400", resp.StatusCode)
	}
	resp, js := get(r.fields + "/hosted-fields.js")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("hosted-fields.js = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{"event.origin !== parentOrigin", "event.source !== window.parent", "postMessage(message, parentOrigin)",
		"'MMYYYY' : 'MM/YYYY'", "xhr.open('POST', '/api/tokenize')"} {
		if !strings.Contains(js, want) {
			t.Errorf("hosted-fields.js lacks %q", want)
		}
	}
	if resp, _ := get(r.fields + "/hosted-fields.css"); resp.StatusCode != 200 {
		t.Errorf("hosted-fields.css = %d", resp.StatusCode)
	}
	// Nothing of the store's is on the fields origin.
	if resp, body := get(r.fields + "/buy/api/subscription/payment-method/acct-pilot"); resp.StatusCode != 404 || !strings.Contains(body, `"not_found"`) {
		t.Errorf("a store route on the fields origin = %d %s, want a JSON 404", resp.StatusCode, body)
	}

	card := map[string]string{"number": "4111111111111111", "cvv": "737", "expirationDate": "12/2031"}
	if code, body := r.postFields(t, "/api/tokenize", card); code != 200 || body["nonce"] == nil {
		t.Errorf("tokenize on the fields origin = %d %v", code, body)
	}

	// The store's origin takes no card: tokenize is a JSON 404 (not 403, not 405), the page
	// and its script are gone; the client token names the fields origin.
	for _, tok := range []string{"", "pilot-token"} {
		if code, body := r.do(t, "POST", "/buy/api/payments/tokenize", tok, card); code != 404 || body["code"] != "not_found" || body["nonce"] != nil {
			t.Errorf("tokenize on the store's origin (session %q) = %d %v, want a JSON 404", tok, code, body)
		}
	}
	for _, path := range []string{"/buy/payments/", "/buy/payments/hosted-fields.js"} {
		if resp, _ := get(r.base + path); resp.StatusCode != 404 {
			t.Errorf("GET %s on the store's origin = %d, want 404", path, resp.StatusCode)
		}
	}
	if resp, _ := get(r.base + "/buy/payments/cards/visa.svg"); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("card image on the store = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if code, body := r.do(t, "GET", "/buy/api/payments/client-token", "", nil); code != 200 || body["hostedFieldsUrl"] != "https://pay.store.test/" {
		t.Errorf("client token = %d %v, want hostedFieldsUrl https://pay.store.test/", code, body)
	}
}

// Browser requests to the fields origin's tokenize from another origin are refused, and a
// body that is not JSON is refused without echoing it.
func TestFieldsTokenizeRefusesOtherOrigins(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	post := func(header map[string]string, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("POST", r.fields+"/api/tokenize", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out := map[string]any{}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	card := `{"number":"4111111111111111","cvv":"737","expirationDate":"12/2031"}`
	for _, h := range []map[string]string{
		{"Origin": "http://store.test"},
		{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
	} {
		if code, body := post(h, card); code != 403 || body["nonce"] != nil {
			t.Errorf("tokenize with %v = %d %v, want 403", h, code, body)
		}
	}
	if code, body := post(map[string]string{"Content-Type": "text/plain"}, card); code != 400 || body["nonce"] != nil {
		t.Errorf("tokenize as text/plain = %d %v, want 400", code, body)
	}
	if code, body := post(nil, `{"number":"4111111111111111",`); code != 400 || strings.Contains(fmt.Sprint(body), "4111") {
		t.Errorf("malformed body = %d %v, want 400 without the number", code, body)
	}
	if code, body := post(nil, card); code != 200 || body["nonce"] == nil {
		t.Errorf("tokenize without Origin (curl, k6) = %d %v", code, body)
	}
}

func TestOutboxSchemaIsThePlatforms(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../internal/adapters/migrations/0001_payments.sql")
	b := string(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b, strings.TrimSpace(kafka.OutboxSchema)) {
		t.Error("the outbox DDL in the migration differs from kafka.OutboxSchema")
	}
}
