package domain_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestFormatMoney(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cents    int64
		currency string
		want     string
	}{
		{0, "USD", "$0.00"},
		{5, "USD", "$0.05"},
		{123456, "USD", "$1,234.56"},
		{100000000, "CAD", "CA$1,000,000.00"},
		{-1000, "EUR", "-€10.00"},
		{2500, "GBP", "£25.00"},
		{37000, "AUD", "AU$370.00"},
		{99, "CHF", "0.99 CHF"},
	} {
		if got := domain.FormatMoney(tc.cents, tc.currency); got != tc.want {
			t.Errorf("FormatMoney(%d, %s) = %q, want %q", tc.cents, tc.currency, got, tc.want)
		}
	}
}

var site = domain.Site{Name: "Hangar", BaseURL: "https://store.hangar.example/", Support: "support@hangar.example"}

var at = time.Date(2026, 11, 23, 14, 5, 0, 0, time.FixedZone("CET", 3600))

// fullReceipt sets every field of a receipt.
var fullReceipt = domain.Receipt{
	OrderID: "ord-42", InvoiceID: "inv-42", InvoiceNumber: "H-2026-000042", Email: "pilot@example.com",
	OrderKind: "subscription", Currency: "EUR",
	Lines: []domain.Line{
		{Code: "pro_plus", Description: "Pro Plus (1 year)", Type: "SUBSCRIPTION", Quantity: 1, Amount: 199_00},
		{Code: "add_geo_eu", Description: "Europe region", Type: "SUBSCRIPTION", Quantity: 2, Amount: 2_450_00},
		{Code: "SPRING", Description: "Promo SPRING", Type: "PROMO", Quantity: 1, Amount: -20_00, Reason: "10% off <first year>"},
		{Code: "", Description: "VAT", Type: "TAX", Quantity: 1, Amount: 0},
	},
	Subtotal: 2_629_00, Tax: 0, TaxLabel: "VAT (reverse charge)", Total: 2_629_00, ReverseCharge: true,
	CardBrand: "Visa", CardLast4: "1111", CompletedAt: at, ReceiptPath: "/buy/success?invoiceId=inv-42",
}

func TestGoldenMessages(t *testing.T) {
	t.Parallel()
	r, err := domain.NewRenderer(site)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func() ([]domain.Message, error){
		"receipt": func() ([]domain.Message, error) { return r.Receipt("evt-1", fullReceipt) },
		"receipt-usd-taxed": func() ([]domain.Message, error) {
			rc := fullReceipt
			rc.Currency, rc.Tax, rc.TaxLabel, rc.Total, rc.ReverseCharge, rc.Lines = "USD", 216_92, "", 2_845_92, false, rc.Lines[:2]
			return r.Receipt("evt-2", rc)
		},
		"receipt-gift":    func() ([]domain.Message, error) { return r.Receipt("evt-14", giftReceipt) },
		"receipt-oneoff":  func() ([]domain.Message, error) { return r.Receipt("evt-15", oneOffReceipt) },
		"receipt-balance": func() ([]domain.Message, error) { return r.Receipt("evt-16", balanceReceipt) },
		"gift": func() ([]domain.Message, error) {
			return r.GiftCertificate("evt-3", domain.GiftCertificate{Code: "GC7K-2M9Q-XR4T", Amount: 370_00, Currency: "USD",
				BuyerEmail: "buyer@example.com", RecipientEmail: "friend@example.com", RecipientName: "Sam <Pilot>",
				Message: "Happy birthday & blue skies!", IssuedAt: at})
		},
		"gift-no-recipient": func() ([]domain.Message, error) {
			return r.GiftCertificate("evt-4", domain.GiftCertificate{Code: "GC2A-BBBB-CCCC", Amount: 25_00, Currency: "GBP", BuyerEmail: "buyer@example.com", IssuedAt: at})
		},
		"gift-recipient-name-only": func() ([]domain.Message, error) {
			return r.GiftCertificate("evt-7", domain.GiftCertificate{Code: "GC3D-EEEE-FFFF", Amount: 125_00, Currency: "USD", BuyerEmail: "buyer@example.com",
				RecipientName: "Sam <Pilot>", IssuedAt: at})
		},
		"eligibility-code": func() ([]domain.Message, error) {
			return r.VerificationCode("evt-5", domain.VerificationCode{Email: "jane@navy.mil", Code: "482913", Program: "military_intl", ExpiresAt: at})
		},
		"welcome": func() ([]domain.Message, error) {
			return r.Welcome("evt-6", domain.Welcome{Email: "new@example.com", AccountKind: "business"})
		},
		"welcome-set-password": func() ([]domain.Message, error) {
			return r.Welcome("evt-8", domain.Welcome{Email: "buyer@example.com", AccountKind: "individual",
				SetPasswordPath: "/account/set-password#token=TOKEN&welcome=1", ExpiresAt: at})
		},
		"welcome-member": func() ([]domain.Message, error) {
			return r.Welcome("evt-11", domain.Welcome{Email: "crew@example.com", AccountKind: "individual", Organization: "Fleet One",
				SetPasswordPath: "/account/set-password#token=TOKEN&welcome=1", ExpiresAt: at})
		},
		"welcome-link-expired": func() ([]domain.Message, error) {
			return r.Welcome("evt-12", domain.Welcome{Email: "buyer@example.com", AccountKind: "individual",
				SetPasswordPath: "/account/set-password#token=TOKEN&welcome=1", ExpiresAt: at}.Expired())
		},
		"password-reset": func() ([]domain.Message, error) {
			return r.PasswordReset("evt-9", domain.PasswordReset{Email: "pilot@example.com", Link: "/account/set-password#token=TOKEN", ExpiresAt: at})
		},
		"invitation": func() ([]domain.Message, error) {
			return r.Invitation("evt-13", domain.Invitation{Email: "crew@example.com", Organization: "Fleet <b>One</b> & Co. — log in at https://pay.example/hangar\n\nTOTAL",
				Link: "/account/invitation#token=TOKEN", ExpiresAt: at})
		},
		"password-changed": func() ([]domain.Message, error) {
			return r.PasswordChanged("evt-10", domain.PasswordChanged{Email: "pilot@example.com", ChangedAt: at})
		},
	}
	for _, kind := range domain.DunningKinds {
		cases["dunning-"+kind] = func() ([]domain.Message, error) {
			return r.Dunning("evt-"+kind, domain.Dunning{Email: "pilot@example.com", Kind: kind, SubscriptionID: "sub-1", Amount: 199_00,
				Currency: "CAD", Date: at, Reason: "card declined", ActionPath: "/buy?subscriptionId=sub-1", NextAttempt: at.AddDate(0, 0, 3)})
		}
	}
	for name, render := range cases {
		t.Run(name, func(t *testing.T) {
			msgs, err := render()
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, m := range msgs {
				if m.Text == "" || m.HTML == "" || m.Subject == "" {
					t.Errorf("%s: a part is empty", m.ID)
				}
				if !strings.HasPrefix(m.ID, m.EventID+".") {
					t.Errorf("message id %q does not derive from event id %q", m.ID, m.EventID)
				}
				b.WriteString("== " + m.ID + " to " + m.To + "\nSubject: " + m.Subject + "\n-- text\n" + m.Text + "\n-- html\n" + m.HTML + "\n")
			}
			golden(t, filepath.Join("testdata", name+".golden"), b.String())
		})
	}
}

// Every field of the receipt shows in both parts.
func TestReceiptShowsEveryField(t *testing.T) {
	t.Parallel()
	r, _ := domain.NewRenderer(site)
	msgs, err := r.Receipt("evt-1", fullReceipt)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[0]
	for _, want := range []string{"H-2026-000042", "ord-42", "11-23-2026", "13:05 UTC", "Pro Plus (1 year)", "Europe region", "€2,450.00",
		"Promo SPRING", "-€20.00", "€2,629.00", "VAT (reverse charge)", "Visa", "1111", "reverse charge",
		"https://store.hangar.example/buy/success?invoiceId=inv-42"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text part lacks %q", want)
		}
		if !strings.Contains(m.HTML, strings.ReplaceAll(want, "<", "&lt;")) {
			t.Errorf("html part lacks %q", want)
		}
	}
	if !strings.Contains(m.HTML, "10% off &lt;first year&gt;") {
		t.Error("html part does not escape the line reason")
	}
}

var giftReceipt = domain.Receipt{OrderID: "ord-43", InvoiceID: "inv-43", InvoiceNumber: "H-2026-000043", Email: "buyer@example.com",
	OrderKind: "gift", Currency: "USD", Lines: []domain.Line{{Description: "Gift certificate $370.00", Type: "GIFT_CERTIFICATE", Amount: 370_00}},
	Subtotal: 370_00, Total: 370_00, CardBrand: "Visa", CardLast4: "1111", CompletedAt: at, ReceiptPath: "/buy/success?invoiceId=inv-43"}

var oneOffReceipt = domain.Receipt{OrderID: "ord-44", InvoiceID: "inv-44", InvoiceNumber: "H-2026-000044", Email: "buyer@example.com",
	OrderKind: "oneoff", Currency: "USD", Lines: []domain.Line{
		{Code: "oneoff_dbcard_garmin_sd", Description: "Garmin Database Card (SD)", Type: "NON_RECURRING_ITEM", Quantity: 2, Amount: 98_00}},
	Subtotal: 98_00, Tax: 7_11, Total: 105_11, CardBrand: "Visa", CardLast4: "1111", CompletedAt: at, ReceiptPath: "/buy/success?invoiceId=inv-44"}

// The issue 45 cart: a plan change with the unused days credited before tax and $25 of
// account balance paid after it.
var balanceReceipt = domain.Receipt{OrderID: "ord-45", InvoiceID: "inv-45", InvoiceNumber: "H-2026-000045", Email: "pilot@example.com",
	OrderKind: "subscription", Currency: "USD", Lines: []domain.Line{
		{Code: "pro_plus", Description: "Essential — 1 year", Type: "PLAN", Quantity: 1, Amount: 199_99},
		{Code: "add_geo_eu", Description: "Europe — 1 year", Type: "PLAN_ADD_ON", Quantity: 1, Amount: 100_00},
		{Description: "Credit for 143 unused days of Premium", Type: "SUBSCRIPTION_CREDIT", Amount: -184_13},
		{Description: "Paid from account balance", Type: "ACCOUNT_BALANCE", Amount: -25_00, PostTax: true}},
	Subtotal: 115_86, Tax: 8_40, Total: 99_26, CardBrand: "Visa", CardLast4: "1111", CompletedAt: at, ReceiptPath: "/buy/success?invoiceId=inv-45"}

// Each kind of purchase ends with what happened and what comes next: the subscription's
// plan is ready in the app, the gift's code comes in its own e-mail (to the recipient named
// too), the one-off's order is on the account page. None says another kind's words.
func TestReceiptSaysWhatHappenedPerPurchase(t *testing.T) {
	t.Parallel()
	r, _ := domain.NewRenderer(site)
	for _, c := range []struct {
		name    string
		rc      domain.Receipt
		want    []string
		notWant []string
	}{
		{"subscription", fullReceipt, []string{"your plan is ready", "sign in to the Hangar app", "https://store.hangar.example/account"},
			[]string{"gift certificate", "What you bought"}},
		{"gift", giftReceipt, []string{"Thank you for buying a Hangar gift certificate.", "code comes in its own e-mail", "to the recipient", "never expires"},
			[]string{"plan is ready", "sign in to the Hangar app", "renewal"}},
		{"oneoff", oneOffReceipt, []string{"What you bought is listed above", "Garmin Database Card (SD)", "under Invoices", "https://store.hangar.example/account"},
			[]string{"plan is ready", "sign in to the Hangar app", "renewal", "gift certificate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			msgs, err := r.Receipt("evt", c.rc)
			if err != nil {
				t.Fatal(err)
			}
			for part, body := range map[string]string{"text": msgs[0].Text, "html": msgs[0].HTML} {
				for _, w := range c.want {
					if !strings.Contains(body, w) {
						t.Errorf("%s part lacks %q", part, w)
					}
				}
				for _, w := range c.notWant {
					if strings.Contains(body, w) {
						t.Errorf("%s part says %q, another purchase's words", part, w)
					}
				}
			}
		})
	}
}

// The balance paid after tax is listed below the tax, so the column sums where it is
// printed: the items make the subtotal, subtotal + tax + balance is the total.
func TestReceiptListsTheBalanceBelowTheTax(t *testing.T) {
	t.Parallel()
	r, _ := domain.NewRenderer(site)
	msgs, err := r.Receipt("evt", balanceReceipt)
	if err != nil {
		t.Fatal(err)
	}
	text := msgs[0].Text
	order := []string{"Essential — 1 year: $199.99", "Europe — 1 year: $100.00", "Credit for 143 unused days of Premium: -$184.13",
		"Subtotal: $115.86", "Tax: $8.40", "Paid from account balance: -$25.00", "Total: $99.26"}
	at := 0
	for _, w := range order {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("text lacks %q after position %d:\n%s", w, at, text)
		}
		at += i + len(w)
	}
	if got := len(balanceReceipt.ItemLines()); got != 3 {
		t.Errorf("%d item lines, want the 3 before tax", got)
	}
}

func TestInvalidEventsAreRefused(t *testing.T) {
	t.Parallel()
	r, _ := domain.NewRenderer(site)
	if _, err := r.Receipt("e", domain.Receipt{}); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("receipt without address = %v", err)
	}
	if _, err := r.VerificationCode("e", domain.VerificationCode{Email: "a@b.c"}); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("code without code = %v", err)
	}
	if _, err := r.Dunning("e", domain.Dunning{Email: "a@b.c", Kind: "nonsense"}); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("unknown dunning = %v", err)
	}
	if _, err := r.Welcome("e", domain.Welcome{Email: "not an address"}); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("bad address = %v", err)
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendering (go test -update rewrites it):\n%s", path, got)
	}
}

// A processor's reason that is already a sentence is not given a second full stop.
func TestDunningReasonEndsWithOneFullStop(t *testing.T) {
	t.Parallel()
	r, err := domain.NewRenderer(site)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := r.Dunning("evt-reason", domain.Dunning{Email: "pilot@example.com", Kind: "renewal-declined", SubscriptionID: "sub-1",
		Amount: 199_00, Currency: "USD", Date: at, Reason: "No payment method is stored for this subscription.", NextAttempt: at.AddDate(0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		for part, body := range map[string]string{"text": m.Text, "html": m.HTML} {
			if !strings.Contains(body, "The reason given: No payment method is stored for this subscription. We will try again") {
				t.Errorf("%s part: reason not rendered as one sentence:\n%s", part, body)
			}
		}
	}
}

// A password link must be a path on the store: an event cannot make the mail send people
// to another site.
func TestPasswordLinksStayOnTheStore(t *testing.T) {
	t.Parallel()
	r, err := domain.NewRenderer(site)
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"https://evil.example/set#token=x", "//evil.example/x", "", "javascript:alert(1)"} {
		if _, err := r.PasswordReset("e", domain.PasswordReset{Email: "a@example.com", Link: link}); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("reset link %q: err = %v, want invalid", link, err)
		}
		if link == "" {
			continue
		}
		if _, err := r.Welcome("e", domain.Welcome{Email: "a@example.com", SetPasswordPath: link}); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("welcome link %q: err = %v, want invalid", link, err)
		}
	}
}

// Issue 41: an invitation names the organization its administrator typed, which the store
// never verified. The mail shows it as such, and carries no link but the store's own: a
// name made of a URL, a domain, an address or markup becomes plain words, in both parts.
// Before, a member's welcome put the name verbatim in the subject and the first sentence.
func TestInvitationShowsTheOrganizationAsUnverified(t *testing.T) {
	t.Parallel()
	r, err := domain.NewRenderer(site)
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`(?i)(https?:|mailto:|www\.|href=")[^\s"<>]*|[a-z0-9-]+\.(com|example|net|org|io)\b`)
	for _, name := range []string{"https://pay.example/login", "Hangar Support <a href=\"//evil.example\">verify</a>", "pay.example",
		"billing@evil.example", "Acme\r\nBcc: x@evil.example", "\u202eelpmaxe.live"} {
		msgs, err := r.Invitation("e", domain.Invitation{Email: "crew@example.com", Organization: name, Link: "/account/invitation#token=T",
			ExpiresAt: time.Date(2026, 11, 23, 13, 5, 0, 0, time.UTC)})
		if err != nil || len(msgs) != 1 {
			t.Fatalf("%q: %v", name, err)
		}
		m := msgs[0]
		for part, body := range map[string]string{"subject": m.Subject, "text": m.Text, "html": m.HTML} {
			rest := strings.NewReplacer(`href="`+strings.TrimSuffix(site.BaseURL, "/"), "", strings.TrimSuffix(site.BaseURL, "/"), "",
				`href="mailto:`+site.Support, "", site.Support, "", "crew@example.com", "").Replace(body)
			if l := links.FindAllString(rest, -1); len(l) > 0 {
				t.Errorf("organization %q: the %s carries %q, not the store's links", name, part, l)
			}
			if strings.ContainsAny(body, "\u202e") || strings.Contains(body, "Bcc:") {
				t.Errorf("organization %q: the %s carries a control or a header", name, part)
			}
		}
	}
	if _, err := r.Invitation("e", domain.Invitation{Email: "crew@example.com", Organization: "Acme", Link: "https://evil.example/#token=T"}); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("an invitation linking elsewhere: %v, want invalid", err)
	}
}
