package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// MilitaryRequest answers the military form: whether the address is eligible, and the
// invoice URL when it was verified before (a code is sent either way when eligible).
type MilitaryRequest struct {
	Eligible   bool
	InvoiceURL string
}

// RequestMilitaryCode checks the address against the military domain list and, when it
// is eligible, issues a code and publishes it (the event is the only place the code
// exists in clear; it is never logged).
func (s *Service) RequestMilitaryCode(ctx context.Context, email, subscription string) (MilitaryRequest, error) {
	email = domain.NormalizeEmail(email)
	if !domain.ValidEmail(email) {
		return MilitaryRequest{}, errs.Field("email", domain.MsgEmailInvalid)
	}
	pats, err := s.store.MilitaryDomains(ctx)
	if err != nil {
		return MilitaryRequest{}, err
	}
	pat, ok := domain.MatchDomain(email, pats)
	if !ok {
		return MilitaryRequest{Eligible: false}, nil
	}
	program := domain.Program(subscription, pat)
	code, err := domain.NewCode()
	if err != nil {
		return MilitaryRequest{}, err
	}
	now := s.now()
	c := domain.Code{Email: email, Program: program, ExpiresAt: now.Add(s.pol.Codes.TTL)}
	payload, err := proto.Marshal(&eventsv1.EligibilityCodeRequested{Email: email, Code: code, ExpiresAt: timestamppb.New(c.ExpiresAt), Program: program})
	if err != nil {
		return MilitaryRequest{}, fmt.Errorf("encode eligibility code requested: %w", err)
	}
	ev := kafka.Event{Topic: events.TopicEligibilityCodeRequested, Key: email, Payload: payload}
	err = s.store.IssueCode(ctx, c, now, s.pol.Codes.MaxPerHour, func(id string) []byte { return domain.HashCode(id, email, code) }, []kafka.Event{ev})
	if err != nil {
		return MilitaryRequest{}, err
	}
	s.log.InfoContext(ctx, "military verification code issued", "program", program)
	return MilitaryRequest{Eligible: true}, nil
}

// VerifyMilitaryCode checks a code and answers the military buy page's invoice URL.
// Every failure (wrong, expired, used, too many attempts, none) answers the spec's one
// message, so the form cannot be used to learn which.
func (s *Service) VerifyMilitaryCode(ctx context.Context, email, code string) (string, error) {
	email = domain.NormalizeEmail(email)
	if !domain.ValidEmail(email) {
		return "", errs.Field("email", domain.MsgEmailInvalid)
	}
	code = strings.TrimSpace(code)
	if len(code) != 6 {
		return "", errs.Field("code", domain.MsgCodeError)
	}
	now := s.now()
	c, res, err := s.store.CheckCode(ctx, email, now, func(c domain.Code) domain.CodeCheck { return c.Check(code, now, s.pol.Codes) })
	if err != nil {
		return "", err
	}
	if res != domain.CodeOK {
		return "", errs.Field("code", domain.MsgCodeError)
	}
	return domain.InvoiceURL(c.Program, email), nil
}

// AssociationInput is the aircraft-owner-association form.
type AssociationInput struct {
	Email, Password, VerifyPassword, MemberNumber, LastName string
	Consent, CreateUser                                     bool
}

// Association is the form's answer.
type Association struct {
	Verified     bool
	ErrorMessage string
	Login        *Login // set when an account was created (and logged in)
}

// MsgNotMember is the answer when the registry does not hold the member.
const MsgNotMember = "We could not verify your membership. Please check your member number and last name."

// VerifyAssociationMember checks the member registry and optionally creates an account.
func (s *Service) VerifyAssociationMember(ctx context.Context, in AssociationInput, req Request) (Association, error) {
	email := domain.NormalizeEmail(in.Email)
	var fe []errs.FieldError
	if !domain.ValidEmail(email) {
		fe = append(fe, errs.FieldError{Field: "email", Message: "Please enter your email address."})
	}
	if strings.TrimSpace(in.MemberNumber) == "" {
		fe = append(fe, errs.FieldError{Field: "memberNumber", Message: "Please enter your member number."})
	}
	if strings.TrimSpace(in.LastName) == "" {
		fe = append(fe, errs.FieldError{Field: "lastName", Message: "Please enter your last name."})
	}
	if !in.Consent {
		fe = append(fe, errs.FieldError{Field: "consent", Message: "Please consent to the membership check."})
	}
	if in.CreateUser {
		if msg := domain.PasswordPolicyProblem(in.Password, email); msg != "" {
			fe = append(fe, errs.FieldError{Field: "password", Message: msg})
		}
		if in.Password != in.VerifyPassword {
			fe = append(fe, errs.FieldError{Field: "verifyPassword", Message: domain.MsgPasswordsDiffer})
		}
	}
	if len(fe) > 0 {
		msgs := make([]string, len(fe))
		for i, f := range fe {
			msgs[i] = f.Message
		}
		return Association{}, &errs.Error{Code: errs.Invalid, Message: strings.Join(msgs, " "), Fields: fe}
	}
	ok, err := s.store.AssociationMember(ctx, in.MemberNumber, in.LastName)
	if err != nil {
		return Association{}, err
	}
	if !ok {
		return Association{Verified: false, ErrorMessage: MsgNotMember}, nil
	}
	if err := s.store.RecordAssociationVerification(ctx, email, in.MemberNumber, s.now()); err != nil {
		return Association{}, err
	}
	out := Association{Verified: true}
	if in.CreateUser {
		acct, err := s.createAccount(ctx, req.IP, domain.Account{Email: email, Kind: domain.Individual, MarketingConsent: false}, in.Password)
		if err != nil {
			var fe *errs.Error
			if errors.As(err, &fe) && fe.Code == errs.Invalid {
				// The membership is verified; the account could not be made (e-mail taken).
				return Association{Verified: true, ErrorMessage: fe.Message}, nil
			}
			return Association{}, err
		}
		l, err := s.startSession(ctx, acct, req)
		if err != nil {
			return Association{}, err
		}
		out.Login = &l
	}
	return out, nil
}

// MilitaryEligibility answers whether identity holds a buyer as military-eligible (spec 001
// §4, military eligibility): the e-mail proved it by the code flow, or the account (named,
// else the e-mail's) is marked military. program is the proven program, "" for an account
// marked military without one. Checkout asks it before it sells a military plan.
func (s *Service) MilitaryEligibility(ctx context.Context, email, accountUUID string) (eligible bool, program string, err error) {
	email = domain.NormalizeEmail(email)
	var acct domain.Account
	found := false
	if accountUUID != "" {
		p, perr := s.store.Profile(ctx, accountUUID)
		if perr != nil && errs.CodeOf(perr) != errs.NotFound {
			return false, "", perr
		}
		if perr == nil {
			acct, found = p.Account, true
		}
	}
	if !found && email != "" {
		a, aerr := s.store.AccountByEmail(ctx, email)
		if aerr != nil && errs.CodeOf(aerr) != errs.NotFound {
			return false, "", aerr
		}
		acct, found = a, aerr == nil
	}
	for _, addr := range []string{email, acct.Email} {
		if addr == "" {
			continue
		}
		prog, ok, verr := s.store.MilitaryVerified(ctx, domain.NormalizeEmail(addr))
		if verr != nil {
			return false, "", verr
		}
		if ok {
			return true, prog, nil
		}
	}
	return found && acct.Military, "", nil
}
