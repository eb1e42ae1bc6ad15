package ports

import (
	"context"
	"math"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
)

// WithPurchases serves the gift-certificate and one-off routes with p.
func (s *GRPC) WithPurchases(p *app.Purchases) *GRPC {
	s.purchases = p
	return s
}

func (s *GRPC) purchasesOrUnimplemented() (*app.Purchases, error) {
	if s.purchases == nil {
		return nil, errs.E(errs.Unavailable, "gift and one-off purchases are not available")
	}
	return s.purchases, nil
}

// sessionCaller answers the logged-in buyer of the session, if any.
func sessionCaller(ctx context.Context) domain.Caller {
	if who, ok := auth.CallerFrom(ctx); ok && who.AccountUUID != "" {
		// The organization's billing is its owner's: staff rights (which reach every account)
		// do not make a staff member's own purchase their organization's.
		own := who
		own.IsEmployee, own.IsCreditCardAdmin = false, false
		billing := who.OrganizationAccount != "" && auth.MayActOn(own, who.OrganizationAccount, auth.Billing) == nil
		return domain.Caller{LoggedIn: true, AccountID: who.AccountUUID, Email: who.Username, Child: who.IsChild,
			Organization: who.OrganizationAccount, OrganizationBilling: billing, CreditCardAdmin: who.IsCreditCardAdmin}
	}
	return domain.Caller{}
}

func values(list []*structpb.Value) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		out = append(out, quantity(v))
	}
	return out
}

func (s *GRPC) ValidateGift(ctx context.Context, req *checkoutv1.ValidateGiftRequest) (*checkoutv1.ValidateGiftResponse, error) {
	p, err := s.purchasesOrUnimplemented()
	if err != nil {
		return nil, err
	}
	o := gift.Order{Values: values(req.GetGiftCertValues()), Email: req.GetEmail(), Zip: req.GetZipcode(), Country: req.GetCountry(), Currency: req.GetCurrency(),
		RecipientEmail: req.GetRecipient().GetEmail(), RecipientName: req.GetRecipient().GetName(), Message: req.GetRecipient().GetMessage()}
	if strings.TrimSpace(o.Currency) == "" {
		o.Currency, _ = s.svc.DefaultCurrency(ctx, s.caller(ctx)) // no currency chosen yet: the visitor's
	}
	v, err := p.ValidateGift(ctx, o, sessionCaller(ctx), int64(req.GetCounter()), s.caller(ctx).Client)
	if err != nil {
		return nil, err
	}
	inv, err := giftInvoice(v.Invoice)
	if err != nil {
		return nil, err
	}
	inv.Counter = ptr(c32(v.Counter))
	inv.Errors = v.Checked.Errors
	status := "ok"
	if len(v.Checked.Errors) > 0 {
		status = "fail"
	}
	presets := make([]int32, 0, len(gift.Presets))
	for _, p := range gift.Presets {
		presets = append(presets, int32(p))
	}
	return &checkoutv1.ValidateGiftResponse{Status: status, Errors: v.Checked.Errors, Invoice: inv, Counter: counter32(v.Counter), AccountId: v.AccountID,
		Subscription:       &checkoutv1.GiftBuyer{AccountId: v.AccountID, Email: v.Email, IsValidSubscription: ptr(v.HasSubscription)},
		PossibleCertValues: presets, CustomMin: ptr(int32(gift.CustomMin)), CustomMax: ptr(int32(gift.CustomMax)),
		DefaultCustom: ptr(int32(gift.DefaultCustom)), Currency: v.Checked.Currency.Code}, nil
}

// giftInvoice answers a gift invoice: no tax on a certificate (gift.Price), and its lines
// have no add-on code, so quantity 0 and the unit amount as the amount (spec 000 §3).
func giftInvoice(g gift.Invoice) (*checkoutv1.Invoice, error) {
	out := taxHead(g.Currency, g.Tax)
	out.ReverseCharge, out.TaxRatePpm = ptr(false), ptr(int32(0))
	var n narrow
	n.totals(out, g.SubtotalInCents, g.TaxInCents, g.TotalInCents)
	for _, l := range g.Lines {
		it := &checkoutv1.InvoiceItem{Type: l.Type, Description: l.Description, Key: l.Key, Reason: "gift certificate you chose"}
		out.InvoiceItems = append(out.InvoiceItems, n.item(it, l.UnitAmountInCents, 0, l.UnitAmountInCents))
	}
	return out, n.err
}

func (s *GRPC) CreateCart(ctx context.Context, req *checkoutv1.CreateCartRequest) (*checkoutv1.CreateCartResponse, error) {
	p, err := s.purchasesOrUnimplemented()
	if err != nil {
		return nil, err
	}
	var who app.Staff
	if c, ok := auth.CallerFrom(ctx); ok && c.AccountUUID != "" {
		who = app.Staff{LoggedIn: true, Username: c.Username, Employee: c.IsEmployee, CreditCardAdmin: c.IsCreditCardAdmin}
	}
	r := req.GetRequestJson()
	in := oneoff.Request{ApplyTax: r.GetApplyTax(), Currency: r.GetCurrency(), DiscountCode: r.GetDiscountCode()}
	for _, pr := range r.GetSelectedProducts() {
		in.SelectedProducts = append(in.SelectedProducts, oneoff.Product{Code: pr.GetCode(), Quantity: int64(pr.GetQuantity())})
	}
	c, err := p.CreateCart(ctx, who, in, req.GetCommerceCartType())
	if err != nil {
		return nil, err
	}
	return &checkoutv1.CreateCartResponse{Cart: presetCart(&c)}, nil
}

func (s *GRPC) GetCart(ctx context.Context, req *checkoutv1.GetCartRequest) (*checkoutv1.GetCartResponse, error) {
	p, err := s.purchasesOrUnimplemented()
	if err != nil {
		return nil, err
	}
	c, err := p.Cart(ctx, req.GetCartId())
	if err != nil {
		return nil, err
	}
	return &checkoutv1.GetCartResponse{Cart: presetCart(c)}, nil
}

// CartPath is the page that opens a preconfigured cart.
func CartPath(id string) string { return "/product/cart/" + id }

func presetCart(c *oneoff.PresetCart) *checkoutv1.PreconfiguredCart {
	r := &checkoutv1.CartRequest{ApplyTax: ptr(c.Request.ApplyTax), Currency: c.Request.Currency, DiscountCode: c.Request.DiscountCode}
	for _, p := range c.Request.SelectedProducts {
		r.SelectedProducts = append(r.SelectedProducts, &checkoutv1.CartProduct{Code: p.Code, Quantity: ptr(int32(p.Quantity))})
	}
	return &checkoutv1.PreconfiguredCart{Uuid: c.UUID, RequestJson: r, CommerceCartType: c.CartType, CartUrl: CartPath(c.UUID)}
}

func oneOffInput(c *checkoutv1.OneOffConfiguration) app.OneOffInput {
	o := oneoff.Order{Currency: c.GetCurrency(), Country: c.GetBillingInfo().GetCountry(), Zip: c.GetBillingInfo().GetZipcode(),
		BusinessID: c.GetBusinessIdentificationNo(), Email: c.GetEmail(), GiftCodes: c.GetGiftCertificateCode(), PromoCodes: c.GetDiscountPromoCode(),
		EuCustomer: c.GetIsEuCustomer(), GdprCompliant: c.GetIsGdprCompliant()}
	for _, it := range c.GetItems() {
		o.Items = append(o.Items, oneoff.Item{Code: it.GetCode(), Quantity: quantity(it.GetQuantity())})
	}
	return app.OneOffInput{CartID: c.GetCartId(), Order: o, AccountID: c.GetAccountId(), Counter: int64(c.GetCounter()),
		ReaderSerialNumber: c.GetReaderSerialNumber()}
}

func (s *GRPC) PreviewOneOff(ctx context.Context, req *checkoutv1.PreviewOneOffRequest) (*checkoutv1.PreviewOneOffResponse, error) {
	p, err := s.purchasesOrUnimplemented()
	if err != nil {
		return nil, err
	}
	in := oneOffInput(req.GetConfiguration())
	in.Caller, in.ClientAddr = sessionCaller(ctx), s.caller(ctx).Client
	pv, err := p.PreviewOneOff(ctx, in)
	if err != nil {
		return nil, err
	}
	return oneOffPreviewResponse(pv)
}

func oneOffPreviewResponse(pv *app.OneOffPreview) (*checkoutv1.PreviewOneOffResponse, error) {
	inv, err := oneOffInvoice(pv.Invoice)
	if err != nil {
		return nil, err
	}
	inv.Counter = ptr(c32(pv.Counter))
	out := &checkoutv1.PreviewOneOffResponse{Invoice: inv, Errors: pv.Invoice.Errors, Currency: pv.Cart.Currency.Code,
		BusinessIdAllowed: ptr(pv.BusinessIDAllowed), BusinessIdentificationNo: pv.Cart.BusinessID,
		Country: pv.Cart.Country, Counter: counter32(pv.Counter), Email: pv.Email, AccountId: pv.AccountID, LoggedIn: ptr(pv.LoggedIn),
		ApplyTax: ptr(pv.Cart.ApplyTax), EuConsentRequired: ptr(pv.Cart.EuConsentRequired)}
	for _, ce := range pv.Invoice.CodeErrors {
		out.CodeErrors = append(out.CodeErrors, &checkoutv1.CodeError{Code: ce.Code, ErrorCode: ce.ErrorCode, Message: ce.Message})
	}
	for _, l := range pv.Cart.Lines {
		out.Items = append(out.Items, &checkoutv1.OneOffItem{Code: l.Entry.Code, Quantity: structpb.NewNumberValue(float64(l.Quantity)),
			Name: l.Entry.Title, PriceInCents: c32(l.Entry.Prices[pv.Cart.Currency.Code].AmountInCents)})
	}
	return out, nil
}

func oneOffInvoice(inv oneoff.Invoice) (*checkoutv1.Invoice, error) {
	out := taxHead(inv.Currency, inv.Tax)
	out.Errors = inv.Errors
	var n narrow
	n.totals(out, inv.SubtotalInCents, inv.TaxInCents, inv.TotalInCents)
	n.set(&out.DiscountInCents, inv.DiscountInCents)
	n.set(&out.TaxRatePpm, inv.Tax.PPM())
	for _, l := range inv.Lines {
		it := &checkoutv1.InvoiceItem{Type: l.Type, AddOnCode: l.AddOnCode, PlanType: l.PlanType, Description: l.Description, Key: l.Key,
			Reason: "product in your cart"}
		if l.Type == pricing.ItemPlanDiscount {
			it.Reason = "promotion code"
		}
		out.InvoiceItems = append(out.InvoiceItems, n.item(it, l.UnitAmountInCents, l.Quantity, l.AmountInCents))
	}
	return out, n.err
}

// counter32 narrows a counter for the wire, where it is a JSON number; counters start near
// zero and grow by one per request, so saturating is only a guard.
func counter32(n int64) *int32 {
	return ptr(int32(min(max(n, 0), math.MaxInt32)))
}
