package ports

import (
	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
)

// The request hash of a submit names the order, not how it is paid (issue 30, "Retries
// that succeed"; the decision is in services/checkout/README.md, "Idempotency keys").
// A card nonce and a reCAPTCHA token are single use and the page gets new ones on every
// click, so with them in the hash the retry of an attempt whose answer was lost could only
// ever be refused as a reused key, even when the first attempt was charged. Without them:
// the retry of a key answers that attempt (its order, or it completes it with the payment
// it was first made with), and a new payment under a declined key is a new attempt.

// withoutPayment clears a subscription submit's payment fields (a copy).
func withoutPayment(c *checkoutv1.Configuration) {
	c.Nonce, c.PaymentMethodToken, c.CardholderName, c.RecaptchaValue = "", "", "", ""
}

// giftWithoutPayment clears a gift submit's payment fields (a copy).
func giftWithoutPayment(r *checkoutv1.SubmitGiftRequest) {
	r.Nonce, r.CardholderName, r.RecaptchaValue = "", "", ""
}

// oneOffWithoutPayment clears a one-off submit's payment fields (a copy).
func oneOffWithoutPayment(r *checkoutv1.SubmitOneOffRequest) {
	r.Nonce, r.PaymentMethodToken, r.UseSavedCard = "", "", false
	if c := r.GetConfiguration(); c != nil {
		c.CardholderName, c.RecaptchaValue = "", ""
	}
}
