package app

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Reader is who asks for a receipt: the session's caller (zero without a session) and the
// receipt token (the cookie of the browser that paid, or the e-mailed link's).
type Reader struct {
	Caller       auth.Caller
	ReceiptToken string
}

// Receipt answers an order's receipt to the browser that paid and to whoever holds the
// Billing right (auth.MayActOn) on the order's account or organization: the account, the
// organization's owner, staff. Anyone else gets not found (so ids cannot be probed).
func (s *Service) Receipt(ctx context.Context, invoiceID string, r Reader) (*order.Placed, error) {
	notFound := errs.E(errs.NotFound, "no such receipt")
	if s.orders == nil || invoiceID == "" {
		return nil, notFound
	}
	o, err := s.orders.Load(ctx, invoiceID)
	if errs.CodeOf(err) == errs.NotFound {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	if !s.mayRead(o, r) {
		return nil, notFound
	}
	return o, nil
}

func (s *Service) mayRead(o *order.Placed, r Reader) bool {
	if r.ReceiptToken != "" && s.receipts.Verify(o.InvoiceID, r.ReceiptToken, s.now()) {
		return true
	}
	for _, acct := range []string{o.AccountID, o.OrganizationID} {
		if acct != "" && auth.MayActOn(r.Caller, acct, auth.Billing) == nil {
			return true
		}
	}
	return false
}

// SaveInvoiceContact keeps the billing contact printed on the invoice, for whoever may read
// the receipt (Receipt): the buyer through the e-mailed link's token needs no session. Each
// field is one line of bounded length (ValidateContact). The first contact saved is the
// invoice's; the contact of an issued invoice is then fixed: a different one issues a
// corrected copy, numbered with a suffix, and the original stays as it was.
func (s *Service) SaveInvoiceContact(ctx context.Context, invoiceID string, r Reader, c order.Contact) (*order.Placed, error) {
	o, err := s.Receipt(ctx, invoiceID, r)
	if err != nil {
		return nil, err
	}
	c, err = ValidateContact(c)
	if err != nil {
		return nil, err
	}
	copy, err := s.orders.SaveContact(ctx, invoiceID, c)
	if err != nil {
		return nil, err
	}
	o.InvoiceContact, o.Correction = &c, copy
	if copy != nil {
		o.InvoiceContact = &copy.Contact
	}
	return o, nil
}

// contactFields are the billing contact's fields: the key an error names, the words it
// says, and the most characters each may hold (an invoice's "Bill to" block stays a few
// lines above the totals).
var contactFields = []struct {
	key, words string
	max        int
	required   bool
	get        func(*order.Contact) *string
}{
	{"name", "name", 100, true, func(c *order.Contact) *string { return &c.Name }},
	{"address", "address", 100, true, func(c *order.Contact) *string { return &c.PhysicalAddress }},
	{"physicalAddress2", "second address line", 100, false, func(c *order.Contact) *string { return &c.PhysicalAddress2 }},
	{"city", "city", 60, true, func(c *order.Contact) *string { return &c.City }},
	{"stateProvince", "state or province", 60, false, func(c *order.Contact) *string { return &c.StateProvince }},
	{"postalCode", "postal code", 16, false, func(c *order.Contact) *string { return &c.PostalCode }},
	{"country", "country", 60, true, func(c *order.Contact) *string { return &c.Country }},
}

// ValidateContact trims the contact's fields and answers every field error at once: a
// field is one line of printable text (no line breaks, tabs or other control characters,
// no direction overrides, nothing that was not valid UTF-8), at most its length. Before,
// a receipt link's holder could write "TOTAL: $0.00 PAID IN FULL" on its own line of an
// issued invoice, and 60 lines pushed the totals to the PDF's second page.
func ValidateContact(c order.Contact) (order.Contact, error) {
	var fe []errs.FieldError
	for _, f := range contactFields {
		v := f.get(&c)
		*v = strings.TrimSpace(*v)
		switch {
		case *v == "" && f.required:
			fe = append(fe, errs.FieldError{Field: f.key, Message: "The billing contact's " + f.words + " cannot be blank."})
		case !singleLine(*v):
			fe = append(fe, errs.FieldError{Field: f.key, Message: "The billing contact's " + f.words + " must be a single line of text."})
		case utf8.RuneCountInString(*v) > f.max:
			fe = append(fe, errs.FieldError{Field: f.key, Message: fmt.Sprintf("The billing contact's %s must be at most %d characters.", f.words, f.max)})
		}
	}
	if len(fe) > 0 {
		msgs := make([]string, len(fe))
		for i, f := range fe {
			msgs[i] = f.Message
		}
		return c, &errs.Error{Code: errs.Invalid, Message: strings.Join(msgs, " "), Fields: fe}
	}
	return c, nil
}

// singleLine reports whether v is one line of printable text.
func singleLine(v string) bool {
	for _, r := range v {
		if unicode.IsControl(r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return false
		}
	}
	return true
}
