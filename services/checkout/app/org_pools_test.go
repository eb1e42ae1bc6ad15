package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/kafka"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
)

// TestMemberCannotRewriteTheOrganizationsPools: a plain member of Acme (no Billing on the
// organization's account, docs/authorization.md) buying Business Pro × 2 was filed under
// Acme and rewrote its pool (bought 5 USER_ALLOCATION → 7 PER_USER, a new term). The
// business purchase is now refused before any charge with a plain message, Acme's pool
// stays as it was, and the member's individual purchase is their own (issue 42 item 1).
func TestMemberCannotRewriteTheOrganizationsPools(t *testing.T) {
	t.Parallel()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	st := startStack(t, map[string]string{"KAFKA_BROKERS": strings.Join(broker.Addrs(), ",")})
	_, allocBase := startAllocation(t, st.idGRPC, broker.Addrs())
	owner, member := login(t, st.idBase, "owner@acme.hangar.test"), login(t, st.idBase, "member@acme.hangar.test")
	pool := func() string {
		_, r := call(t, "GET", allocBase+"/account/api/subscription/allocation/report", "", "Cookie", owner)
		reports, _ := r["addOnAllocationReports"].(map[string]any)
		bp, _ := reports["business_pro"].(map[string]any)
		if bp == nil {
			return ""
		}
		return fmt.Sprint(bp["bought"], " ", bp["licensingMethod"], " ", bp["termEnd"])
	}
	var before string
	eventually(t, "Acme's Business Pro pool", func() bool { before = pool(); return strings.HasPrefix(before, "5 ") })
	charges := func() int { return st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`) }
	n := charges()

	biz := `{"currency":"USD","addOns":["business_pro","included_geo_us"],"quantity":2,"organizationName":"Acme Aviation",` +
		`"isLicenseAgreementChecked":true,"isEulaChecked":true,"billingInfo":{"zipcode":"97201","country":"US"}}`
	if _, v := call(t, "POST", st.base+"/buy/api/invoice/validate", biz, "Cookie", member); v["status"] != "fail" ||
		!strings.Contains(fmt.Sprint(v["errors"]), iapp.MsgOrgOwnerBuys) {
		t.Errorf("the member's validation: %v", v)
	}
	code, m, _ := submitRaw(t, st.base, "member-business", quoted(t, st.base, biz, st.tokenize(t, "4111111111111111"), member), member)
	if code != 400 || m["message"] != iapp.MsgOrgOwnerBuys {
		t.Errorf("the member's business submit: %d %v", code, m)
	}
	if got := charges(); got != n {
		t.Errorf("%d charges for the refused purchase", got-n)
	}
	if after := pool(); after != before {
		t.Errorf("Acme's pool changed: %q → %q", before, after)
	}

	// The member's individual purchase is theirs, not the organization's.
	own := `{"currency":"USD","addOns":["performance","included_geo_us"],"billingInfo":{"zipcode":"97201","country":"US"}}`
	code, m, _ = submitRaw(t, st.base, "member-own", quoted(t, st.base, own, st.tokenize(t, "4111111111111111"), member), member)
	if code != 200 {
		t.Fatalf("the member's own purchase: %d %v", code, m)
	}
	_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", member)
	var account, org string
	if err := st.checkoutDB.QueryRow(context.Background(), `SELECT coalesce(account_id::text, ''), coalesce(organization_id::text, '')
		FROM orders WHERE invoice_id = $1`, m["invoiceId"]).Scan(&account, &org); err != nil {
		t.Fatal(err)
	}
	if account != me["accountUuid"] || org != "" {
		t.Errorf("the member's own order: account %q organization %q (member %v)", account, org, me["accountUuid"])
	}
}
