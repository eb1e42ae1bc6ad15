// Package domain holds what the notifications service says and to whom: the e-mails of the
// store's events (receipts, gift certificates, verification codes, welcomes, renewal
// notices), rendered from html/template and text/template files, both parts in every
// message, amounts formatted per currency. No Kafka, SQL or SMTP here.
package domain

import (
	"net/mail"
	"strings"
	"time"
	"unicode"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Message is one e-mail to send, rendered and addressed, tied to the event that caused it.
type Message struct {
	// ID is unique per event and recipient role (<event id>.<template>), so the
	// Message-ID header derived from it is the same however often the event is delivered:
	// a receiver can drop a duplicate.
	ID       string
	EventID  string
	Template string
	To       string
	Subject  string
	Text     string
	HTML     string
}

// MessageIDHeader is the Message-ID header value of m under domain.
func (m Message) MessageIDHeader(domain string) string { return m.ID + "@" + domain }

// Site is what every template may name: the store's name, address and support contact.
type Site struct {
	Name    string
	BaseURL string // no trailing slash
	Support string
}

// Line is one line of a receipt.
type Line struct {
	Code        string
	Description string
	Type        string
	Quantity    int32
	Amount      int64 // minor units
	Reason      string
	// PostTax: paid after tax (a gift certificate, the account balance), not part of the
	// subtotal; the receipt lists it below the tax.
	PostTax bool
}

// Receipt is a completed order, as e-mailed to the buyer.
type Receipt struct {
	OrderID       string
	InvoiceID     string
	InvoiceNumber string
	Email         string
	OrderKind     string // subscription, gift, oneoff
	Currency      string
	Lines         []Line
	Subtotal      int64
	Tax           int64
	TaxLabel      string
	Total         int64
	ReverseCharge bool
	CardBrand     string
	CardLast4     string
	CompletedAt   time.Time
	ReceiptPath   string // path of the receipt page on the store
}

// Order kinds (Receipt.OrderKind): each receipt says what happened and what comes next.
const (
	KindSubscription = "subscription"
	KindGift         = "gift"
	KindOneOff       = "oneoff"
)

// AccountPath is the store's account page: the subscription, the card and every invoice.
const AccountPath = "/account"

// ItemLines are the lines listed as items, which sum to the subtotal: tax is its own row
// below the subtotal, and what was paid after tax (PaidLines) follows it.
func (r Receipt) ItemLines() []Line {
	out := make([]Line, 0, len(r.Lines))
	for _, l := range r.Lines {
		if !strings.EqualFold(l.Type, "TAX") && !l.PostTax {
			out = append(out, l)
		}
	}
	return out
}

// PaidLines are the lines paid after tax (gift certificates, the account balance): listed
// below the tax, so subtotal + tax + these is the total.
func (r Receipt) PaidLines() []Line {
	out := make([]Line, 0, len(r.Lines))
	for _, l := range r.Lines {
		if l.PostTax && !strings.EqualFold(l.Type, "TAX") {
			out = append(out, l)
		}
	}
	return out
}

// IsGift, IsOneOff and IsSubscription tell the templates which ending the receipt has (an
// order of no known kind ends as a subscription's, the store's first kind).
func (r Receipt) IsGift() bool         { return r.OrderKind == KindGift }
func (r Receipt) IsOneOff() bool       { return r.OrderKind == KindOneOff }
func (r Receipt) IsSubscription() bool { return !r.IsGift() && !r.IsOneOff() }

// AccountPage is the path of the account page, for the templates.
func (Receipt) AccountPage() string { return AccountPath }

// GiftCertificate is an issued certificate.
type GiftCertificate struct {
	Code           string
	Amount         int64
	Currency       string
	BuyerEmail     string
	RecipientEmail string
	RecipientName  string
	Message        string
	IssuedAt       time.Time
}

// VerificationCode is a military eligibility code.
type VerificationCode struct {
	Email     string
	Code      string
	Program   string // military, military_intl
	ExpiresAt time.Time
}

// Welcome is a new account. An account created without a password (at checkout, or by
// an organization's administrator adding a member: Organization names it) is welcomed with
// the link to choose one (SetPasswordPath, a path on the store with the token in its
// fragment, valid until ExpiresAt); one created with a password has none.
type Welcome struct {
	Email           string
	AccountKind     string
	Organization    string
	SetPasswordPath string
	ExpiresAt       time.Time
	// LinkExpired: the link ran out before the welcome was sent (held for a first order
	// that came later). The welcome then sends its reader to ForgotPasswordPath for a new
	// link instead of carrying a dead one.
	LinkExpired bool
}

// ForgotPasswordPath is the store page that mails a new link to choose a password.
const ForgotPasswordPath = "/account/forgot-password"

// ForgotPath is ForgotPasswordPath, for the templates.
func (Welcome) ForgotPath() string { return ForgotPasswordPath }

// Expired answers the welcome as sent once its link ran out: without the link.
func (w Welcome) Expired() Welcome {
	w.SetPasswordPath, w.LinkExpired = "", true
	return w
}

// HeldWelcome is a rendered welcome waiting for its account's first completed order, with
// what rendering it again needs should its link run out meanwhile.
type HeldWelcome struct {
	Outgoing
	AccountKind   string
	LinkExpiresAt time.Time // zero: no link (or a welcome held before the expiry was kept)
}

// PasswordReset is a "forgot password" link: Link is a path on the store.
type PasswordReset struct {
	Email     string
	Link      string
	ExpiresAt time.Time
}

// Invitation is an organization's invitation to join it: Link is a path on the store
// (the accept page, its token in the fragment). Organization is the name its
// administrator typed, not verified by the store: the mail shows it as such, stripped to
// what cannot make a link (ShownOrganization).
type Invitation struct {
	Email        string
	Organization string
	Link         string
	ExpiresAt    time.Time
}

// maxShownName is the most of an unverified name a mail shows.
const maxShownName = 60

// ShownOrganization is the organization's name as the mail shows it: letters, digits,
// spaces and & ' - , ( ) only, at most maxShownName characters. Anything else (dots,
// slashes, colons, @, controls) becomes a space, so a name like "pay.example/login" is
// no domain, address or URL a mail reader would turn into a link.
func (i Invitation) ShownOrganization() string {
	var b strings.Builder
	for _, r := range i.Organization {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("&'-,()", r) {
			b.WriteRune(r)
		} else {
			b.WriteRune(' ')
		}
	}
	shown := []rune(strings.Join(strings.Fields(b.String()), " "))
	if len(shown) > maxShownName {
		shown = append(shown[:maxShownName-1], '…')
	}
	if len(shown) == 0 {
		return "(no name)"
	}
	return string(shown)
}

// PasswordChanged tells the owner that a reset link set a new password.
type PasswordChanged struct {
	Email     string
	ChangedAt time.Time
}

// LinkTemplates are the e-mails whose bodies carry a credential (a single-use link, a
// verification code, a gift certificate's code, which is a bearer balance): the table keeps
// their bodies only until they are sent.
var LinkTemplates = []string{"eligibility-code", "welcome", "password-reset", "invitation", "gift-buyer", "gift-recipient"}

// Dunning is a renewal notice.
type Dunning struct {
	Email          string
	Kind           string // renewal-reminder, renewal-declined, card-expiring, auto-renew-off, auto-renew-disabled, auto-renew-disabled-grace, subscription-lapsed
	SubscriptionID string
	Amount         int64
	Currency       string
	Date           time.Time
	Reason         string
	ActionPath     string
	NextAttempt    time.Time
}

// DunningKinds are the renewal notices the service knows.
// auto-renew-disabled-grace is auto-renew turned off while a declined renewal was being
// retried: the term has already ended, so the retries stop and the subscription ends now.
var DunningKinds = []string{"renewal-reminder", "renewal-declined", "card-expiring", "auto-renew-off", "auto-renew-disabled",
	"auto-renew-disabled-grace", "subscription-lapsed"}

// Receipt renders the buyer's receipt.
func (r *Renderer) Receipt(eventID string, rc Receipt) ([]Message, error) {
	if err := address(rc.Email); err != nil {
		return nil, err
	}
	m, err := r.message(eventID, "receipt", rc.Email, r.receiptView(rc))
	return []Message{m}, err
}

// GiftCertificate renders the buyer's copy and, when a recipient is named, the recipient's.
func (r *Renderer) GiftCertificate(eventID string, g GiftCertificate) ([]Message, error) {
	if err := address(g.BuyerEmail); err != nil {
		return nil, err
	}
	buyer, err := r.message(eventID, "gift-buyer", g.BuyerEmail, g)
	if err != nil {
		return nil, err
	}
	out := []Message{buyer}
	if g.RecipientEmail != "" && !strings.EqualFold(g.RecipientEmail, g.BuyerEmail) {
		if err := address(g.RecipientEmail); err != nil {
			return nil, err
		}
		rcpt, err := r.message(eventID, "gift-recipient", g.RecipientEmail, g)
		if err != nil {
			return nil, err
		}
		out = append(out, rcpt)
	}
	return out, nil
}

// VerificationCode renders the military verification-code e-mail.
func (r *Renderer) VerificationCode(eventID string, v VerificationCode) ([]Message, error) {
	if err := address(v.Email); err != nil {
		return nil, err
	}
	if v.Code == "" {
		return nil, errs.E(errs.Invalid, "verification code event without a code")
	}
	m, err := r.message(eventID, "eligibility-code", v.Email, v)
	return []Message{m}, err
}

// Welcome renders the welcome e-mail of a new account.
func (r *Renderer) Welcome(eventID string, w Welcome) ([]Message, error) {
	if err := address(w.Email); err != nil {
		return nil, err
	}
	if w.SetPasswordPath != "" {
		if err := storePath(w.SetPasswordPath); err != nil {
			return nil, err
		}
	}
	m, err := r.message(eventID, "welcome", w.Email, r.welcomeView(w))
	return []Message{m}, err
}

// PasswordReset renders the e-mail of a "forgot password" link.
func (r *Renderer) PasswordReset(eventID string, p PasswordReset) ([]Message, error) {
	if err := address(p.Email); err != nil {
		return nil, err
	}
	if err := storePath(p.Link); err != nil {
		return nil, err
	}
	m, err := r.message(eventID, "password-reset", p.Email, p)
	return []Message{m}, err
}

// Invitation renders an organization's invitation.
func (r *Renderer) Invitation(eventID string, i Invitation) ([]Message, error) {
	if err := address(i.Email); err != nil {
		return nil, err
	}
	if err := storePath(i.Link); err != nil {
		return nil, err
	}
	m, err := r.message(eventID, "invitation", i.Email, i)
	return []Message{m}, err
}

// PasswordChanged renders the notice of a password set by a reset link.
func (r *Renderer) PasswordChanged(eventID string, p PasswordChanged) ([]Message, error) {
	if err := address(p.Email); err != nil {
		return nil, err
	}
	m, err := r.message(eventID, "password-changed", p.Email, p)
	return []Message{m}, err
}

// storePath refuses a link that is not a path on the store: the mail prefixes the
// store's address, and an event must not be able to send people elsewhere.
func storePath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return errs.E(errs.Invalid, "password link event without a store path")
	}
	return nil
}

// Dunning renders a renewal notice.
func (r *Renderer) Dunning(eventID string, d Dunning) ([]Message, error) {
	if err := address(d.Email); err != nil {
		return nil, err
	}
	known := false
	for _, k := range DunningKinds {
		known = known || k == d.Kind
	}
	if !known {
		return nil, errs.E(errs.Invalid, "unknown dunning notice kind %q", d.Kind)
	}
	m, err := r.message(eventID, "dunning", d.Email, d)
	return []Message{m}, err
}

func (r *Renderer) message(eventID, template, to string, data any) (Message, error) {
	subject, text, html, err := r.Render(template, data)
	if err != nil {
		return Message{}, err
	}
	return Message{ID: eventID + "." + template, EventID: eventID, Template: template, To: to, Subject: subject, Text: text, HTML: html}, nil
}

func address(a string) error {
	if a == "" {
		return errs.E(errs.Invalid, "event without an e-mail address")
	}
	if _, err := mail.ParseAddress(a); err != nil {
		return errs.E(errs.Invalid, "event with an invalid e-mail address %q", a)
	}
	return nil
}
