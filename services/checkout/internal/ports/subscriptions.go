package ports

import (
	"context"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/subscription"
)

// PaymentMethods answers an account's stored payment method (payments, as the caller).
type PaymentMethods interface {
	PaymentMethod(ctx context.Context, accountID string) (*paymentsv1.PaymentMethod, error)
}

// WithPaymentMethods lets includePaymentInfo answer the stored card.
func (s *GRPC) WithPaymentMethods(p PaymentMethods) *GRPC { s.methods = p; return s }

func viewer(ctx context.Context) app.Viewer {
	who, _ := auth.CallerFrom(ctx)
	return who
}

func (s *GRPC) GetSubscription(ctx context.Context, req *checkoutv1.GetSubscriptionRequest) (*checkoutv1.GetSubscriptionResponse, error) {
	sub, err := s.svc.MySubscription(ctx, viewer(ctx))
	if err != nil {
		return nil, err
	}
	out := &checkoutv1.GetSubscriptionResponse{Status: "ok", Subscription: s.subscriptionProto(sub, time.Now())}
	if truthy(req.GetIncludePaymentInfo()) {
		out.PaymentInfo = s.paymentInfo(ctx, sub.AccountID)
	}
	return out, nil
}

func (s *GRPC) GetSubscriptionSimple(ctx context.Context, req *checkoutv1.GetSubscriptionSimpleRequest) (*checkoutv1.GetSubscriptionSimpleResponse, error) {
	r, err := s.GetSubscription(ctx, &checkoutv1.GetSubscriptionRequest{IncludePaymentInfo: req.GetIncludePaymentInfo()})
	if err != nil {
		return nil, err
	}
	return &checkoutv1.GetSubscriptionSimpleResponse{Status: r.Status, Subscription: r.Subscription, PaymentInfo: r.PaymentInfo}, nil
}

// paymentInfo asks payments (as the caller) for the stored method; none when it cannot say.
func (s *GRPC) paymentInfo(ctx context.Context, account string) *checkoutv1.PaymentInfo {
	if s.methods == nil {
		return nil
	}
	m, err := s.methods.PaymentMethod(auth.Outgoing(ctx), account)
	if err != nil || m == nil {
		return nil
	}
	return &checkoutv1.PaymentInfo{Token: m.GetToken(), IsCreditCard: m.IsCreditCard, Last4: m.GetLast4(), ExpirationDate: m.GetExpirationDate(),
		Type: m.GetType(), ImageUrl: m.GetImageUrl(), BraintreeEmail: m.GetBraintreeEmail(), CardholderName: m.GetCardholderName()}
}

func (s *GRPC) SetAutoRenew(ctx context.Context, req *checkoutv1.SetAutoRenewRequest) (*checkoutv1.SetAutoRenewResponse, error) {
	// Only true or false: anything else (empty, 'maybe') once turned renewal off.
	var on bool
	switch strings.ToLower(strings.TrimSpace(req.GetIsAutoRenew())) {
	case "true":
		on = true
	case "false":
		on = false
	default:
		return nil, errs.Field("isAutoRenew", "isAutoRenew must be true or false.")
	}
	product := req.GetProductCode()
	if v := metadata.ValueFromIncomingContext(ctx, mdProductCode); product == "" && len(v) > 0 {
		product = v[0]
	}
	sub, err := s.svc.SetAutoRenew(ctx, viewer(ctx), product, on)
	if err != nil {
		return nil, err
	}
	return &checkoutv1.SetAutoRenewResponse{Status: "succeeded", AutoRenew: &sub.AutoRenew}, nil
}

func (s *GRPC) GetCurrency(ctx context.Context, req *checkoutv1.GetCurrencyRequest) (*checkoutv1.GetCurrencyResponse, error) {
	cur, src, err := s.svc.Currency(ctx, req.GetEmail(), req.GetAccountId(), s.caller(ctx))
	if err != nil {
		return nil, err
	}
	own := src == app.CurrencyFromSubscription
	out := &checkoutv1.GetCurrencyResponse{Status: "ok", Currency: cur, FromSubscription: &own, Source: src}
	if cat, err := s.svc.Catalog(); err == nil {
		if c, ok := cat.Currency(cur); ok {
			out.Symbol = c.Symbol
		}
	}
	return out, nil
}

func (s *GRPC) GetAccountSubscription(ctx context.Context, req *checkoutv1.GetAccountSubscriptionRequest) (*checkoutv1.GetAccountSubscriptionResponse, error) {
	sub, err := s.svc.AccountSubscription(ctx, viewer(ctx), req.GetAccountUuid())
	if err != nil {
		return nil, err
	}
	return &checkoutv1.GetAccountSubscriptionResponse{Status: "ok", Subscription: s.subscriptionProto(sub, time.Now())}, nil
}

func (s *GRPC) UpdateBillingContact(ctx context.Context, req *checkoutv1.UpdateBillingContactRequest) (*checkoutv1.UpdateBillingContactResponse, error) {
	c := req.GetContact()
	saved, err := s.svc.UpdateBillingContact(ctx, viewer(ctx), req.GetAccountUuid(), domain.BillingContact{Name: c.GetName(),
		PhysicalAddress: c.GetPhysicalAddress(), PhysicalAddress2: c.GetPhysicalAddress2(), City: c.GetCity(),
		StateProvince: c.GetStateProvince(), PostalCode: c.GetPostalCode(), Country: c.GetCountry()})
	if err != nil {
		return nil, err
	}
	return &checkoutv1.UpdateBillingContactResponse{Contact: contactProto(saved)}, nil
}

func contactProto(c domain.BillingContact) *checkoutv1.BillingContact {
	return &checkoutv1.BillingContact{Name: c.Name, PhysicalAddress: c.PhysicalAddress, PhysicalAddress2: c.PhysicalAddress2,
		City: c.City, StateProvince: c.StateProvince, PostalCode: c.PostalCode, Country: c.Country}
}

func (g *GRPC) subscriptionProto(s *domain.Subscription, now time.Time) *checkoutv1.Subscription {
	days := int32(pricing.DaysRemaining(s.TermEnd, now)) // the credit's count (spec 000 §4)
	price := int32(min(s.PriceInCents, 1<<31-1))
	qty := int32(s.Quantity)
	duration := "annual"
	if strings.Contains(s.PlanCode, "three_month") {
		duration = "three_month"
	}
	out := &checkoutv1.Subscription{Id: s.ID, Name: s.Name, PlanCode: s.PlanCode, PriceInCents: &price, Currency: s.Currency,
		TermStartDate: day(s.TermStart), TermEndDate: day(s.TermEnd), DaysRemaining: &days, AddOns: s.AddOns, Quantity: &qty,
		PlanQuantity: &qty, AccountId: s.AccountID, Email: s.Email, IsValidSubscription: ptr(s.Valid && s.TermEnd.After(now)),
		PaymentMethod: s.PaymentMethod, BillingMethod: s.BillingMethod, BillingContact: contactProto(s.Contact()),
		BusinessIdentificationNo: s.BusinessID, AutoRenew: ptr(s.AutoRenew), DurationType: duration, IsMilitary: ptr(s.Military),
		OrganizationId: s.OrganizationID}
	cat, _ := g.svc.Catalog()
	for _, a := range subscription.AddOns(s.AddOns, s.Quantity, s.LicensingMethod, cat) {
		lm := a.GetLicensingMethod()
		if contains(s.AllocatedAddOns, a.GetAddOnCode()) {
			lm = domain.LicensingUserAllocation
		}
		if lm == "" {
			lm = domain.LicensingDefault // spec 000 §3's pricing type of an add-on sold as is
		}
		out.AddOnObjects = append(out.AddOnObjects, &checkoutv1.AddOnObject{AddOnCode: a.GetAddOnCode(), LicensingMethod: lm})
	}
	return out
}

// GetSubscriptionAvionics answers the panel-avionics add-ons of the session's
// subscription (spec 001 §7): its add-ons of the catalogue's AVIONICS group.
func (s *GRPC) GetSubscriptionAvionics(ctx context.Context, _ *checkoutv1.GetSubscriptionAvionicsRequest) (*checkoutv1.GetSubscriptionAvionicsResponse, error) {
	sub, err := s.svc.MySubscription(ctx, viewer(ctx))
	if err != nil {
		return nil, err
	}
	out := &checkoutv1.GetSubscriptionAvionicsResponse{Status: "ok", SubscriptionId: sub.ID, Avionics: []*checkoutv1.SubscriptionAvionics{}}
	for _, a := range s.subscriptionProto(sub, time.Now()).GetAddOnObjects() {
		if e, ok := catalogEntry(s.svc, a.GetAddOnCode()); ok && e.Group == domain.GroupAvionics {
			out.Avionics = append(out.Avionics, &checkoutv1.SubscriptionAvionics{AddOnCode: e.Code, Title: e.Title, LicensingMethod: a.GetLicensingMethod()})
		}
	}
	return out, nil
}

func catalogEntry(svc *app.Service, code string) (*domain.Entry, bool) {
	cat, err := svc.Catalog()
	if err != nil {
		return nil, false
	}
	return cat.Entry(code)
}

func truthy(v string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	return err == nil && b || strings.TrimSpace(v) == "1" || strings.EqualFold(strings.TrimSpace(v), "on")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// GetHumanVerification is public: it names the widget and its public site key, never the
// secret, the same to every caller.
func (s *GRPC) GetHumanVerification(context.Context, *checkoutv1.GetHumanVerificationRequest) (*checkoutv1.GetHumanVerificationResponse, error) {
	on, w := s.svc.HumanVerification()
	return &checkoutv1.GetHumanVerificationResponse{Required: on, SiteKey: w.SiteKey, ScriptUrl: w.ScriptURL}, nil
}
