package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/allocation/app"
	"github.com/hangar/hangar/services/allocation/internal/adapters"
	identity "github.com/hangar/hangar/services/identity/app"
)

func lookup(vars map[string]string) config.Lookup {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

type stack struct {
	identity, allocation string
	brokers              []string
}

// start runs the real identity (with its demo accounts) and allocation (with its dev seed)
// on throwaway databases and an in-process Kafka-protocol broker.
func start(t *testing.T) stack {
	t.Helper()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	brokers := strings.Join(broker.Addrs(), ",")
	base := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"SHUTDOWN_TIMEOUT": "2s", "KAFKA_BROKERS": brokers, "TRUSTED_PROXIES": "0", "LOG_LEVEL": "warn"}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{"DATABASE_URL": dbtest.New(t)}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	var icfg identity.Config
	if err := config.LoadFrom(&icfg, lookup(with(map[string]string{"IDENTITY_DEV_SEED": "true",
		"IDENTITY_ARGON2_MEMORY_KIB": "64", "IDENTITY_ARGON2_TIME": "1"}))); err != nil {
		t.Fatal(err)
	}
	ictx, icancel := context.WithCancel(context.Background())
	id, err := identity.New(ictx, icfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ictx, icancel, id)
	idGRPC, idHTTP, _ := id.Addrs()

	var cfg app.Config
	if err := config.LoadFrom(&cfg, lookup(with(map[string]string{"IDENTITY_ADDR": idGRPC, "ALLOCATION_DEV_SEED": "true"}))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, a)
	_, httpAddr, _ := a.Addrs()
	return stack{identity: "http://" + idHTTP, allocation: "http://" + httpAddr, brokers: broker.Addrs()}
}

// login answers the session cookie of a demo account.
func login(t *testing.T, s stack, email string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", s.identity+"/pricing/api/login", strings.NewReader(`{"username":"`+email+`","password":"`+identity.DemoPassword+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "XSRF-TOKEN=x")
	req.Header.Set("X-XSRF-TOKEN", "x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "__Host-hangar_session" {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("login %s: %d, no session", email, resp.StatusCode)
	return ""
}

func call(t *testing.T, s stack, session, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, s.allocation+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	// A session's XSRF token is its own (auth.SessionXSRF).
	xsrf := auth.SessionXSRF(strings.TrimPrefix(session, auth.SessionCookie+"="))
	req.Header.Set("Cookie", "XSRF-TOKEN="+xsrf+"; "+session)
	req.Header.Set("X-XSRF-TOKEN", xsrf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// eventually polls cond until it holds or 20 s pass (the consumer is asynchronous).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func pool(t *testing.T, s stack, session, code string) map[string]any {
	_, r := call(t, s, session, "GET", "/account/api/subscription/allocation/report", "")
	reports, _ := r["addOnAllocationReports"].(map[string]any)
	p, _ := reports[code].(map[string]any)
	return p
}

func TestAllocationThroughTheStack(t *testing.T) {
	t.Parallel()
	s := start(t)
	owner := login(t, s, "owner@acme.hangar.test")
	eventually(t, "the dev seed gives Acme its pools", func() bool { return pool(t, s, owner, "business_pro") != nil })
	_, r := call(t, s, owner, "GET", "/account/api/subscription/allocation/report", "")
	org := r["ownerId"].(string)

	// The owner lists users (joined from identity) and assigns a licence to the member.
	code, users := call(t, s, owner, "GET", "/account/api/users/by-allocation/?userFilters=member@&size=5", "")
	list, _ := users["users"].([]any)
	if code != 200 || len(list) != 1 {
		t.Fatalf("users by allocation = %d %v", code, users)
	}
	member := list[0].(map[string]any)["accountUuid"].(string)
	code, body := call(t, s, owner, "POST", "/account/api/subscription/allocation/assign",
		`{"addOnCodes":["business_pro"],"targetId":"`+member+`","targetType":"USER"}`)
	if code != 200 {
		t.Fatalf("assign = %d %v", code, body)
	}

	// Roles over HTTP: anonymous 401, a member 403 on assign but reads their own.
	memberSession := login(t, s, "member@acme.hangar.test")
	if code, _ := call(t, s, "", "GET", "/account/api/subscription/allocation/report", ""); code != 401 {
		t.Errorf("anonymous report = %d, want 401", code)
	}
	if code, _ := call(t, s, memberSession, "POST", "/account/api/subscription/allocation/assign",
		`{"addOnCodes":["runway_tp_pilatus"],"targetId":"N500AC","targetType":"TAIL"}`); code != 403 {
		t.Errorf("member assign = %d, want 403", code)
	}
	code, own := call(t, s, memberSession, "GET", "/account/api/subscription/allocations/?users=", "")
	if got, _ := own["allocations"].([]any); code != 200 || len(got) != 1 {
		t.Errorf("member's own allocations = %d %v", code, own)
	}

	// Bulk beyond the pool (the one runway licence is N412AC's): 400 naming the code; nothing changes.
	code, body = call(t, s, owner, "POST", "/account/api/subscription/allocation/bulk-assign/"+org,
		`{"allocations":[{"addOnCodes":["runway_tp_pilatus"],"targetId":"N500AC","targetType":"TAIL"},{"addOnCodes":["runway_tp_pilatus"],"targetId":"N612AC","targetType":"TAIL"}]}`)
	if code != 400 || !strings.Contains(body["message"].(string), "Insufficient addOn quantity for runway_tp_pilatus") {
		t.Errorf("bulk beyond the pool = %d %v", code, body)
	}
	if p := pool(t, s, owner, "runway_tp_pilatus"); p["assigned"] != 1.0 {
		t.Errorf("after a refused bulk: %v", p)
	}

	// Buying three more licences: checkout publishes subscription-changed; the pool rises.
	seed := app.SeedEvent(org, time.Now())
	seed.Version, seed.ChangedAt, seed.Change = 2, timestamppb.Now(), "change"
	seed.AddOns[0].Quantity, seed.Quantity = 8, 8
	payload, _ := proto.Marshal(seed)
	p := kafka.NewProducer(s.brokers, telemetry.Propagator())
	defer p.Close()
	msg := func(id string, payload []byte) kafkago.Message {
		return kafkago.Message{Topic: events.TopicSubscriptionChanged, Key: []byte(org), Value: payload,
			Headers: []kafkago.Header{{Key: kafka.HeaderID, Value: []byte(id)}}}
	}
	if err := p.Publish(context.Background(), msg("ev-2", payload)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the pool rises to 8", func() bool { return pool(t, s, owner, "business_pro")["bought"] == 8.0 })

	// The same event again, an older one late, then a newer one: only the newer counts.
	old, _ := proto.Marshal(app.SeedEvent(org, time.Now()))
	seed.Version, seed.ChangedAt = 3, timestamppb.Now()
	seed.AddOns[0].Quantity = 9
	newer, _ := proto.Marshal(seed)
	if err := p.Publish(context.Background(), msg("ev-2", payload), msg("ev-1", old), msg("ev-3", newer)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the pool follows the newest version", func() bool { return pool(t, s, owner, "business_pro")["bought"] == 9.0 })
}

// The inbox table of the migrations is the platform's (the consumer writes it).
func TestInboxSchemaIsThePlatforms(t *testing.T) {
	t.Parallel()
	b, err := adapters.Migrations.ReadFile("migrations/0002_platform_inbox.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), strings.TrimSpace(kafka.InboxSchema)) {
		t.Errorf("0002_platform_inbox.sql does not contain kafka.InboxSchema:\n%s", kafka.InboxSchema)
	}
}
