package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// The staff rows of docs/authorization.md, route by route, with real sessions (identity,
// allocation, payments): the Members right (users and allocations of an organization's
// account) belongs to its owner, its user admins and employees; the card readers to
// credit-card admins only. Before: employees got 403 on assign, unassign and bulk-assign,
// a user admin 403 listing (and assigning) tails, and the card-reader list answered 200
// to anyone, anonymous included.
func TestStaffMatrixIsTheAuthorizationTable(t *testing.T) {
	t.Parallel()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	identityAddr, identityBase, identityDB := startIdentityDB(t, broker.Addrs())
	_, alloc := startAllocation(t, identityAddr, broker.Addrs())
	pay := startPayments(t, identityAddr)

	owner := login(t, identityBase, "owner@acme.hangar.test")
	var org string
	eventually(t, "the dev seed gives Acme its pools", func() bool {
		_, r := call(t, "GET", alloc+"/account/api/subscription/allocation/report", "", "Cookie", owner)
		reports, _ := r["addOnAllocationReports"].(map[string]any)
		org, _ = r["ownerId"].(string)
		return reports["runway_tp_pilatus"] != nil
	})

	sessions := map[string]string{"anonymous": ""}
	for who, email := range map[string]string{"employee": "employee@demo.hangar.test", "user admin": "admin@acme.hangar.test",
		"card admin": "cardadmin@demo.hangar.test", "plain member": "member@acme.hangar.test"} {
		sessions[who] = login(t, identityBase, email)
	}
	// The seeded card admin is also an employee (sales staff); docs/authorization.md's
	// card-admin row is a card admin without it.
	sessions["card admin, not an employee"] = cardAdminOnly(t, identityBase, identityDB)

	// The seed's one runway licence is N412AC's: each caller allowed assigns it (already
	// held: nothing to do), unassigns it and takes it back in bulk, so the pool is never
	// short whatever the order.
	tail := `{"addOnCodes":["runway_tp_pilatus"],"targetId":"N412AC","targetType":"TAIL","targetOwnerId":"` + org + `"}`
	bulk := `{"allocations":[{"addOnCodes":["runway_tp_pilatus"],"targetId":"N412AC","targetType":"TAIL"}]}`
	routes := []struct{ name, method, url, body string }{
		{"assign", "POST", alloc + "/account/api/subscription/allocation/assign", tail},
		{"unassign", "POST", alloc + "/account/api/subscription/allocation/unassign", tail},
		{"bulk-assign", "POST", alloc + "/account/api/subscription/allocation/bulk-assign/" + org, bulk},
		{"tails", "GET", alloc + "/account/api/subscription/allocation/tails", ""},
		{"card-reader list", "GET", pay + "/buy/api/card-reader/list", ""},
	}
	want := map[string][]int{ //  assign unassign bulk tails readers
		"employee":                    {200, 200, 200, 200, 403},
		"user admin":                  {200, 200, 200, 200, 403},
		"card admin":                  {200, 200, 200, 200, 200}, // an employee too
		"card admin, not an employee": {403, 403, 403, 200, 200}, // tails: their own account's (none)
		"plain member":                {403, 403, 403, 403, 403},
		"anonymous":                   {401, 401, 401, 401, 401},
	}
	for who, codes := range want {
		for i, rt := range routes {
			t.Run(who+"/"+rt.name, func(t *testing.T) {
				var hdr []string
				if sessions[who] != "" {
					hdr = []string{"Cookie", sessions[who]}
				}
				code, body := call(t, rt.method, rt.url, rt.body, hdr...)
				if code != codes[i] {
					t.Errorf("%s %s as %s = %d %v, want %d", rt.method, rt.url, who, code, body, codes[i])
				}
				if got, _ := body["serialNumbers"].([]any); rt.name == "card-reader list" && codes[i] == 200 && len(got) != 2 {
					t.Errorf("card-reader list as %s = %v, want both readers", who, body)
				}
			})
		}
	}
}

// cardAdminOnly creates an account, gives it the credit-card-admin flag (and no other) in
// identity's table, and answers its session cookie.
func cardAdminOnly(t *testing.T, identityBase, identityDB string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", identityBase+"/pricing/api/create-account/", strings.NewReader(
		`{"username":"sales-desk@demo.hangar.test","password":"a long enough passphrase 42","confirmPassword":"a long enough passphrase 42","is_eu":false,"consent":false}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "XSRF-TOKEN=x")
	req.Header.Set("X-XSRF-TOKEN", "x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		User struct {
			ID string `json:"account_uuid"`
		} `json:"user"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	var session string
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie {
			session = c.Name + "=" + c.Value
		}
	}
	if resp.StatusCode != 200 || out.User.ID == "" || session == "" {
		t.Fatalf("create account = %d %+v", resp.StatusCode, out)
	}
	pool, err := pgxpool.New(context.Background(), identityDB)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(context.Background(), `INSERT INTO account_flags (account_uuid, flag) VALUES ($1, 'credit_card_admin')`, out.User.ID); err != nil {
		t.Fatal(err)
	}
	return session
}
