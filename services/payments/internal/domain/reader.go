package domain

import (
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// ReaderStatus is the state of a card-reader vault request.
type ReaderStatus string

const (
	ReaderWaiting   ReaderStatus = "waiting"
	ReaderCompleted ReaderStatus = "completed"
	ReaderFailed    ReaderStatus = "failed"
	ReaderCancelled ReaderStatus = "cancelled"
)

// Messages of the card-reader flow (the page shows the server's message).
const (
	MsgReaderTimedOut   = "The card reader did not receive a card in time. Please start again."
	MsgReaderSuperseded = "Another card request was started on this reader. Please start again."
	MsgUnknownReader    = "Unknown card reader."
	MsgNoReaderRequest  = "Card reader vault request not found."
)

// ReaderSession is one request to a reader to collect a card for a customer.
type ReaderSession struct {
	ContextID      string
	Reader         string
	Email          string
	RequestedBy    string
	Status         ReaderStatus
	Token          string
	CardholderName string
	Message        string
	CreatedAt      time.Time
	ExpiresAt      time.Time
}

// NewReaderSession validates a vault request.
func NewReaderSession(id, reader, email, by string, readers []string, now time.Time, ttl time.Duration) (ReaderSession, error) {
	email = strings.TrimSpace(email)
	if !ValidEmail(email) {
		return ReaderSession{}, errs.Field("email", "Please enter your email address.")
	}
	known := false
	for _, r := range readers {
		known = known || r == reader
	}
	if !known {
		return ReaderSession{}, errs.Field("readerSerialNumber", MsgUnknownReader)
	}
	return ReaderSession{ContextID: id, Reader: reader, Email: email, RequestedBy: by, Status: ReaderWaiting,
		CreatedAt: now, ExpiresAt: now.Add(ttl)}, nil
}

// Result answers the session's outcome at now: done with a token, still waiting, or an
// error carrying the message to show.
func (s ReaderSession) Result(now time.Time) (done bool, err error) {
	switch s.Status {
	case ReaderCompleted:
		return true, nil
	case ReaderWaiting:
		if !now.Before(s.ExpiresAt) {
			return false, errs.E(errs.Precondition, "%s", MsgReaderTimedOut)
		}
		return false, nil
	case ReaderCancelled:
		return false, errs.E(errs.Precondition, "%s", orDefault(s.Message, MsgReaderSuperseded))
	default:
		return false, errs.E(errs.Precondition, "%s", orDefault(s.Message, "The card was not accepted."))
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
