package app_test

import (
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/kafka"
)

// TestUserAllocationDowngradeWarns: lowering a user-allocated pool below the users holding
// it ends some of their licences (the allocation service expires the newest), and the owner
// is told first, as for aircraft: validate refuses with the users' warning and lists the
// pool in allocations until the buyer echoes it (issue 42 item 6, spec 000 §4/§6).
func TestUserAllocationDowngradeWarns(t *testing.T) {
	t.Parallel()
	has := func(v any, want string) bool {
		l, _ := v.([]any)
		for _, x := range l {
			if x == want {
				return true
			}
		}
		return false
	}
	idGRPC, idBase := startIdentity(t)
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	allocGRPC, allocBase := startAllocation(t, idGRPC, broker.Addrs())
	base := start(t, map[string]string{"IDENTITY_ADDR": idGRPC, "ALLOCATION_ADDR": allocGRPC, "KAFKA_BROKERS": strings.Join(broker.Addrs(), ",")})
	owner := login(t, idBase, "owner@acme.hangar.test")
	eventually(t, "Acme's business_pro pool", func() bool {
		_, r := call(t, "GET", allocBase+"/account/api/subscription/allocation/report", "", "Cookie", owner)
		m, _ := r["addOnAllocationReports"].(map[string]any)
		return m["business_pro"] != nil
	})
	_, users := call(t, "GET", idBase+"/account/api/users", "", "Cookie", owner)
	list, _ := users["users"].([]any)
	assigned := 0
	for _, u := range list {
		id, _ := u.(map[string]any)["accountUuid"].(string)
		if assigned == 3 || id == "" {
			continue
		}
		if code, m := call(t, "POST", allocBase+"/account/api/subscription/allocation/assign",
			`{"addOnCodes":["business_pro"],"targetId":"`+id+`","targetType":"USER"}`, "Cookie", owner); code != 200 {
			t.Fatalf("assign business_pro to %s: %d %v", id, code, m)
		}
		assigned++
	}
	if assigned < 3 {
		t.Fatalf("Acme has fewer than three users: %v", users)
	}
	const warning = "Some of your users lose their licences with this change. Confirm to continue."
	cart := func(qty string, extra string) string {
		return `{"addOns":["business_pro","included_geo_us","logbook","runway_tp_pilatus","efb_bridge"],"quantity":` + qty +
			`,"isLicenseAgreementChecked":true,"isEulaChecked":true` + extra + `}`
	}
	// Five licences, three users: nobody loses one.
	if _, m := call(t, "POST", base+"/buy/api/invoice/validate", cart("5", ""), "Cookie", owner); has(m["errors"], warning) {
		t.Errorf("keeping the pool: %v", m)
	}
	// Two licences (a business's least), three users: one user's licence ends.
	_, m := call(t, "POST", base+"/buy/api/invoice/validate", cart("2", ""), "Cookie", owner)
	allocs, _ := m["allocations"].([]any)
	var users0 map[string]any
	for _, a := range allocs {
		if x, _ := a.(map[string]any); x["targetType"] == "USER" {
			users0 = x
		}
	}
	if m["status"] != "fail" || !has(m["errors"], warning) || users0 == nil || !has(users0["addOnCodes"], "business_pro") {
		t.Fatalf("lowering below the users: %v", m)
	}
	// The count that keeps every user's licence, for the page's "Keep them".
	if n, _ := users0["assigned"].(float64); n < 3 {
		t.Errorf("the users' pool answers assigned %v, want the users holding it (>= 3): %v", users0["assigned"], users0)
	}
	echo := `,"expiredAllocations":[{"targetType":"USER","targetId":"` + users0["targetId"].(string) + `","addOnCodes":["business_pro"]}]`
	if _, m := call(t, "POST", base+"/buy/api/invoice/validate", cart("2", echo), "Cookie", owner); has(m["errors"], warning) {
		t.Errorf("acknowledged: %v", m)
	}
}
