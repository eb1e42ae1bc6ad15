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

// The hashes are made of the request as it came (no copy of it): without clears the fields
// that are not the order's in place and answers the function that puts them back, so the
// bytes hashed are those of a cleared copy and the request is left as it was.

// withoutPayment clears a subscription submit's payment fields and those that do not
// change what is bought (the page's counter and cart id).
func withoutPayment(c *checkoutv1.Configuration) (restore func()) {
	nonce, token, name, captcha, counter, cart := c.Nonce, c.PaymentMethodToken, c.CardholderName, c.RecaptchaValue, c.Counter, c.CartId
	c.Nonce, c.PaymentMethodToken, c.CardholderName, c.RecaptchaValue, c.Counter, c.CartId = "", "", "", "", 0, ""
	return func() {
		c.Nonce, c.PaymentMethodToken, c.CardholderName, c.RecaptchaValue, c.Counter, c.CartId = nonce, token, name, captcha, counter, cart
	}
}

// giftWithoutPayment clears a gift submit's payment fields and its key.
func giftWithoutPayment(r *checkoutv1.SubmitGiftRequest) (restore func()) {
	key, nonce, name, captcha := r.IdempotencyKey, r.Nonce, r.CardholderName, r.RecaptchaValue
	r.IdempotencyKey, r.Nonce, r.CardholderName, r.RecaptchaValue = "", "", "", ""
	return func() { r.IdempotencyKey, r.Nonce, r.CardholderName, r.RecaptchaValue = key, nonce, name, captcha }
}

// oneOffWithoutPayment clears a one-off submit's payment fields, its key and the page's
// counter.
func oneOffWithoutPayment(r *checkoutv1.SubmitOneOffRequest) (restore func()) {
	key, nonce, token, saved := r.IdempotencyKey, r.Nonce, r.PaymentMethodToken, r.UseSavedCard
	r.IdempotencyKey, r.Nonce, r.PaymentMethodToken, r.UseSavedCard = "", "", "", false
	c := r.GetConfiguration()
	if c == nil {
		return func() { r.IdempotencyKey, r.Nonce, r.PaymentMethodToken, r.UseSavedCard = key, nonce, token, saved }
	}
	counter, name, captcha := c.Counter, c.CardholderName, c.RecaptchaValue
	c.Counter, c.CardholderName, c.RecaptchaValue = 0, "", ""
	return func() {
		r.IdempotencyKey, r.Nonce, r.PaymentMethodToken, r.UseSavedCard = key, nonce, token, saved
		c.Counter, c.CardholderName, c.RecaptchaValue = counter, name, captcha
	}
}
