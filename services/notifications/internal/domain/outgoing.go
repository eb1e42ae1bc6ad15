package domain

import "errors"

// Outgoing is a message in the send queue, with its delivery state.
type Outgoing struct {
	Message
	Trace    map[string]string // trace context its send continues (its event's span)
	Attempts int
	Fence    int64 // the fencing token of the claim its sender holds it under
}

// Held answers o's lease as its sender holds it.
func (o Outgoing) Held() Held { return Held{ID: o.ID, Fence: o.Fence} }

// FirstFence is the fencing token of a mail written claimed by the consumer for its own
// process's senders; every claim of the poll raises a mail's token.
const FirstFence = 1

// Held is a message a sender holds, and the fencing token of its claim: every write of
// the sender about it is conditional on the token, so a sender whose lease was taken over
// writes nothing.
type Held struct {
	ID    string
	Fence int64
}

// ErrPermanent marks a refusal that retrying will not change (an SMTP 5xx reply): a mailer's
// error wrapping it gives the message up at once.
var ErrPermanent = errors.New("permanent SMTP failure")
