package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/adapters"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/ports"
)

// inbox binds the event writes to the inbox transaction, as the wiring does.
func inbox(tx pgx.Tx) iapp.Inbox { return adapters.InTx(tx) }

// envelope is ev as the inbox consumer hands it to a handler.
func envelope(t testing.TB, ev proto.Message) kafka.Envelope {
	t.Helper()
	b, err := proto.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Envelope{ID: fmt.Sprintf("ev-%p", ev), Type: string(proto.MessageName(ev)), Data: b}
}

// give handles a marketing-consent-given event for account at givenAt in its own
// transaction, through the port's inbox handler, as the inbox consumer does.
func (e *env) give(t *testing.T, account string, givenAt time.Time) {
	t.Helper()
	ctx := context.Background()
	env := envelope(t, &eventsv1.MarketingConsentGiven{AccountId: account, OrderId: "order-1", Source: "oneoff", GivenAt: timestamppb.New(givenAt)})
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		return ports.MarketingConsentGiven(e.svc, inbox)(ctx, tx, env)
	})
	if err != nil {
		t.Fatalf("HandleMarketingConsentGiven(%s) = %v", account, err)
	}
}

// consent answers the account's marketing consent as GET eu_consent reads it, and the
// stored marketingNotificationsEnabled preference.
func (e *env) consent(t *testing.T, account string) (consent bool, pref any) {
	t.Helper()
	p, err := e.svc.Profile(context.Background(), account)
	if err != nil {
		t.Fatal(err)
	}
	prefs, err := e.svc.Preferences(context.Background(), account)
	if err != nil {
		t.Fatal(err)
	}
	return p.Account.MarketingConsent, prefs["marketingNotificationsEnabled"]
}

func TestMarketingConsentFromAPurchase(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()

	t.Run("a purchase's consent is recorded on the buyer's account only", func(t *testing.T) {
		buyer := e.account(t, "buyer@example.com").Account.UUID
		other := e.account(t, "other@example.com").Account.UUID
		if c, _ := e.consent(t, buyer); c {
			t.Fatal("a new account without the checkbox has marketing consent")
		}
		e.give(t, buyer, time.Now())
		if c, pref := e.consent(t, buyer); !c || pref != true {
			t.Errorf("buyer after the event: consent %v, preference %v, want true, true", c, pref)
		}
		if c, pref := e.consent(t, other); c || pref != nil {
			t.Errorf("another account after the buyer's event: consent %v, preference %v, want false, unset", c, pref)
		}
		// The consent history says it came from the purchase, when, and what it was before.
		var source string
		var previous *bool
		var at time.Time
		if err := e.pool.QueryRow(ctx, `SELECT source, previous, changed_at FROM consent_history WHERE account_uuid = $1`, buyer).
			Scan(&source, &previous, &at); err != nil || source != "purchase" || previous == nil || *previous || at.IsZero() {
			t.Errorf("consent history of the buyer = %q, previous %v, at %v (%v); want purchase, false, the order's time", source, previous, at, err)
		}
	})

	t.Run("a withdrawal made after the purchase wins over its late event", func(t *testing.T) {
		acct := e.account(t, "late@example.com").Account.UUID
		purchase := time.Now().Add(-time.Minute)
		if _, err := e.svc.UpdatePreferences(ctx, acct, map[string]any{"marketingNotificationsEnabled": false}); err != nil {
			t.Fatal(err)
		}
		e.give(t, acct, purchase)
		if c, pref := e.consent(t, acct); c || pref != false {
			t.Errorf("late event after a withdrawal: consent %v, preference %v, want false, false", c, pref)
		}
		// A purchase after the withdrawal gives the consent again.
		e.give(t, acct, time.Now().Add(time.Minute))
		if c, pref := e.consent(t, acct); !c || pref != true {
			t.Errorf("purchase after the withdrawal: consent %v, preference %v, want true, true", c, pref)
		}
	})

	t.Run("an unknown or malformed account is skipped, not a poison event", func(t *testing.T) {
		e.give(t, "00000000-0000-4000-8000-0000000000ff", time.Now())
		e.give(t, "not-a-uuid", time.Now())
	})
}
