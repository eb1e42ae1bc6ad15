package app

import (
	"context"
	"crypto/hmac"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Reader is who asks for a receipt: the session's account (with its organization and
// roles) and the receipt cookie of the browser that paid.
type Reader struct {
	AccountID, Email, Organization string
	Roles                          []string
	ReceiptToken                   string
}

// orgAdminRoles may read their organization's receipts.
var orgAdminRoles = map[string]bool{"owner": true, "user_admin": true, "aircraft_admin": true}

// Receipt answers an order's receipt to the account's session, its organization's admins
// and the browser that paid; not found to anyone else (so ids cannot be probed).
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
	if r.ReceiptToken != "" && hmac.Equal([]byte(r.ReceiptToken), []byte(s.ReceiptToken(o.InvoiceID))) {
		return true
	}
	if r.AccountID != "" && o.AccountID != "" && strings.EqualFold(r.AccountID, o.AccountID) ||
		r.Email != "" && strings.EqualFold(r.Email, o.Email) {
		return true
	}
	if r.Organization != "" && o.OrganizationID != "" && strings.EqualFold(r.Organization, o.OrganizationID) {
		for _, role := range r.Roles {
			if orgAdminRoles[role] {
				return true
			}
		}
	}
	return false
}
