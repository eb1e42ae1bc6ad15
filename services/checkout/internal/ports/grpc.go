// Package ports serves checkout over gRPC (and REST through the gateway): it converts
// between the contract and the domain and calls the use cases; nothing else.
package ports

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// GRPC implements checkoutv1.CheckoutServiceServer.
type GRPC struct {
	checkoutv1.UnimplementedCheckoutServiceServer
	svc            *app.Service
	trustedProxies int
	purchases      *app.Purchases // gift certificates and one-off carts (purchases.go)
	methods        PaymentMethods
	renewals       *app.AccountRenewals // the /account page's renewal state (renewal.go)
	seller         Seller               // printed on receipts (GetReceipt) as on their PDF
}

// WithSeller sets the seller every receipt names.
func (s *GRPC) WithSeller(v Seller) *GRPC { s.seller = v; return s }

// NewGRPC serves svc; trustedProxies is the number of proxies in front of the service that
// append to X-Forwarded-For (auth.ClientIP).
func NewGRPC(svc *app.Service, trustedProxies int) *GRPC {
	return &GRPC{svc: svc, trustedProxies: trustedProxies}
}

// caller identifies the client for rate limits: the platform's client key of the address
// the trusted proxies saw (the client-supplied part of X-Forwarded-For is ignored, so it
// cannot dodge the limit; an IPv6 client is its /64, so neither can a new address of it).
func (s *GRPC) caller(ctx context.Context) app.Caller {
	ip := auth.ClientIP(ctx, s.trustedProxies)
	if ip == "" {
		ip = "unknown"
	}
	key := auth.ClientKey(ctx, s.trustedProxies)
	if key == "" {
		key = "unknown"
	}
	return app.Caller{Client: key, Addr: ip, Chain: proxyChain(ctx), CurrencyCookie: cookie(ctx, currencyCookie)}
}

// currencyCookie is the visitor's currency as the shell stored it (docs/storefront.md).
const currencyCookie = "ff_currency_choice"

// proxyChain answers the X-Forwarded-For values of the request with the peer last: through
// grpc-gateway the header already ends with the HTTP peer; a direct gRPC call has only its
// peer. Geo decides which hops to believe.
func proxyChain(ctx context.Context) []string {
	if v := metadata.ValueFromIncomingContext(ctx, "x-forwarded-for"); len(v) > 0 {
		return v
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		if host, _, err := net.SplitHostPort(p.Addr.String()); err == nil {
			return []string{host}
		}
	}
	return nil
}

// cookie answers a cookie of the browser's request (grpc-gateway forwards the header).
func cookie(ctx context.Context, name string) string {
	for _, h := range metadata.ValueFromIncomingContext(ctx, "grpcgateway-cookie") {
		cs, err := http.ParseCookie(h)
		if err != nil {
			continue
		}
		for _, c := range cs {
			if c.Name == name {
				return c.Value
			}
		}
	}
	return ""
}

// input converts the configuration and adds who is asking, from the session.
func (s *GRPC) input(ctx context.Context, c *checkoutv1.Configuration) (domain.Input, error) {
	in, err := input(c)
	if err != nil {
		return in, err
	}
	in.Caller = sessionCaller(ctx)
	return in, nil
}

func (s *GRPC) PreviewInvoice(ctx context.Context, req *checkoutv1.PreviewInvoiceRequest) (*checkoutv1.PreviewInvoiceResponse, error) {
	in, err := s.input(ctx, req.GetConfiguration())
	if err != nil {
		return nil, err
	}
	pv, err := s.svc.Preview(ctx, in, s.caller(ctx))
	if err != nil {
		return nil, refusal(err)
	}
	return previewResponse(pv)
}

func (s *GRPC) ValidateInvoice(ctx context.Context, req *checkoutv1.ValidateInvoiceRequest) (*checkoutv1.ValidateInvoiceResponse, error) {
	in, err := s.input(ctx, req.GetConfiguration())
	if err != nil {
		return nil, err
	}
	v, err := s.svc.Validate(ctx, in, s.caller(ctx))
	if err != nil {
		return nil, refusal(err)
	}
	inv, err := invoice(&v.Preview.Invoice)
	if err != nil {
		return nil, err
	}
	status := "ok"
	if len(v.Errors) > 0 {
		status = "fail"
	}
	sub := &checkoutv1.Subscription{} // a new subscription: the field is there, empty (spec 000 §7)
	if v.Preview.Cart.Existing != nil {
		sub = s.subscriptionProto(v.Preview.Cart.Existing, time.Now())
	}
	return &checkoutv1.ValidateInvoiceResponse{Status: status, Errors: v.Errors, RequireLogin: &v.RequireLogin, Invoice: inv, Subscription: sub,
		PromoInfoRequirements: promoInfo(v.Preview.PromoInfo), Counter: ptr(c32(v.Preview.Invoice.Counter)),
		Account: v.Preview.Cart.AccountID, SubscriptionAccount: subAccount(v.Preview.Cart), IsOrgMember: ptr(v.OrgMember),
		Allocations: allocations(v.Allocations), ErrorCodes: v.Preview.Cart.ErrorCodes}, nil
}

func allocations(list []domain.Allocation) []*checkoutv1.Allocation {
	var out []*checkoutv1.Allocation
	for _, a := range list {
		pa := &checkoutv1.Allocation{AddOnCodes: a.AddOnCodes, TargetId: a.TargetID, TargetOwnerId: a.TargetOwnerID, TargetType: a.TargetType}
		if a.Assigned > 0 {
			pa.Assigned = ptr(c32(int64(a.Assigned)))
		}
		out = append(out, pa)
	}
	return out
}

func subAccount(c *domain.Cart) string {
	if c.Existing != nil {
		return c.Existing.AccountID
	}
	return ""
}

func (s *GRPC) ValidatePromo(ctx context.Context, req *checkoutv1.ValidatePromoRequest) (*checkoutv1.ValidatePromoResponse, error) {
	in, err := s.input(ctx, req.GetConfiguration())
	if err != nil {
		return nil, err
	}
	r, err := s.svc.ValidatePromo(ctx, req.GetCode(), in, s.caller(ctx))
	if err != nil {
		return nil, err
	}
	status := "ok"
	if !r.OK {
		status = "fail"
	}
	d, err := i32(r.DiscountInCents)
	if err != nil {
		return nil, err
	}
	b, err := i32(r.BalanceInCents)
	if err != nil {
		return nil, err
	}
	return &checkoutv1.ValidatePromoResponse{Status: status, Code: r.Code, Kind: r.Kind, ErrorCode: r.ErrorCode, Message: r.Message,
		PromoInfoRequirements: promoInfo(r.PromoInfo), DiscountInCents: d, BalanceInCents: b, Currency: r.Currency}, nil
}

func (s *GRPC) ValidateCurrency(ctx context.Context, req *checkoutv1.ValidateCurrencyRequest) (*checkoutv1.ValidateCurrencyResponse, error) {
	r, err := s.svc.ValidateCurrency(ctx, req.GetCurrency(), req.GetEmail(), req.GetAccountId(), req.GetMilitary(), s.caller(ctx).Client)
	if err != nil {
		return nil, err
	}
	status := "ok"
	if !r.OK {
		status = "fail"
	}
	return &checkoutv1.ValidateCurrencyResponse{Status: status, ErrorCode: r.ErrorCode, Message: r.Message, AccountCurrency: r.AccountCurr}, nil
}

func (s *GRPC) GetRenewalPrice(ctx context.Context, req *checkoutv1.GetRenewalPriceRequest) (*checkoutv1.GetRenewalPriceResponse, error) {
	pv, err := s.svc.RenewalPriceFor(ctx, req.GetSubscriptionId())
	if err != nil {
		return nil, err
	}
	inv, err := invoice(&pv.Invoice)
	if err != nil {
		return nil, err
	}
	amt, err := i32(pv.RenewalAmount)
	if err != nil {
		return nil, err
	}
	return &checkoutv1.GetRenewalPriceResponse{SubscriptionId: pv.Cart.Existing.ID, Currency: pv.Invoice.Currency, Invoice: inv,
		RenewalAmountInCents: amt, RenewalDate: day(pv.RenewalDate), AddOns: pv.Cart.AddOns, LegacyPlanReplaced: &pv.Cart.LegacyReplaced}, nil
}

func (s *GRPC) CanDowngradeBusiness(ctx context.Context, req *checkoutv1.CanDowngradeBusinessRequest) (*checkoutv1.CanDowngradeBusinessResponse, error) {
	ok, problems, err := s.svc.CanDowngrade(ctx, req.GetSubscriptionId(), req.GetAccountId())
	if err != nil {
		return nil, err
	}
	return &checkoutv1.CanDowngradeBusinessResponse{CanDowngrade: &ok, Errors: problems}, nil
}

// input converts the contract's configuration to the domain's. isLoggedIn is ignored: the
// session says who is asking.
func input(c *checkoutv1.Configuration) (domain.Input, error) {
	if c == nil {
		return domain.Input{}, nil
	}
	in := domain.Input{
		Email: c.GetEmail(), OrganizationName: c.GetOrganizationName(), BusinessID: c.GetBusinessIdentificationNo(),
		AccountID: c.GetAccountId(), SubscriptionID: c.GetSubscriptionId(), Currency: c.GetCurrency(), AddOns: c.GetAddOns(),
		Quantity: quantity(c.GetQuantity()), Military: c.GetMilitary(), MilitaryIntl: c.GetMilitaryInternational(), Bundle: c.GetHjopaBundle(),
		IsBusiness: c.GetIsBusiness(), IsRenewal: c.GetIsRenewal(), EulaChecked: c.GetIsEulaChecked(), LicenseChecked: c.GetIsLicenseAgreementChecked(),
		JeppCustomerNo: c.GetJeppCustomerNo(), Zip: c.GetBillingInfo().GetZipcode(), Country: c.GetBillingInfo().GetCountry(),
		CardholderName: c.GetCardholderName(), GiftCodes: c.GetGiftCertificateCode(), PromoCodes: c.GetDiscountPromoCode(),
		Upgrade: c.GetUpgrade(), Extras: c.GetExtras(), BusinessDowngrade: c.GetBusinessDowngrade(), PaymentMethod: c.GetPaymentMethod(),
		ViewedPromos: c.GetViewedPromoCodes(), CartID: c.GetCartId(), Counter: int64(c.GetCounter()),
		IsBYOP: c.GetIsByop(), EuCustomer: c.GetIsEuCustomer(), GdprCompliant: c.GetIsGdprCompliant(), DisableEmail: c.GetDisableEmail(),
		JeppAccountActive: c.GetJeppAccountActive(), RecaptchaValue: c.GetRecaptchaValue(), RunwayAircraft: c.GetRunwayAircraft(),
		KeepExpiredAllocations: c.GetKeepExpiredAllocations(), ReaderSerialNumber: c.GetReaderSerialNumber(),
		MarketingConsent: c.GetMarketingConsent(),
	}
	if ch := c.GetChartChoice(); ch != nil {
		in.ChartChoice = &domain.ChartChoice{Code: ch.GetAddOnCode(), Type: ch.GetType(), Checked: ch.GetChecked()}
	}
	var err error
	in.ExpiredAllocations, err = expiredAllocations(c.GetExpiredAllocations())
	return in, err
}

// expiredAllocations reads the echoed allocations: a list of Allocation objects (a single
// object is taken as a list of one; null or absent is none).
func expiredAllocations(v *structpb.Value) ([]domain.Allocation, error) {
	var list []*structpb.Value
	switch k := v.GetKind().(type) {
	case nil, *structpb.Value_NullValue:
		return nil, nil
	case *structpb.Value_ListValue:
		list = k.ListValue.GetValues()
	case *structpb.Value_StructValue:
		list = []*structpb.Value{v}
	default:
		return nil, errs.Field("expiredAllocations", "expiredAllocations must be a list of allocations")
	}
	var out []domain.Allocation
	for _, item := range list {
		b, err := protojson.Marshal(item)
		if err != nil {
			return nil, errs.Field("expiredAllocations", "expiredAllocations must be a list of allocations")
		}
		var a checkoutv1.Allocation
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, &a); err != nil {
			return nil, errs.Field("expiredAllocations", "expiredAllocations must be a list of allocations")
		}
		out = append(out, domain.Allocation{AddOnCodes: a.GetAddOnCodes(), TargetID: a.GetTargetId(), TargetOwnerID: a.GetTargetOwnerId(), TargetType: a.GetTargetType()})
	}
	return out, nil
}

func quantity(v *structpb.Value) string {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		return strconv.FormatFloat(k.NumberValue, 'f', -1, 64)
	case *structpb.Value_StringValue:
		return k.StringValue
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

// i32 narrows an amount for the wire. Quantities are capped, so amounts stay far below
// 2^31 cents; if one ever does not, the service refuses rather than send a wrong number.
func i32(v int64) (*int32, error) {
	if v > math.MaxInt32 || v < math.MinInt32 {
		return nil, errs.E(errs.Invalid, "the amount of this configuration is too large to price online; please contact sales")
	}
	n := int32(v)
	return &n, nil
}

// narrow converts the int64 amounts of one answer to the wire's int32, keeping the first
// that does not fit (i32's error) so that a converter can set every field and check once.
type narrow struct{ err error }

func (n *narrow) set(dst **int32, v int64) {
	if n.err == nil {
		*dst, n.err = i32(v)
	}
}

// item sets an invoice line's unit amount, quantity and amount.
func (n *narrow) item(it *checkoutv1.InvoiceItem, unit, quantity, amount int64) *checkoutv1.InvoiceItem {
	n.set(&it.UnitAmountInCents, unit)
	n.set(&it.Quantity, quantity)
	n.set(&it.AmountInCents, amount)
	return it
}

// totals sets the subtotal, tax and total every invoice answer carries.
func (n *narrow) totals(out *checkoutv1.Invoice, subtotal, tax, total int64) {
	n.set(&out.SubtotalInCents, subtotal)
	n.set(&out.TaxInCents, tax)
	n.set(&out.TotalInCents, total)
}

// taxHead starts a priced invoice answer: its currency and the tax rule that priced it.
func taxHead(currency string, r tax.Rule) *checkoutv1.Invoice {
	out := &checkoutv1.Invoice{Currency: currency, TaxVatText: r.Label, TaxJurisdiction: r.Jurisdiction,
		TaxRatesDate: tax.Rates().EffectiveFrom, ReverseCharge: ptr(r.ReverseCharge)}
	if r.Jurisdiction != "" {
		out.TaxRate = tax.Percent(r.ChargedPPM())
	}
	return out
}

func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

func invoice(inv *pricing.Invoice) (*checkoutv1.Invoice, error) {
	out := taxHead(inv.Currency, inv.Tax)
	out.Counter, out.Errors, out.PlanErrors, out.SelectionErrors = ptr(c32(inv.Counter)), inv.Errors, inv.PlanErrors, inv.SelectionErrors
	var n narrow
	n.totals(out, inv.SubtotalInCents, inv.TaxInCents, inv.TotalInCents)
	n.set(&out.CreditInCents, inv.CreditInCents)
	n.set(&out.CreditToAccountInCents, inv.CreditToAccountInCents)
	n.set(&out.GiftCertificateCreditInCents, inv.GiftCreditInCents)
	n.set(&out.GiftCertificateCreditFromAccountInCents, inv.AccountBalanceInCents)
	n.set(&out.DiscountInCents, inv.DiscountInCents)
	n.set(&out.TaxRatePpm, inv.Tax.PPM())
	for _, l := range inv.Lines {
		out.InvoiceItems = append(out.InvoiceItems, n.item(&checkoutv1.InvoiceItem{Type: l.Type, AddOnCode: l.AddOnCode, PlanType: l.PlanType,
			Description: l.Description, Reason: l.Reason, Key: l.Key, BundleAddOnCode: l.BundleAddOnCode, BundleItemType: l.BundleItemType,
			PostTax: ptr(l.PostTax)},
			l.UnitAmountInCents, l.Quantity, l.AmountInCents))
	}
	return out, n.err
}

func promoInfo(list []promotion.Info) []*checkoutv1.PromoInfoRequirement {
	var out []*checkoutv1.PromoInfoRequirement
	for _, p := range list {
		out = append(out, &checkoutv1.PromoInfoRequirement{Code: p.Code, Notice: p.Notice, Message: p.Message, AlwaysView: ptr(p.AlwaysView), RemoveCode: ptr(p.RemoveCode)})
	}
	return out
}

func previewResponse(pv *pricing.Preview) (*checkoutv1.PreviewInvoiceResponse, error) {
	inv, err := invoice(&pv.Invoice)
	if err != nil {
		return nil, err
	}
	c := pv.Cart
	pc := pv.PlanChange
	out := &checkoutv1.PreviewInvoiceResponse{
		Invoice: inv, Errors: inv.Errors, PlanErrors: inv.PlanErrors, SelectionErrors: inv.SelectionErrors,
		PromoInfoRequirements: promoInfo(pv.PromoInfo),
		PlanChange: &checkoutv1.PlanChange{Show: ptr(pc.Show), IsUpgraded: ptr(pc.Upgraded), IsDowngraded: ptr(pc.Downgraded),
			IsRegionChange: ptr(pc.RegionChange), IsJeppChange: ptr(pc.JeppChange), IsFeatureChange: ptr(pc.FeatureChange),
			HasRunwayAnalysisFeatureChange: ptr(pc.RunwayChange), IsSubscriptionAddOnSunsetting: ptr(pc.Sunsetting),
			NeedsConfirmation: ptr(pc.NeedsConfirmation), Message: pc.Message, SunsetMessage: pc.SunsetMessage, SunsettingAddOns: pc.SunsettingAddOns},
		AddOns: c.AddOns, Quantity: ptr(int32(c.Quantity)), Currency: c.Currency.Code, IsBusiness: ptr(c.Business), IsRenewal: ptr(c.Renewal),
		IsMilitary: ptr(c.Military), LegacyPlanReplaced: ptr(c.LegacyReplaced), ReplacedPlan: c.ReplacedPlan, RegionMode: c.RegionMode,
		ChartCoveragesDisabled: ptr(c.ChartsDisabled), QuoteId: pv.QuoteID, QuoteExpiresAt: pv.QuoteExpires.UTC().Format(time.RFC3339),
		QuoteHash: pv.QuoteHash, RenewalDate: day(pv.RenewalDate), TermStartDate: day(pv.TermStart), CatalogVersion: pv.CatalogVer,
		ErrorCodes: c.ErrorCodes, RegionsDisabled: ptr(c.RegionsDisabled), LockedAddOns: c.LockedAddOns,
		ChartIfrVisible: ptr(c.ChartIfrVisible), MilitarySupplementsVisible: ptr(c.MilitarySuppVisible),
		EuConsentRequired: ptr(c.EuConsentRequired), LoggedIn: ptr(c.LoggedIn), EmailLocked: ptr(c.EmailLocked),
		AccountId: c.AccountID, Email: c.Email, ExpiringAllocations: allocations(c.ExpiringAllocations), RunwayAircraft: c.RunwayAircraft,
	}
	if c.VATIDStatus != "" {
		out.VatIdCheck = &checkoutv1.VatIdCheck{Status: c.VATIDStatus, Message: c.VATIDMessage, Counted: ptr(app.VATIDCounted(c.VATIDStatus))}
	}
	if out.RenewalAmountInCents, err = i32(pv.RenewalAmount); err != nil {
		return nil, err
	}
	// Only what is worded for the buyer, each sentence once: the page lists these under the
	// invoice (issue 45: the rules' notes were shown as bullets).
	seen := map[string]bool{}
	for _, a := range c.Adjustments {
		if !a.Notice || seen[a.Reason] {
			continue
		}
		seen[a.Reason] = true
		out.Adjustments = append(out.Adjustments, &checkoutv1.Adjustment{AddOnCode: a.Code, Action: a.Action, Reason: a.Reason})
	}
	for _, ce := range pv.CodeErrors {
		out.CodeErrors = append(out.CodeErrors, &checkoutv1.CodeError{Code: ce.Code, ErrorCode: ce.ErrorCode, Message: ce.Message})
	}
	return out, nil
}

// c32 answers a counter as the int32 of the wire (JSON numbers, not the strings int64
// becomes), clamped: counters grow by one per request and never come near 2^31.
func c32(v int64) int32 { return int32(max(min(v, 1<<31-1), -1<<31)) }
