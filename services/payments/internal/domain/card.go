// Package domain holds the payment rules as plain Go: card field checks (Luhn, expiry,
// CVV), the charge state machine and refund arithmetic, idempotency request hashes,
// payment-method types and billing profiles, and card-reader sessions. No proto, SQL or
// HTTP here, and no card number is kept in any type that outlives a tokenisation.
package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hangar/hangar/internal/platform/cardexpiry"
	"github.com/hangar/hangar/internal/platform/errs"
)

// Brand is a card network.
type Brand string

const (
	Visa       Brand = "Visa"
	Mastercard Brand = "MasterCard"
	Amex       Brand = "American Express"
	Discover   Brand = "Discover"
	JCB        Brand = "JCB"
	Unknown    Brand = "Unknown"
)

// Slug names the brand in image URLs.
func (b Brand) Slug() string {
	switch b {
	case Visa:
		return "visa"
	case Mastercard:
		return "mastercard"
	case Amex:
		return "american-express"
	case Discover:
		return "discover"
	case JCB:
		return "jcb"
	}
	return "unknown"
}

// CardInput is what the hosted fields post. It lives only for the length of a Tokenize
// call; nothing copies Number or CVV anywhere else.
type CardInput struct {
	Number         string
	CVV            string
	ExpirationDate string
	CardholderName string
	PostalCode     string
}

// Card is a checked card: the number and CVV are still here because the processor needs
// them to tokenise; Summary is what may be kept.
type Card struct {
	Number   string
	CVV      string
	Brand    Brand
	ExpMonth int
	ExpYear  int
}

// Summary is what of a card may be stored, logged or sent on: brand, last four digits,
// expiry. (The BIN is answered to the page in the nonce details, never stored.)
type Summary struct {
	Brand    Brand
	Last4    string
	ExpMonth int
	ExpYear  int
}

// ExpirationDate renders MM/YYYY.
func (s Summary) ExpirationDate() string {
	if s.ExpMonth == 0 {
		return ""
	}
	return fmt.Sprintf("%02d/%04d", s.ExpMonth, s.ExpYear)
}

// Summary answers the storable part of the card.
func (c Card) Summary() Summary {
	return Summary{Brand: c.Brand, Last4: c.Number[len(c.Number)-4:], ExpMonth: c.ExpMonth, ExpYear: c.ExpYear}
}

// BIN answers the first six digits (the issuer identification number).
func (c Card) BIN() string { return c.Number[:6] }

// Fingerprint is a keyed HMAC of the number: the same card gives the same fingerprint
// (duplicate detection), and without the key it cannot be brute-forced back to a number.
func Fingerprint(key []byte, number string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(number))
	return hex.EncodeToString(m.Sum(nil))
}

// Customer-facing messages of the processor's CUSTOMER error type. The spec shows them
// with 'tokenize' replaced by 'process' (CustomerMessage).
const (
	MsgInvalidFields  = "Some payment input fields are invalid. Cannot tokenize invalid card fields."
	MsgEmptyFields    = "All fields are empty. Cannot tokenize empty card fields."
	MsgInvalidNumber  = "Credit card number is invalid."
	MsgNumberRequired = "Credit Card cannot be blank"
	MsgInvalidExpiry  = "Expiration date is invalid."
	MsgExpiredExpiry  = "Expiration date is in the past."
	MsgInvalidCVV     = "CVV is invalid."
)

// What a buyer reads when the processor refuses a payment or a card's verification, by
// failure code (issue 45): what happened and what to do, in plain words, never the
// processor's wording ("Do Not Honor", "Gateway Rejected: CVV does not match", "Processor
// declined the verification: ..."). The failure code keeps the processor's class for support.
const (
	MsgCardDeclined      = "Your bank declined this card. Use another card, or ask your bank why."
	MsgInsufficientFunds = "Your bank declined this card: the funds available are not enough. Use another card."
	MsgCardExpired       = "This card has expired. Use another card."
	MsgCVVMismatch       = "The security code (CVV) does not match this card. Type the 3 or 4 digits again."
	MsgCardNotProcessed  = "The card could not be processed this time: press Pay again."
	MsgMethodUnusable    = "This payment method can no longer be used. Use another card."
)

// DeclineMessage answers the buyer's words for a refusal with failure code code; a code it
// does not know is a card the bank declined.
func DeclineMessage(code string) string {
	switch code {
	case FailInsufficientFunds:
		return MsgInsufficientFunds
	case FailExpiredCard:
		return MsgCardExpired
	case FailCVV:
		return MsgCVVMismatch
	case FailInvalidNonce, FailNonceExpired, FailProcessorTimeout:
		return MsgCardNotProcessed
	case FailInvalidMethod:
		return MsgMethodUnusable
	}
	return MsgCardDeclined
}

// CustomerMessage is how a processor message of type CUSTOMER is shown: 'tokenize'
// becomes 'process' ("Cannot tokenize invalid card fields." → "Cannot process ...").
func CustomerMessage(msg string) string {
	r := strings.NewReplacer("tokenize", "process", "Tokenize", "Process", "tokenise", "process", "Tokenise", "Process")
	return r.Replace(msg)
}

// CheckCard validates the card fields at time now and answers the card, or an Invalid
// error with one field error per bad field (number, cvv, expirationDate).
func CheckCard(in CardInput, now time.Time) (Card, error) {
	number := digitsOnly(in.Number)
	cvv := strings.TrimSpace(in.CVV)
	exp := strings.TrimSpace(in.ExpirationDate)
	if number == "" && cvv == "" && exp == "" {
		return Card{}, &errs.Error{Code: errs.Invalid, Message: CustomerMessage(MsgEmptyFields),
			Fields: []errs.FieldError{{Field: "number", Message: MsgNumberRequired}}}
	}
	var fields []errs.FieldError
	c := Card{Number: number, CVV: cvv, Brand: BrandOf(number)}
	switch {
	case number == "":
		fields = append(fields, errs.FieldError{Field: "number", Message: MsgNumberRequired})
	case !validNumber(in.Number) || len(number) < 12 || len(number) > 19 || !Luhn(number):
		fields = append(fields, errs.FieldError{Field: "number", Message: MsgInvalidNumber})
	}
	m, y, err := cardexpiry.Parse(exp)
	switch {
	case err != nil:
		fields = append(fields, errs.FieldError{Field: "expirationDate", Message: MsgInvalidExpiry})
	case y < now.Year() || (y == now.Year() && m < int(now.Month())):
		fields = append(fields, errs.FieldError{Field: "expirationDate", Message: MsgExpiredExpiry})
	case y > now.Year()+20:
		fields = append(fields, errs.FieldError{Field: "expirationDate", Message: MsgInvalidExpiry})
	}
	c.ExpMonth, c.ExpYear = m, y
	want := 3
	if c.Brand == Amex {
		want = 4
	}
	if len(cvv) != want || digitsOnly(cvv) != cvv {
		fields = append(fields, errs.FieldError{Field: "cvv", Message: MsgInvalidCVV})
	}
	fields = append(fields, checkText("cardholderName", "Cardholder name", in.CardholderName, MaxCardholderName)...)
	fields = append(fields, checkText("postalCode", "Postal code", in.PostalCode, MaxPostalCode)...)
	if len(fields) > 0 {
		return Card{}, &errs.Error{Code: errs.Invalid, Message: CustomerMessage(MsgInvalidFields), Fields: fields}
	}
	return c, nil
}

// Longest card-holder name and postal code the fields take (the processors' own limits:
// 175 and 20 characters).
const (
	MaxCardholderName = 175
	MaxPostalCode     = 20
)

// checkText refuses a free-text card field that is not one line of text within max
// characters (issue 41: a NUL reached PostgreSQL and answered 503; a 9,000-character
// name was taken).
func checkText(field, label, v string, max int) []errs.FieldError {
	switch {
	case !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl):
		return []errs.FieldError{{Field: field, Message: label + " contains characters that are not allowed."}}
	case utf8.RuneCountInString(v) > max:
		return []errs.FieldError{{Field: field, Message: fmt.Sprintf("%s must be at most %d characters.", label, max)}}
	}
	return nil
}

// Luhn reports whether a digit string passes the Luhn checksum.
func Luhn(number string) bool {
	sum, double := 0, false
	for i := len(number) - 1; i >= 0; i-- {
		d := int(number[i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return number != "" && sum%10 == 0
}

// BrandOf answers the network of a card number by its prefix.
func BrandOf(n string) Brand {
	p := func(k int) int {
		if len(n) < k {
			return -1
		}
		v, _ := strconv.Atoi(n[:k])
		return v
	}
	switch {
	case strings.HasPrefix(n, "4"):
		return Visa
	case p(2) >= 51 && p(2) <= 55, p(4) >= 2221 && p(4) <= 2720:
		return Mastercard
	case p(2) == 34 || p(2) == 37:
		return Amex
	case p(4) == 6011, p(2) == 65, p(3) >= 644 && p(3) <= 649:
		return Discover
	case p(4) >= 3528 && p(4) <= 3589:
		return JCB
	}
	return Unknown
}

func digitsOnly(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// validNumber allows digits, spaces and dashes only.
func validNumber(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && r != ' ' && r != '-' {
			return false
		}
	}
	return true
}
