// Package gift provides the use-case rules of buying gift certificates (spec 001 §1, §4,
// §5, §9): which amounts may be bought, the validation messages of the gift form, the
// priced gift invoice, and the redeemable certificate codes. It knows nothing of SQL,
// protobuf or HTTP.
package gift

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// Amounts in whole currency units (spec 001 §9).
const (
	CustomMin     = 25
	CustomMax     = 1000
	DefaultCustom = 25
	// MaxCertificates bounds one purchase, so that one request cannot issue thousands of
	// codes or push a total past what the wire carries (the spec names no limit).
	MaxCertificates = 20
)

// Presets are the preset amounts, in display order; the first is the default.
var Presets = []int64{370, 250, 125}

// Messages of spec 001 §5 (the first two) and the amount messages the spec does not word.
const (
	MsgSelectCertificate = "Please select a gift certificate"
	MsgEmail             = "Please enter your email address"
	MsgWholeNumber       = "Gift certificate amounts must be whole numbers."
	MsgCustomRange       = "A custom gift certificate amount must be between 25 and 1000."
	MsgTooMany           = "At most 20 gift certificates can be bought at once."
	// The card fields' messages (spec 001 §5, payment form), shared with every submit.
	MsgCardBlank    = rules.MsgCardBlank
	MsgNameBlank    = rules.MsgNameBlank
	MsgPostalBlank  = rules.MsgPostalBlank
	MsgCountryBlank = rules.MsgSelectCountry
)

// ItemGiftCertificate is the invoice item type of a certificate bought (spec 000 §3).
const ItemGiftCertificate = "GIFT_CERTIFICATE"

// ParseValue reads one requested amount: a JSON number or a string ("370", "40.00").
// ok is false when it is not a whole number.
func ParseValue(raw string) (int64, bool) {
	raw = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(raw), "$"))
	if raw == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) || math.Abs(f) > 1e12 {
		return 0, false
	}
	return int64(f), true
}

// ParseValues splits the comma list of the /gift/{values} route. Empty parts are skipped;
// the rest are answered as typed, for Validate to judge.
func ParseValues(list string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Allowed reports whether a whole amount may be bought: a preset or a custom amount.
func Allowed(v int64) bool { return v >= CustomMin && v <= CustomMax }

// IsPreset reports whether v is one of the preset amounts.
func IsPreset(v int64) bool {
	for _, p := range Presets {
		if p == v {
			return true
		}
	}
	return false
}

// Order is a gift purchase as the form sends it.
type Order struct {
	// Values are the requested amounts as sent (numbers or strings), in whole units.
	Values   []string
	Email    string
	Zip      string
	Country  string
	Currency string
	// Recipient is optional: who the certificates are for.
	RecipientEmail string
	RecipientName  string
	Message        string
}

// Checked is a gift order after the rules: the amounts in minor units and the messages.
type Checked struct {
	Amounts  []int64 // minor units, one per certificate
	Currency domain.Currency
	Email    string
	Country  string
	Zip      string
	Errors   []string
}

// Check applies the amount and e-mail rules (spec 001 §5). The e-mail is checked only when
// requireEmail is set: the page sends it to validate only when the e-mail-in-cart check
// applies, and submit always needs it. An unknown currency is the default currency.
func Check(cat *domain.Catalog, o Order, requireEmail bool) Checked {
	c := Checked{Email: domain.NormalizeEmail(o.Email), Country: domain.NormalizeCountry(o.Country), Zip: strings.TrimSpace(o.Zip)}
	cur := cat.CurrencyOrDefault(o.Currency)
	c.Currency = cur
	add := func(msg string) {
		for _, e := range c.Errors {
			if e == msg {
				return
			}
		}
		c.Errors = append(c.Errors, msg)
	}
	if len(o.Values) == 0 {
		add(MsgSelectCertificate)
	}
	if len(o.Values) > MaxCertificates {
		add(MsgTooMany)
	}
	for _, raw := range o.Values {
		v, whole := ParseValue(raw)
		switch {
		case !whole:
			add(MsgWholeNumber)
		case !Allowed(v):
			add(MsgCustomRange)
		default:
			c.Amounts = append(c.Amounts, v*100)
		}
	}
	if (requireEmail || c.Email != "") && !domain.ValidEmail(c.Email) {
		add(MsgEmail)
	}
	return c
}

// Line is one line of the gift invoice.
type Line struct {
	Type              string
	Description       string
	UnitAmountInCents int64
	Key               string
}

// Invoice is the priced gift order.
type Invoice struct {
	Currency        string
	Lines           []Line
	SubtotalInCents int64
	TaxInCents      int64
	TotalInCents    int64
	Tax             tax.Rule
}

// Price prices a checked order: one GIFT_CERTIFICATE line per certificate (no add-on code,
// so quantity 0 and the amount is the unit amount, spec 000 §3).
//
// No tax is charged on a gift certificate. It is a multi-purpose voucher: US states tax the
// goods it later pays for, not the card; EU VAT and Canadian and Australian GST are due
// when it is redeemed, not when it is issued. Checkout taxes a subscription invoice on its
// full subtotal before a certificate pays it, so taxing the certificate here would tax the
// same purchase twice. The ZIP still re-prices: the answer names the jurisdiction and its
// label ('Tax' or 'VAT') with a zero amount.
func Price(c Checked) Invoice {
	inv := Invoice{Currency: c.Currency.Code, Tax: tax.For("", c.Country, c.Zip, "", c.Currency)}
	for i, a := range c.Amounts {
		inv.Lines = append(inv.Lines, Line{Type: ItemGiftCertificate, UnitAmountInCents: a,
			Description: "Gift certificate " + domain.FormatMoney(a, c.Currency), Key: fmt.Sprintf("%s:%d", ItemGiftCertificate, i+1)})
		inv.SubtotalInCents += a
	}
	inv.TotalInCents = inv.SubtotalInCents + inv.TaxInCents
	return inv
}

// CheckPayment answers the card fields' messages for a submit (spec 001 §5): the payment
// check the subscription submit makes too (rules.ValidatePayment).
func CheckPayment(nonce, cardholder, zip, country string) []string {
	return rules.ValidatePayment(rules.Payment{Nonce: nonce, CardholderName: cardholder, Zip: zip, Country: country})
}

// Certificate is an issued gift certificate: a code with a balance in one currency.
type Certificate struct {
	ID   string
	Code string // only while it is issued (its e-mail's event); never read back
	// Hint is the stored masked code (the last four characters), for receipts.
	Hint           string
	Currency       string
	AmountInCents  int64 // issued; the balance starts here
	BuyerEmail     string
	BuyerAccountID string
	RecipientEmail string
	RecipientName  string
	Message        string
	OrderID        string
}

// Masked shows only the last group of a code, for receipts and answers: the full code
// travels only in the e-mail.
func Masked(code string) string {
	if len(code) < 4 {
		return code
	}
	return "••••-••••-••••-" + code[len(code)-4:]
}

// Recipient limits and messages (the spec names the recipient optional and says no more).
const (
	MaxRecipientName    = 100
	MaxMessage          = 500
	MsgRecipientEmail   = "Please enter the recipient's email address"
	MsgRecipientNameLen = "The recipient's name must be at most 100 characters."
	MsgMessageLen       = "The message to the recipient must be at most 500 characters."
)

// Recipient is who the certificates are for: all optional. A name alone is printed in the
// buyer's e-mail ("for Sam"); with an e-mail the recipient gets the code too.
type Recipient struct {
	Email, Name, Message string
}

// CheckRecipient normalises a recipient (e-mail as domain.NormalizeEmail, name and message trimmed,
// runs of spaces in the name folded) and answers its messages; validate and submit check
// it alike.
func CheckRecipient(r Recipient) (Recipient, []string) {
	r.Email = domain.NormalizeEmail(r.Email)
	r.Name = strings.Join(strings.Fields(r.Name), " ")
	r.Message = strings.TrimSpace(r.Message)
	var problems []string
	if r.Email != "" && !domain.ValidEmail(r.Email) {
		problems = append(problems, MsgRecipientEmail)
	}
	if utf8.RuneCountInString(r.Name) > MaxRecipientName {
		problems = append(problems, MsgRecipientNameLen)
	}
	if utf8.RuneCountInString(r.Message) > MaxMessage {
		problems = append(problems, MsgMessageLen)
	}
	return r, problems
}
