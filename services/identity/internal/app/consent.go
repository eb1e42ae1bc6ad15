package app

import (
	"context"
	"time"
)

// ConsentGiven is the marketing consent a buyer gave with a purchase (checkout's
// marketing-consent-given event).
type ConsentGiven struct {
	Account, Order string
	GivenAt        time.Time // zero: the event did not say
}

// HandleMarketingConsentGiven records the marketing consent a buyer gave with a purchase
// on the buyer's account, in the inbox transaction of the event (in). The account is the
// order's, as checkout decided it from the buyer's session, and the event can only raise
// the consent: nobody can withdraw another account's consent this way, and a withdrawal
// the account made after the purchase stands.
func (s *Service) HandleMarketingConsentGiven(ctx context.Context, in Inbox, c ConsentGiven) error {
	if c.Account == "" || c.GivenAt.IsZero() {
		return nil
	}
	recorded, err := in.GiveMarketingConsent(ctx, c.Account, c.GivenAt)
	if err != nil {
		return err
	}
	if !recorded {
		// Not an error: redelivery is the inbox's business; this is an unknown account or
		// a preference the account set after the purchase, which wins.
		s.log.InfoContext(ctx, "marketing consent not recorded: unknown account or a later preference",
			"account", c.Account, "order", c.Order)
	}
	return nil
}
