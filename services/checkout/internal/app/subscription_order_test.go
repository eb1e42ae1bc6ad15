package app_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Issue 32: the subscription-changed event of a subscription order said autoRenew true
// whatever the subscription's setting (the order's event was built apart from
// subscription.Changed, with AutoRenew hard-coded). A change to a subscription whose
// auto-renew is off tells identity and allocation it is still off; a new one is on.
func TestSubscriptionOrderEventCarriesStoredAutoRenew(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	ctx := context.Background()
	pilot := app.SeedSubscriptionID(app.SeedPilot)
	var account, email, currency, plan string
	var qty int
	var addOns []string
	if err := e.pool.QueryRow(ctx, `UPDATE subscriptions SET auto_renew = false WHERE id = $1
		RETURNING account_id::text, email, currency, plan_code, quantity, add_ons`, pilot).Scan(&account, &email, &currency, &plan, &qty, &addOns); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id string
		existing bool
		want     bool
	}{
		{"change with auto-renew off", pilot, true, false},
		{"new subscription", uuid.NewString(), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := e.clock.Now()
			detail, err := json.Marshal(app.SubscriptionDetail{SubscriptionID: tc.id, Existing: tc.existing, Change: "change",
				PlanCode: plan, AddOns: addOns, Quantity: qty, TermStart: now, TermEnd: now.AddDate(1, 0, 0)})
			if err != nil {
				t.Fatal(err)
			}
			pu := &order.Purchase{Kind: order.KindSubscription, AccountID: account, Email: email, Currency: currency, Detail: detail}
			placed, err := e.pipe.Place(ctx, "auto-renew-"+tc.id, "h", pu, order.Payment{})
			if err != nil {
				t.Fatal(err)
			}
			var payload []byte
			if err := e.pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id DESC LIMIT 1`,
				events.TopicSubscriptionChanged).Scan(&payload); err != nil {
				t.Fatal(err)
			}
			var ev eventsv1.SubscriptionChanged
			if err := proto.Unmarshal(payload, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetSubscriptionId() != tc.id || ev.GetOrderId() != placed.InvoiceID || ev.GetStatus() != "active" {
				t.Fatalf("event %v, want subscription %s of order %s, active", &ev, tc.id, placed.InvoiceID)
			}
			if ev.GetAutoRenew() != tc.want {
				t.Errorf("autoRenew = %v, want %v (the subscription's)", ev.GetAutoRenew(), tc.want)
			}
			var version int64
			if err := e.pool.QueryRow(ctx, `SELECT version FROM subscriptions WHERE id = $1`, tc.id).Scan(&version); err != nil {
				t.Fatal(err)
			}
			if ev.GetVersion() != version {
				t.Errorf("version = %d, want the row's %d", ev.GetVersion(), version)
			}
		})
	}
}
