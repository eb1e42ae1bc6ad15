// Package app holds checkout's use cases: preview, validation, promo and currency checks,
// renewal price and business downgrade, over the domain, the store and the catalogue kept
// in memory.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Store is checkout's storage.
type Store interface {
	Subscription(ctx context.Context, id string) (*domain.Subscription, error)
	SubscriptionOf(ctx context.Context, accountID, email string) (*domain.Subscription, error)
	Account(ctx context.Context, accountID string, sub *domain.Subscription) (domain.Account, error)
	Promotions(ctx context.Context) (map[string]*promotion.Promotion, error)
	// PromotionUses answers the redemptions taken now (redeemed or reserved), by lower-case code.
	PromotionUses(ctx context.Context, codes []string) (map[string]int, error)
	Gifts(ctx context.Context, codes []string) (map[string]*promotion.GiftCertificate, error)
	AttemptCounter
}

// CatalogSource fetches the catalogue; nil when have is current.
type CatalogSource interface {
	Fetch(ctx context.Context, have string) (*domain.Catalog, error)
}

// Service is checkout's use cases. The catalogue and promotions are held in memory and
// refreshed in the background, so a preview of a new cart touches no database.
type Service struct {
	rules    rules.Rules
	store    Store
	source   CatalogSource
	log      *slog.Logger
	now      func() time.Time
	quoteKey []byte
	receipts ReceiptKeys
	giftCaps GiftCaps
	cat      atomic.Pointer[domain.Catalog]
	promos   atomic.Pointer[map[string]*promotion.Promotion]
	limiter  *Limiter
	orders   *order.Pipeline
	subs     SubscriptionStore
	accounts Accounts
	eligible Eligibility
	verifier HumanVerifier
	widget   HumanWidget
	geo      Geo
	submits  singleflight.Group
	// allocations is the allocation service; nil: no allocations (checkout alone).
	allocations Allocations
	// lookups throttles the e-mail look-ups per client address (nil: not throttled).
	lookups Throttle
	// accepted are the codes each cart had accepted (not counted again); perOrder is the
	// promotions one order takes.
	accepted *Accepted
	perOrder int
	// quotes are the self-contained previews a submit reuses (Quotes).
	quotes *Quotes
	// deeplinks are the app's schemes and hosts a deeplinkOnSuccess may go to.
	deeplinks Deeplinks
	// accountURL: the auto-renew confirmations' link (Options.AccountURL).
	accountURL string
	// seller is the seller's EU member state (Options.SellerCountry).
	seller string
	// vatRegistry: whether an EU VAT id is registered (checkVATID).
	vatRegistry VATRegistry
}

// Options configure a Service.
type Options struct {
	Rules    rules.Rules
	Now      func() time.Time
	QuoteKey []byte
	// GiftCaps bound gift certificate purchases per order and per buyer and day.
	GiftCaps GiftCaps
	// ReceiptKeys sign and verify the receipt cookies (none: no browser reads a receipt
	// without a session).
	ReceiptKeys ReceiptKeys
	// CodeAttempts per CodeWindow are allowed per client and per account.
	CodeAttempts int
	CodeWindow   time.Duration
	// Orders places orders (submit); Accounts creates new buyers' accounts; Verifier checks
	// the human-verification value of a submit when RecaptchaRequired (nil: not checked).
	Orders   *order.Pipeline
	Subs     SubscriptionStore
	Accounts Accounts
	Verifier HumanVerifier
	// Widget is what the pages load to get the human-verification value (public).
	Widget HumanWidget
	// Eligibility is identity's military eligibility (nil: military plans cannot be sold).
	Eligibility Eligibility
	// Allocations reads the allocation service (nil: subscriptions have no allocations).
	Allocations Allocations
	// Geo locates a buyer without a currency (nil: such buyers get USD).
	Geo Geo
	// Lookups throttles the e-mail look-ups (currency, gift and invoice validation) per
	// client address across replicas; nil: not throttled.
	Lookups Throttle
	// PromotionsPerOrder is how many promotions one order takes (0: one, they do not
	// stack; promotion.Stacking).
	PromotionsPerOrder int
	// Deeplinks are where deeplinkOnSuccess may go (ParseDeeplinks); the zero value: nowhere.
	Deeplinks Deeplinks
	// AccountURL is where the auto-renew confirmations send the subscriber, as the renewal's
	// e-mails do (RenewalOptions.ActionURL; default "/account").
	AccountURL string
	// SellerCountry is the EU member state the seller is established in (tax.SellerCountry
	// of its VAT number): a business customer there pays VAT, others in the EU are
	// reverse-charged.
	SellerCountry string
	// VATRegistry says whether an EU VAT id is registered (VIES); nil: the format only.
	VATRegistry VATRegistry
}

// New builds the service.
func New(store Store, source CatalogSource, log *slog.Logger, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Service{rules: o.Rules, store: store, source: source, log: log, now: o.Now, quoteKey: o.QuoteKey, receipts: o.ReceiptKeys, giftCaps: o.GiftCaps,
		limiter: NewLimiter(store, o.CodeAttempts, o.CodeWindow, o.Now), orders: o.Orders, subs: o.Subs, accounts: o.Accounts, eligible: o.Eligibility, verifier: o.Verifier, widget: o.Widget, allocations: o.Allocations, geo: o.Geo, lookups: o.Lookups,
		accepted: NewAccepted(100_000), quotes: NewQuotes(quotesKept), perOrder: o.PromotionsPerOrder, deeplinks: o.Deeplinks,
		seller: o.SellerCountry, vatRegistry: o.VATRegistry}
	empty := map[string]*promotion.Promotion{}
	s.promos.Store(&empty)
	if s.accountURL = o.AccountURL; s.accountURL == "" {
		s.accountURL = "/account"
	}
	return s
}

// SetCatalog installs a catalogue (tests, and the refresh loop).
func (s *Service) SetCatalog(c *domain.Catalog) { s.cat.Store(c) }

// Catalog answers the catalogue in use; Unavailable until one is loaded.
func (s *Service) Catalog() (*domain.Catalog, error) {
	c := s.cat.Load()
	if c == nil {
		return nil, errs.E(errs.Unavailable, "the catalogue is not loaded yet")
	}
	return c, nil
}

// RefreshCatalog fetches a newer catalogue if there is one; it answers whether one is loaded.
func (s *Service) RefreshCatalog(ctx context.Context) (bool, error) {
	have := ""
	if c := s.cat.Load(); c != nil {
		have = c.Version()
	}
	c, err := s.source.Fetch(ctx, have)
	if err != nil {
		return have != "", err
	}
	if c != nil {
		s.cat.Store(c)
		s.log.InfoContext(ctx, "catalogue loaded", "version", c.Version())
	}
	return true, nil
}

// livePromotions answers the promotions kept in memory, with the redemptions of the
// limited ones among codes read from the store now: the copy in memory is refreshed every
// CHECKOUT_REFRESH_INTERVAL, and a code exhausted meanwhile must be refused at once
// (issue 42). Codes without a limit cost no read.
func (s *Service) livePromotions(ctx context.Context, codes []string) (map[string]*promotion.Promotion, error) {
	all := *s.promos.Load()
	var limited []string
	for _, c := range codes {
		if p := all[strings.ToLower(strings.TrimSpace(c))]; p != nil && p.MaxRedemptions > 0 {
			limited = append(limited, p.Code)
		}
	}
	if len(limited) == 0 {
		return all, nil
	}
	uses, err := s.store.PromotionUses(ctx, limited)
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "promotions are unavailable; try again")
	}
	out := make(map[string]*promotion.Promotion, len(all))
	for k, p := range all {
		out[k] = p
	}
	for _, code := range limited {
		k := strings.ToLower(code)
		live := *all[k]
		live.Redemptions = uses[k]
		out[k] = &live
	}
	return out, nil
}

// RefreshPromotions reloads the promotions.
func (s *Service) RefreshPromotions(ctx context.Context) error {
	p, err := s.store.Promotions(ctx)
	if err != nil {
		return err
	}
	s.promos.Store(&p)
	return nil
}

// lookup finds the subscription a configuration is about: by subscription id, else by the
// account, else (for a logged-in caller only) by the session's e-mail, which identity has
// proven. A subscription of another account is ignored, unless the session manages it
// (a group parent's child, an organization's member: managesFor).
func (s *Service) lookup(ctx context.Context, subscriptionID, accountID, sessionEmail string) (*domain.Subscription, error) {
	var sub *domain.Subscription
	var err error
	if id := domain.ExtractAccountID(subscriptionID); id != "" {
		sub, err = s.store.Subscription(ctx, id)
	} else if accountID != "" {
		sub, err = s.store.SubscriptionOf(ctx, accountID, "")
		if err == nil && sub == nil && sessionEmail != "" {
			sub, err = s.store.SubscriptionOf(ctx, "", sessionEmail)
		}
	} else if sessionEmail != "" {
		// Sales mode: the customer at the counter named by e-mail only.
		sub, err = s.store.SubscriptionOf(ctx, "", sessionEmail)
	}
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
	}
	if sub != nil && accountID != "" && !strings.EqualFold(sub.AccountID, accountID) &&
		(sessionEmail == "" || !strings.EqualFold(sub.Email, sessionEmail)) && !managesFor(ctx, sub) {
		return nil, nil
	}
	return sub, nil
}

// who answers the account and the proven e-mail of a configuration: the session's when
// the caller is logged in (they win over the configuration's), else the configuration's
// account id and no proven e-mail. In sales mode the configuration names the customer at
// the counter, whom the credit-card admin vouches for: its account id and e-mail.
func who(in domain.Input) (accountID, sessionEmail string) {
	if in.SalesMode() {
		return domain.ExtractAccountID(in.AccountID), domain.NormalizeEmail(in.Email)
	}
	if in.Caller.LoggedIn {
		return domain.ExtractAccountID(in.Caller.AccountID), domain.NormalizeEmail(in.Caller.Email)
	}
	return domain.ExtractAccountID(in.AccountID), ""
}

// Caller identifies who asks: the client's key for rate limits (auth.ClientKey: IPv6 by
// its /64) and its address (human verification, logs); the proxy chain and the currency
// cookie for the default currency.
type Caller struct {
	Client string
	Addr   string
	// Chain is the X-Forwarded-For values received, then the peer (geo walks it).
	Chain []string
	// CurrencyCookie is ff_currency_choice, the currency the shell stored for the visitor.
	CurrencyCookie string
}

func (s *Service) price(ctx context.Context, in domain.Input, caller Caller, count bool) (*pricing.Preview, error) {
	return s.priceWith(ctx, in, caller, count, nil)
}

// preloaded is what the renewal pass read for a batch before pricing it: the subscription
// and, when known, its account and the allocation service's answer (price reads them
// itself otherwise).
type preloaded struct {
	sub  *domain.Subscription
	acct *domain.Account
	// alloc is the allocation service's answer for the batch (nil: asked for sub alone).
	alloc *allocationsRead
}

func (s *Service) priceWith(ctx context.Context, in domain.Input, caller Caller, count bool, pre *preloaded) (*pricing.Preview, error) {
	cat, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	if err := refuseOneOff(cat, in); err != nil {
		return nil, err
	}
	if err := inputCodes(in); err != nil {
		return nil, err
	}
	accountID, sessionEmail := who(in)
	if pre == nil {
		// A group parent or organization owner naming the account they manage a
		// subscription for prices that subscription.
		managed, err := s.managedSubscription(ctx, in)
		if err != nil {
			return nil, err
		}
		if managed != nil {
			in.SubscriptionID = managed.ID
		}
	}
	in = forCustomer(in)
	var sub *domain.Subscription
	if pre != nil {
		sub = pre.sub
	} else if sub, err = s.lookup(ctx, in.SubscriptionID, accountID, sessionEmail); err != nil {
		return nil, err
	}
	if sub != nil {
		// Balances and redemptions are kept under the subscription's account (the same
		// account, found by the session's e-mail when identity's id differs from checkout's).
		accountID = sub.AccountID
		in.Caller.Manager = pre == nil && managesFor(ctx, sub)
	}
	if strings.TrimSpace(in.Currency) == "" && !in.Military && !in.MilitaryIntl {
		// No currency sent: the subscription's, else the visitor's default (cookie,
		// location). Military carts keep their fixed currency.
		if sub != nil && sub.Currency != "" {
			in.Currency = sub.Currency
		} else {
			in.Currency, _ = s.DefaultCurrency(ctx, caller)
		}
	}
	if sub != nil && in.Country == "" && in.Zip == "" {
		// Tax follows the subscription's billing contact until the page sends another one.
		in.Country, in.Zip = sub.BillingCountry, sub.BillingZip
		if in.BusinessID == "" {
			in.BusinessID = sub.BusinessID
		}
	}
	var batch *allocationsRead
	if pre != nil {
		batch = pre.alloc
	}
	allocated := s.withAllocations(ctx, sub, cat, batch)
	cart := s.rules.Normalize(cat, in, sub)
	cart.Managed = in.Caller.Manager
	s.checkVATID(ctx, cart, in.BusinessID)
	if !allocated {
		cart.ErrorCodes = append(cart.ErrorCodes, CodeAllocationsUnavailable)
		cart.Adjustments = append(cart.Adjustments, domain.Adjustment{Action: "notice", Reason: MsgAllocationsUnavailable, Notice: true})
	}
	// A code counts as an attempt when first tried in this cart (or tried again after a
	// refusal), not each time the cart is priced again.
	codes, ck := codeKeys(cart.PromoCodes, cart.GiftCodes), cartKey(caller.Client, in.CartID, accountID, cart.Email)
	if err := s.countCodes(ctx, caller.Client, ck, firstNonEmpty(accountID, strings.ToLower(cart.Email)), codes); err != nil {
		return nil, err
	}
	promos, err := s.livePromotions(ctx, cart.PromoCodes)
	if err != nil {
		return nil, err
	}
	p := pricing.Pricing{Now: s.now(), Promotions: promos, QuoteKey: s.quoteKey, Account: domain.Account{FirstTime: sub == nil},
		PromotionsPerOrder: s.perOrder, SellerCountry: s.seller}
	if pre != nil && pre.acct != nil && accountID != "" {
		p.Account = *pre.acct
	} else if accountID != "" {
		if p.Account, err = s.store.Account(ctx, accountID, sub); err != nil {
			return nil, errs.Wrap(errs.Unavailable, err, "accounts are unavailable; try again")
		}
	}
	lockCurrency(cart, sub, p.Account)
	if len(cart.GiftCodes) > 0 {
		if p.Gifts, err = s.store.Gifts(ctx, cart.GiftCodes); err != nil {
			return nil, errs.Wrap(errs.Unavailable, err, "gift certificates are unavailable; try again")
		}
	}
	if count {
		p.Counter = NextCounter(in.Counter)
	}
	pv := pricing.PriceCart(cat, cart, p)
	vatIDCounted(cart, pv.Invoice.Tax)
	if len(codes) > 0 {
		s.remember(caller.Client, ck, acceptedKeys(cart.PromoCodes, cart.GiftCodes, pv.CodeErrors))
	}
	return pv, nil
}

// refuseOneOff refuses a subscription cart naming a one-off product (catalogue planType
// oneOff): those are sold once through a one-off cart, and in a subscription cart they
// would be priced and renewed as add-ons. The error names the field that carries the code.
func refuseOneOff(cat *domain.Catalog, in domain.Input) error {
	fields := []struct {
		name, words string
		codes       []string
	}{{"addOns", "add-ons", in.AddOns}, {"extras", "extras", in.Extras}, {"upgrade", "upgrade", []string{in.Upgrade}}}
	for _, f := range fields {
		for _, code := range f.codes {
			if e, ok := cat.Entry(strings.TrimSpace(code)); ok && e.PlanType == oneoff.PlanTypeOneOff {
				return errs.Field(f.name, fmt.Sprintf("%s (%s) in the %s (%s) is a one-off product: it is bought on its own, not with a subscription.",
					e.Title, e.Code, f.words, f.name))
			}
		}
	}
	return nil
}

// Preview prices a configuration. One naming an account the session may not act on is
// refused (mayName).
func (s *Service) Preview(ctx context.Context, in domain.Input, caller Caller) (*pricing.Preview, error) {
	if err := s.mayName(ctx, in); err != nil {
		return nil, err
	}
	pv, err := s.price(ctx, in, caller, true)
	if err == nil {
		s.rememberQuote(in, caller, pv)
	}
	return pv, err
}

// Validation is the server validation's answer.
type Validation struct {
	Preview      *pricing.Preview
	Errors       []string
	RequireLogin bool
	// Allocations are the tail allocations that end with this configuration.
	Allocations []domain.Allocation
	// OrgMember: the buyer belongs to an organization, as /buy/api/me says of the session
	// (identity's memberships), or the subscription priced is an organization's.
	OrgMember bool
}

// MsgOrgOwnerBuys refuses a business purchase by a member of an organization who may not
// manage its billing (docs/authorization.md: the owner's right).
const MsgOrgOwnerBuys = "Your account is managed by your organization: only its owner can buy business licenses for it. Please ask the owner to add the licenses."

// orgMemberBuysBusiness reports a business cart of a logged-in member of an organization
// who does not hold its billing. The spec leaves organization permissions unshown (spec 000
// §6); the page fills a member's organization in (spec 001 §6), so such a purchase would be
// the organization's, whose licences and pools only the owner changes. A member's
// individual purchase stays their own.
func orgMemberBuysBusiness(in domain.Input, cart *domain.Cart) bool {
	c := in.Caller
	if !c.LoggedIn || in.SalesMode() || c.Organization == "" || c.OrganizationBilling || !cart.Business {
		return false
	}
	return cart.Existing == nil || cart.Existing.OrganizationID == "" || cart.Existing.OrganizationID == c.Organization
}

// Messages of the login requirement (spec 000 §6; the spec does not word them).
const (
	MsgLoginRequired     = "An account already exists for this e-mail address. Please log in to continue."
	MsgLoginMultiLicense = "Please log in to buy more than one license."
)

// Validate is the validation before payment. Whether the buyer is logged in, and as whom,
// comes from the session (in.Caller), never from the request body. Asked on its own (POST
// /buy/api/invoice/validate) it tells whether an e-mail has an account, so an anonymous
// caller's is throttled as the other e-mail look-ups are; submit validates unthrottled.
func (s *Service) Validate(ctx context.Context, in domain.Input, caller Caller) (*Validation, error) {
	if anonymousEmail(in) {
		if err := s.lookupByEmail(ctx, caller.Client); err != nil {
			return nil, err
		}
	}
	return s.validate(ctx, in, caller)
}

func (s *Service) validate(ctx context.Context, in domain.Input, caller Caller) (*Validation, error) {
	if err := s.mayName(ctx, in); err != nil {
		return nil, err
	}
	pv, err := s.price(ctx, in, caller, true)
	if err != nil {
		return nil, err
	}
	return s.check(ctx, in, pv)
}

// check is validation's part after pricing: the configuration's rules, the codes' and the
// organization's refusals, the login requirement and military eligibility, which read the
// present (the e-mail's subscription, identity's eligibility) and never the price.
func (s *Service) check(ctx context.Context, in domain.Input, pv *pricing.Preview) (*Validation, error) {
	v := &Validation{Preview: pv, Errors: s.rules.Validate(pv.Cart, in), Allocations: pv.Cart.ExpiringAllocations,
		OrgMember: (in.Caller.LoggedIn && !in.SalesMode() && in.Caller.Organization != "") || (pv.Cart.Existing != nil && pv.Cart.Existing.OrganizationID != "")}
	for _, ce := range pv.CodeErrors {
		if ce.Message != "" && !contains(v.Errors, ce.Message) {
			v.Errors = append(v.Errors, ce.Message)
		}
	}
	if orgMemberBuysBusiness(in, pv.Cart) {
		v.Errors = append(v.Errors, MsgOrgOwnerBuys)
	}
	msg, err := s.loginRequired(ctx, in, pv.Cart)
	if err != nil {
		return nil, err
	}
	if msg != "" {
		v.RequireLogin = true
		v.Errors = append(v.Errors, msg)
	}
	refusal, err := s.militaryRefusal(ctx, pv.Cart)
	if err != nil {
		return nil, err
	}
	if refusal != "" {
		v.Errors = append(v.Errors, refusal)
		pv.Cart.ErrorCodes = append(pv.Cart.ErrorCodes, rules.CodeMilitaryEligibility)
	}
	return v, nil
}

// loginRequired answers why the buyer must log in first, or "" (spec 000 §4, §6): the
// configuration names an existing account (by e-mail, account id or subscription) and the
// caller is not logged in as that account; or a multi-licence purchase by a buyer who is
// not logged in. A credit-card admin selling in sales mode is exempt (docs/storefront.md);
// kiosk mode is not.
func (s *Service) loginRequired(ctx context.Context, in domain.Input, cart *domain.Cart) (string, error) {
	if in.SalesMode() {
		return "", nil
	}
	c := in.Caller
	named, err := s.namedSubscription(ctx, in)
	if err != nil {
		return "", err
	}
	if named != nil {
		as := c.LoggedIn && (strings.EqualFold(named.AccountID, domain.ExtractAccountID(c.AccountID)) ||
			strings.EqualFold(named.Email, domain.NormalizeEmail(c.Email)) || managesFor(ctx, named))
		if !as {
			return MsgLoginRequired, nil
		}
	}
	if !c.LoggedIn && cart.Quantity > 1 {
		return MsgLoginMultiLicense, nil
	}
	return "", nil
}

// namedSubscription answers the subscription of the account the configuration itself
// names (its accountId, subscriptionId or e-mail), whoever is logged in.
func (s *Service) namedSubscription(ctx context.Context, in domain.Input) (*domain.Subscription, error) {
	wrap := func(err error) error {
		return errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
	}
	if id := domain.ExtractAccountID(in.SubscriptionID); id != "" {
		sub, err := s.store.Subscription(ctx, id)
		if err != nil || sub != nil {
			return sub, wrapIf(err, wrap)
		}
	}
	email := domain.NormalizeEmail(in.Email)
	acct := domain.ExtractAccountID(in.AccountID)
	if acct == "" && !strings.Contains(email, "@") {
		acct = domain.ExtractAccountID(email)
	}
	if acct != "" {
		sub, err := s.store.SubscriptionOf(ctx, acct, "")
		if err != nil || sub != nil {
			return sub, wrapIf(err, wrap)
		}
	}
	if strings.Contains(email, "@") {
		sub, err := s.store.SubscriptionOf(ctx, "", email)
		return sub, wrapIf(err, wrap)
	}
	return nil, nil
}

// forCustomer is the configuration as the customer's own: in sales mode the session is
// the staff member's, whose account, e-mail and organization must not shape the customer's
// cart or order, so the caller is dropped (who already took the customer's identity).
func forCustomer(in domain.Input) domain.Input {
	if in.SalesMode() {
		in.Caller = domain.Caller{}
		// The customer's consent is theirs to give, not the seller's.
		in.MarketingConsent = false
	}
	return in
}

func wrapIf(err error, wrap func(error) error) error {
	if err != nil {
		return wrap(err)
	}
	return nil
}

// PromoCheck is the answer of the promo/gift code check.
type PromoCheck struct {
	Code, Kind, ErrorCode, Message, Currency string
	OK                                       bool
	DiscountInCents, BalanceInCents          int64
	PromoInfo                                []promotion.Info
}

// ValidatePromo checks one code against a configuration: a gift certificate if one has
// that code, else a promotion. Rate-limited per client and per account.
func (s *Service) ValidatePromo(ctx context.Context, code string, in domain.Input, caller Caller) (*PromoCheck, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return nil, errs.Field("code", "Please enter a code.")
	}
	if err := s.mayName(ctx, in); err != nil {
		return nil, err // loginFirst: 401 with requireLogin, as preview and validate
	}
	accountID, sessionEmail := who(in)
	acct := firstNonEmpty(accountID, strings.ToLower(firstNonEmpty(sessionEmail, domain.NormalizeEmail(in.Email))))
	if err := s.limiter.Allow(ctx, caller.Client, acct); err != nil {
		return nil, err
	}
	gifts, err := s.store.Gifts(ctx, []string{code})
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "gift certificates are unavailable; try again")
	}
	in.PromoCodes, in.GiftCodes = nil, nil
	kind := "promo"
	if gifts[strings.ToLower(code)] != nil {
		kind, in.GiftCodes = "gift", []string{code}
	} else {
		in.PromoCodes = []string{code}
	}
	// The limiter already counted this attempt; price without counting it again.
	pv, err := s.priceUnlimited(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &PromoCheck{Code: code, Kind: kind, OK: true, Currency: pv.Invoice.Currency, DiscountInCents: pv.Invoice.DiscountInCents,
		BalanceInCents: pv.Invoice.GiftCreditInCents, PromoInfo: pv.PromoInfo}
	for _, ce := range pv.CodeErrors {
		out.OK, out.ErrorCode, out.Message = false, ce.ErrorCode, ce.Message
	}
	if kind == "gift" && out.OK {
		out.BalanceInCents = gifts[strings.ToLower(code)].BalanceInCents
	}
	if out.OK {
		// Counted here: the preview of the same cart that follows does not count it again.
		s.remember(caller.Client, cartKey(caller.Client, in.CartID, accountID, firstNonEmpty(sessionEmail, domain.NormalizeEmail(in.Email))),
			codeKeys(in.PromoCodes, in.GiftCodes))
	}
	return out, nil
}

func (s *Service) priceUnlimited(ctx context.Context, in domain.Input) (*pricing.Preview, error) {
	return s.price(ctx, in, Caller{Client: unlimited}, false)
}

const unlimited = "\x00internal"

// CurrencyCheck is the answer of the currency check.
type CurrencyCheck struct {
	OK                              bool
	ErrorCode, Message, AccountCurr string
}

// ValidateCurrency says whether an account may buy in a currency: an account with a
// subscription buys in its subscription's currency, one with a stored balance in the
// balance's (as preview, validate and submit hold it: lockCurrency). Military buyers are not asked (the
// modal is suppressed for them, spec 000 §8): their currency is fixed anyway. An account id
// names whose subscription is read, so it needs the Billing right on that account, like
// GET /buy/api/currency?accountId= (docs/authorization.md); an e-mail alone stays
// anonymous, as the spec's currency lookup by e-mail is, throttled per client address.
func (s *Service) ValidateCurrency(ctx context.Context, currency, email, accountID string, military bool, client string) (*CurrencyCheck, error) {
	acct := domain.ExtractAccountID(accountID)
	if acct != "" {
		if _, err := auth.RequireRight(ctx, acct, auth.Billing); err != nil {
			return nil, err
		}
	} else if domain.NormalizeEmail(email) != "" {
		if err := s.lookupByEmail(ctx, client); err != nil {
			return nil, err
		}
	}
	cat, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	cur, ok := cat.Currency(currency)
	if !ok {
		return nil, errs.Field("currency", fmt.Sprintf("unknown currency %q", currency))
	}
	sub, err := s.store.SubscriptionOf(ctx, acct, domain.NormalizeEmail(email))
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
	}
	var held domain.Account
	if sub == nil && acct != "" {
		// No subscription: a stored balance holds the account to its currency too.
		if held, err = s.store.Account(ctx, acct, nil); err != nil {
			return nil, errs.Wrap(errs.Unavailable, err, "accounts are unavailable; try again")
		}
	}
	out := &CurrencyCheck{OK: true, AccountCurr: accountCurrency(sub, held)}
	if out.AccountCurr != "" && !military && !strings.EqualFold(out.AccountCurr, cur.Code) {
		out.OK, out.ErrorCode, out.Message = false, rules.CodeCurrencyNotAllowed, rules.MsgCurrencyNotAllowed
	}
	return out, nil
}

// RenewalPrice prices renewing a subscription as it stands (legacy plans replaced).
func (s *Service) RenewalPrice(ctx context.Context, subscriptionID string) (*pricing.Preview, error) {
	sub, err := s.subscriptionByID(ctx, subscriptionID)
	if err != nil {
		return nil, err
	}
	return s.renewalPriceOf(ctx, sub, nil, nil)
}

// RenewalPriceFor is RenewalPrice asked on the session's behalf (GET
// /buy/api/subscription/renewal-price): the price, add-ons and date of an account's
// renewal are its billing data, so the caller needs the Billing right on the subscription's
// account (docs/authorization.md), or manages the subscription for its holder (a child's
// group parent, who buys it: manages). The renewal engine asks RenewalPrice itself.
func (s *Service) RenewalPriceFor(ctx context.Context, subscriptionID string) (*pricing.Preview, error) {
	who, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	sub, err := s.subscriptionByID(ctx, subscriptionID)
	if err != nil {
		return nil, err
	}
	if err := auth.MayActOn(who, sub.AccountID, auth.Billing); err != nil && !manages(who, sub) {
		return nil, err
	}
	return s.renewalPriceOf(ctx, sub, nil, nil)
}

// subscriptionByID reads a subscription that must exist.
func (s *Service) subscriptionByID(ctx context.Context, subscriptionID string) (*domain.Subscription, error) {
	id := domain.ExtractAccountID(subscriptionID)
	if id == "" {
		return nil, errs.Field("subscriptionId", "subscriptionId must be a subscription id")
	}
	sub, err := s.lookup(ctx, id, "", "")
	if err != nil {
		return nil, err
	}
	if sub == nil {
		return nil, errs.E(errs.NotFound, "no subscription %s", id)
	}
	return sub, nil
}

// renewalPriceOf is RenewalPrice of a subscription already read (with its account when
// acct is not nil, and the batch's allocations when alloc is): the renewal pass prices a
// claimed batch without reading each again.
func (s *Service) renewalPriceOf(ctx context.Context, sub *domain.Subscription, acct *domain.Account, alloc *allocationsRead) (*pricing.Preview, error) {
	return s.priceWith(ctx, domain.Input{SubscriptionID: sub.ID, Currency: sub.Currency, Country: sub.BillingCountry, Zip: sub.BillingZip,
		BusinessID: sub.BusinessID, Military: sub.Military}, Caller{Client: unlimited}, false, &preloaded{sub: sub, acct: acct, alloc: alloc})
}

// CanDowngrade says whether a business subscription may become an individual one: not a
// group's child account, not third-party controlled, and a business subscription at all.
// It reads the account's subscription, so it needs the Billing right on that account
// (docs/authorization.md): the account named, and the subscription's own.
func (s *Service) CanDowngrade(ctx context.Context, subscriptionID, accountID string) (bool, []string, error) {
	who, err := auth.Require(ctx)
	if err != nil {
		return false, nil, err
	}
	acct := domain.ExtractAccountID(accountID)
	if acct != "" {
		if err := auth.MayActOn(who, acct, auth.Billing); err != nil {
			return false, nil, err
		}
	}
	sub, err := s.lookup(ctx, subscriptionID, acct, "")
	if err != nil {
		return false, nil, err
	}
	if sub == nil {
		return false, nil, errs.E(errs.NotFound, "no subscription for that account")
	}
	if err := auth.MayActOn(who, sub.AccountID, auth.Billing); err != nil {
		return false, nil, err
	}
	cat, err := s.Catalog()
	if err != nil {
		return false, nil, err
	}
	var problems []string
	if e, ok := cat.Entry(sub.PlanCode); !ok || (e.PlanType != "business" && sub.Quantity <= 1) {
		problems = append(problems, "This subscription is not a business subscription.")
	}
	if sub.ChildAccount() {
		problems = append(problems, rules.MsgChildAccount)
	}
	if sub.ThirdParty() {
		problems = append(problems, rules.MsgThirdParty)
	}
	if sub.BillingMethod == "QUARTERLY" && sub.PaymentMethod == "CHECK" {
		problems = append(problems, "Quarterly-billed subscriptions paid by check are changed by sales. Please contact "+s.rules.SalesContact+".")
	}
	return len(problems) == 0, problems, nil
}

// Watch refreshes the catalogue and promotions every interval until ctx ends; failures are
// logged and the copy in memory keeps serving.
func (s *Service) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.RefreshCatalog(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "catalogue refresh failed; keeping the copy in memory", "err", err.Error())
		}
		if err := s.RefreshPromotions(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "promotions refresh failed; keeping the copy in memory", "err", err.Error())
		}
	}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// NextCounter answers the counter of an answer to a request that sent sent: the next of
// the page's own quote stream (spec 000: the page keeps the latest invoice only if its
// counter is higher than the one it shows). It is the page's sequence alone, never a count
// kept per cart, account or e-mail: such a count told anyone who named an e-mail how often
// it had been priced (issue 41).
func NextCounter(sent int64) int64 { return max(sent, 0) + 1 }

// AttemptCounter counts code attempts where every replica sees them: the platform's
// shared limiter (ratelimit.PostgreSQL, in checkout's rate_limits table).
type AttemptCounter interface {
	// Count counts n calls in rule's bucket of each key, refused or not, and answers
	// whether they fitted in every bucket or how long until one more would.
	Count(ctx context.Context, keys []string, rule ratelimit.Rule, n int, now time.Time) (ok bool, wait time.Duration, err error)
}

// Limiter limits code attempts per client and per account, limit per window as the
// platform's token bucket (ratelimit.PerWindow: a burst of limit, refilled one attempt
// every window/limit), held for every replica. One statement per check.
type Limiter struct {
	store AttemptCounter
	rule  ratelimit.Rule
	off   bool
	now   func() time.Time
}

// NewLimiter allows limit attempts per window per key (limit or window 0: no limit).
func NewLimiter(store AttemptCounter, limit int, window time.Duration, now func() time.Time) *Limiter {
	return &Limiter{store: store, rule: ratelimit.PerWindow(limit, window), off: limit <= 0 || window <= 0, now: now}
}

// MsgTooManyCodes is the 429 message of the code rate limit.
const MsgTooManyCodes = "Too many promo or gift code attempts. Please wait a minute and try again."

// Allow counts an attempt of client and account and answers a resource-exhausted error
// (HTTP 429 with Retry-After) when either is over the limit. Attempts made while blocked
// count too, so a guesser that keeps trying stays blocked (for at most a window and one
// refill interval after it stops).
func (l *Limiter) Allow(ctx context.Context, client, account string) error {
	return l.AllowN(ctx, client, account, 1)
}

// AllowN is Allow for n attempts at once (n codes tried for the first time in one cart).
func (l *Limiter) AllowN(ctx context.Context, client, account string, n int) error {
	if l.off || client == unlimited || n <= 0 {
		return nil
	}
	var keys []string
	if client != "" {
		keys = append(keys, "code-attempts|client:"+client)
	}
	if account != "" {
		keys = append(keys, "code-attempts|account:"+account)
	}
	ok, wait, err := l.store.Count(ctx, keys, l.rule, n, l.now())
	if err != nil {
		return errs.Wrap(errs.Unavailable, err, "code checks are unavailable; try again")
	}
	if !ok {
		return errs.Throttled(max(wait, time.Second), "%s", MsgTooManyCodes)
	}
	return nil
}
