package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/services/identity/internal/domain"
)

// InboxTx is the store inside the transaction in which the inbox consumer records an event:
// its writes commit, or roll back, with the event's inbox row, so a redelivered event
// changes nothing. It is the app's Inbox.
type InboxTx struct {
	tx   pgx.Tx
	prop propagation.TextMapPropagator
}

// InTx binds the event writes to the inbox transaction tx.
func InTx(tx pgx.Tx) InboxTx { return InboxTx{tx: tx} }

// InTxPropagating is InTx for a handler that publishes events (outbox, same
// transaction), their trace context carried by prop.
func InTxPropagating(tx pgx.Tx, prop propagation.TextMapPropagator) InboxTx {
	return InboxTx{tx: tx, prop: prop}
}

// PutEntitlements records subscription-changed events in the inbox transaction, with the effect of recording
// them one after another: for each account, the latest version of its subscription wins
// (another subscription of the account replaces it). The events go in rounds (an account's
// first event in the first, its second in the second, ...), each round one multi-row
// statement (one statement cannot update a row twice), all pipelined in one round trip.
func (t InboxTx) PutEntitlements(ctx context.Context, es []domain.AccountEntitlement) error {
	var rounds [][]domain.AccountEntitlement
	seen := make(map[string]int, len(es))
	for _, e := range es {
		r := seen[e.Account]
		seen[e.Account]++
		if r == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[r] = append(rounds[r], e)
	}
	b := &pgx.Batch{}
	for _, round := range rounds {
		n := len(round)
		accounts, subs, plans, statuses := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		versions, addOns := make([]int64, n), make([][]string, n)
		for i, e := range round {
			accounts[i], subs[i], plans[i], statuses[i], versions[i] = e.Account, e.SubscriptionID, e.PlanCode, e.Status, e.Version
			addOns[i] = e.AddOns
			if addOns[i] == nil {
				addOns[i] = []string{}
			}
		}
		// add_ons travel as one JSON array of arrays: unnest cannot take a ragged text[][].
		addOnsJSON, err := json.Marshal(addOns)
		if err != nil {
			return fmt.Errorf("encode add-ons: %w", err)
		}
		b.Queue(`INSERT INTO subscription_entitlements (account_uuid, subscription_id, plan_code, add_ons, status, version)
		SELECT u.account, u.sub, u.plan, ARRAY(SELECT jsonb_array_elements_text($6::jsonb -> (u.n - 1)::int)), u.status, u.version
		FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY AS u(account, sub, plan, status, version, n)
		ON CONFLICT (account_uuid) DO UPDATE SET subscription_id = EXCLUDED.subscription_id, plan_code = EXCLUDED.plan_code,
		add_ons = EXCLUDED.add_ons, status = EXCLUDED.status, version = EXCLUDED.version, updated_at = now()
		WHERE subscription_entitlements.subscription_id <> EXCLUDED.subscription_id
		   OR subscription_entitlements.version < EXCLUDED.version`,
			accounts, subs, plans, statuses, versions, addOnsJSON)
	}
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store entitlements: %w", err)
	}
	return nil
}

// Entitlement answers an account's subscription, or ok false when checkout reported none.
func (s *Store) Entitlement(ctx context.Context, account string) (domain.Entitlement, bool, error) {
	var e domain.Entitlement
	if !plausibleUUID(account) {
		return e, false, nil
	}
	err := s.pool.QueryRow(ctx, `SELECT subscription_id, plan_code, add_ons, status, version FROM subscription_entitlements
		WHERE account_uuid = $1`, account).Scan(&e.SubscriptionID, &e.PlanCode, &e.AddOns, &e.Status, &e.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("read entitlement: %w", err)
	}
	return e, true, nil
}
