package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/servicetest"
	payments "github.com/hangar/hangar/services/payments/app"
)

// startPayments runs the real payments service with two card readers, resolving sessions
// at identity, and answers its REST base URL.
func startPayments(t *testing.T, identityGRPC string) string {
	t.Helper()
	var cfg payments.Config
	if err := config.LoadFrom(&cfg, lookup(map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": dbtest.New(t), "SHUTDOWN_TIMEOUT": "2s", "IDENTITY_ADDR": identityGRPC, "TRUSTED_PROXIES": "0",
		"PAYMENTS_CARD_READERS": "RDR-0001,RDR-0002", "LOG_LEVEL": "warn"})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := payments.New(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, a)
	_, h, _ := a.Addrs()
	return "http://" + h
}

// The staff rows of docs/authorization.md, route by route, with real sessions: the
// Members right (users and allocations of an organization's account) belongs to its owner,
// its user admins and employees; the card readers to credit-card admins only. Before:
// employees got 403 on assign, unassign and bulk-assign, a user admin 403 listing (and
// assigning) tails, and the card-reader list answered 200 to anyone, anonymous included.
func TestStaffMatrixIsTheAuthorizationTable(t *testing.T) {
	s := start(t)
	pay := startPayments(t, s.identityGRPC)
	owner := login(t, s, "owner@acme.hangar.test")
	eventually(t, "the dev seed gives Acme its pools", func() bool { return pool(t, s, owner, "business_pro") != nil })
	_, r := call(t, s, owner, "GET", "/account/api/subscription/allocation/report", "")
	org := r["ownerId"].(string)

	sessions := map[string]string{"anonymous": ""}
	for who, email := range map[string]string{"employee": "employee@demo.hangar.test", "user admin": "admin@acme.hangar.test",
		"card admin": "cardadmin@demo.hangar.test", "plain member": "member@acme.hangar.test"} {
		sessions[who] = login(t, s, email)
	}
	// The seeded card admin is also an employee (sales staff); docs/authorization.md's
	// card-admin row is a card admin without it.
	sessions["card admin, not an employee"] = s.cardAdminOnly(t)

	// The seed's one runway licence is N412AC's: each caller allowed assigns it (already
	// held: nothing to do), unassigns it and takes it back in bulk, so the pool is never
	// short whatever the order.
	tail := `{"addOnCodes":["runway_tp_pilatus"],"targetId":"N412AC","targetType":"TAIL","targetOwnerId":"` + org + `"}`
	bulk := `{"allocations":[{"addOnCodes":["runway_tp_pilatus"],"targetId":"N412AC","targetType":"TAIL"}]}`
	type route struct{ name, base, method, path, body string }
	routes := []route{
		{"assign", s.allocation, "POST", "/account/api/subscription/allocation/assign", tail},
		{"unassign", s.allocation, "POST", "/account/api/subscription/allocation/unassign", tail},
		{"bulk-assign", s.allocation, "POST", "/account/api/subscription/allocation/bulk-assign/" + org, bulk},
		{"tails", s.allocation, "GET", "/account/api/subscription/allocation/tails", ""},
		{"card-reader list", pay, "GET", "/buy/api/card-reader/list", ""},
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
				code, body := do(t, rt.base, sessions[who], rt.method, rt.path, rt.body)
				if code != codes[i] {
					t.Errorf("%s %s as %s = %d %v, want %d", rt.method, rt.path, who, code, body, codes[i])
				}
				if rt.name == "card-reader list" && code == 200 {
					if got, _ := body["serialNumbers"].([]any); len(got) != 2 {
						t.Errorf("card-reader list as %s = %v, want both readers", who, body)
					}
				}
			})
		}
	}
}

// do is call against any service's base URL.
func do(t *testing.T, base, session, method, path, body string) (int, map[string]any) {
	t.Helper()
	return call(t, stack{allocation: base}, session, method, path, body)
}

// cardAdminOnly creates an account, gives it the credit-card-admin flag (and no other) in
// identity's table, and answers its session cookie.
func (s stack) cardAdminOnly(t *testing.T) string {
	t.Helper()
	req, _ := http.NewRequest("POST", s.identity+"/pricing/api/create-account/", strings.NewReader(
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
			AccountUUID string `json:"account_uuid"`
			AccountUuid string `json:"accountUuid"`
		} `json:"user"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	id := out.User.AccountUUID + out.User.AccountUuid
	var session string
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie {
			session = c.Name + "=" + c.Value
		}
	}
	if resp.StatusCode != 200 || id == "" || session == "" {
		t.Fatalf("create account = %d %+v", resp.StatusCode, out)
	}
	pool, err := pgxpool.New(context.Background(), s.identityDB)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(context.Background(), `INSERT INTO account_flags (account_uuid, flag) VALUES ($1, 'credit_card_admin')`, id); err != nil {
		t.Fatal(err)
	}
	return session
}
