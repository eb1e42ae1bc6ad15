package app_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/checkout/app"
)

// dbCounts are the statement and transaction counters of checkout's pool.
func (st *stack) dbCounts(t *testing.T) dbtest.Counts {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(app.PoolCollector(st.app))
	return dbtest.Gather(t, reg)["main"]
}

// What each request of the purchase journey costs checkout's database, in statements and
// transactions. The counts are the design, so a change that adds a round trip or a
// transaction fails here: preview reads nothing; submit reads the key and the e-mail's
// subscription, claims the key, and writes the order in one transaction of three round
// trips (BEGIN with the statement that closes the key, numbers the invoice and writes the
// order and its lines | the subscription | both outbox rows with the COMMIT); its retry
// reads the key and the order (with its lines, pipelined); the receipt
// reads the order and its lines in one pipelined batch. Pipelined statements are
// "batched"; each "query" is a round trip of its own.
func TestJourneyStatementsAndTransactions(t *testing.T) {
	t.Parallel()
	// No background work on the pool while counting: no refresh, reconcile or renewals.
	st := startStack(t, map[string]string{"CHECKOUT_REFRESH_INTERVAL": "1h", "CHECKOUT_RENEWAL_INTERVAL": "0"})
	// step runs f and checks what checkout's pool sent, beyond the counts before it.
	step := func(name string, want dbtest.Counts, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			before := st.dbCounts(t)
			f(t)
			if got := st.dbCounts(t).Minus(before); got != want {
				t.Errorf("%+v, want %+v", got, want)
			}
		})
	}
	nonce := st.tokenize(t, "4111111111111111")
	cfg := newBuyer("statements")
	var body string
	step("preview", dbtest.Counts{}, func(t *testing.T) { body = quoted(t, st.base, cfg, nonce, "") })
	// What each click saves since the buy page no longer posts /validate before /submit
	// (issue 43): three statements, each its own transaction (the e-mail look-up's throttle
	// among them), besides validate's pricing.
	step("validate (no longer posted by the page)", dbtest.Counts{Query: 3, Transactions: 3}, func(t *testing.T) {
		if code, m := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg); code != 200 || m["status"] != "ok" {
			t.Fatalf("validate: %d %v", code, m)
		}
	})
	var invoiceID string
	var jar []string
	step("submit", dbtest.Counts{Query: 4, Batched: 5, Transactions: 4}, func(t *testing.T) {
		code, m, cookies := submitRaw(t, st.base, "statements-1", body, "")
		if code != 200 || m["invoiceId"] == nil {
			t.Fatalf("submit: %d %v", code, m)
		}
		invoiceID = m["invoiceId"].(string)
		if n, _ := m["invoiceNumber"].(string); !regexp.MustCompile(`^HGR-` + strconv.Itoa(time.Now().UTC().Year()) + `-\d{6,}$`).MatchString(n) {
			t.Errorf("invoice number %q", n)
		}
		for _, c := range cookies {
			jar = append(jar, c.Name+"="+c.Value)
		}
	})
	// The buyer's retry of the same submit (its answer lost) looks the key up once and
	// answers the order: the key's row is read once per submit (issue 32; it was read twice,
	// with a failed claim between: three statements and four transactions).
	step("retry", dbtest.Counts{Query: 1, Batched: 2, Transactions: 2}, func(t *testing.T) {
		code, m, _ := submitRaw(t, st.base, "statements-1", body, "")
		if code != 200 || m["invoiceId"] != invoiceID {
			t.Fatalf("retry: %d %v, want invoice %s", code, m, invoiceID)
		}
	})
	step("receipt", dbtest.Counts{Batched: 2, Transactions: 1}, func(t *testing.T) {
		code, r := call(t, "GET", st.base+"/buy/api/receipt/"+invoiceID, "", "Cookie", strings.Join(jar, "; "))
		if code != 200 || r["total"] != "470.00" || len(asList(r["invoiceItems"])) == 0 {
			t.Fatalf("receipt: %d %v", code, r)
		}
	})
}

func asList(v any) []any { l, _ := v.([]any); return l }
