package app

import (
	"context"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/services/identity/internal/adapters"
)

// HandleMarketingConsentGiven records the marketing consent a buyer gave with a purchase
// (checkout's marketing-consent-given event) on the buyer's account, in the inbox
// transaction. The account is the order's, as checkout decided it from the buyer's
// session, and the event can only raise the consent: nobody can withdraw another account's
// consent this way, and a withdrawal the account made after the purchase stands.
func (s *Service) HandleMarketingConsentGiven(ctx context.Context, tx pgx.Tx, ev *eventsv1.MarketingConsentGiven) error {
	if ev.GetAccountId() == "" || ev.GetGivenAt() == nil {
		return nil
	}
	recorded, err := adapters.GiveMarketingConsent(ctx, tx, ev.GetAccountId(), ev.GetGivenAt().AsTime())
	if err != nil {
		return err
	}
	if !recorded {
		// Not an error: redelivery is the inbox's business; this is an unknown account or
		// a preference the account set after the purchase, which wins.
		s.log.InfoContext(ctx, "marketing consent not recorded: unknown account or a later preference",
			"account", ev.GetAccountId(), "order", ev.GetOrderId())
	}
	return nil
}
