package domain

import "errors"

// Outgoing is a message in the send queue, with its delivery state.
type Outgoing struct {
	Message
	Trace    map[string]string // trace context its send continues (its event's span)
	Attempts int
}

// ErrPermanent marks a refusal that retrying will not change (an SMTP 5xx reply): a mailer's
// error wrapping it gives the message up at once.
var ErrPermanent = errors.New("permanent SMTP failure")
