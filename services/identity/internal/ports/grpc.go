// Package ports serves identity over gRPC and, through grpc-gateway, REST: it converts
// messages, calls the use cases and maps errors; login and logout also ask the gateway
// (through response metadata, see gateway.go) to set or clear the session cookie. The
// Kafka inbox handlers (events.go) decode checkout's events for the use cases likewise.
package ports

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// FullAnswers are the answers the gateway writes with every field (server.EmitDefaults):
// the organization list answers groups even when there are none (spec 001 §7); isbusiness
// answers accountUuid even when it is withheld (empty); the military form post answers
// user.eligible and user.invoiceUrl even when empty (spec 001 §7); logout answers status
// and errors (spec 000 §7), the page showing the list; an invitation's look-up answers hasAccount
// false too (the accept page then asks for a password).
func FullAnswers() []proto.Message {
	return []proto.Message{&identityv1.ListGroupsResponse{}, &identityv1.IsBusinessResponse{},
		&identityv1.RequestMilitaryCodeResponse{}, &identityv1.LogoutResponse{}, &identityv1.GetInvitationResponse{}}
}

// GRPC implements identityv1.IdentityServiceServer.
type GRPC struct {
	identityv1.UnimplementedIdentityServiceServer
	svc            *iapp.Service
	trustedProxies int
}

// NewGRPC serves svc; trustedProxies is how many proxies in front of the service append
// to X-Forwarded-For (see auth.ClientIP).
func NewGRPC(svc *iapp.Service, trustedProxies int) *GRPC {
	return &GRPC{svc: svc, trustedProxies: trustedProxies}
}

// Resolver is identity's own session resolver for the shared middleware: in-process, no
// cache, so a logout is seen at once here.
func Resolver(svc *iapp.Service) auth.Resolver {
	return auth.ResolverFunc(func(ctx context.Context, token string) (auth.Caller, error) {
		a, err := svc.Authenticate(ctx, token)
		if err != nil {
			return auth.Caller{}, err
		}
		return callerOf(a), nil
	})
}

func callerOf(a iapp.Authenticated) auth.Caller {
	p := a.Profile
	f := p.Flags()
	c := auth.Caller{AccountUUID: p.Account.UUID, Username: p.Account.Email, AccountKind: string(p.Account.Kind),
		Roles: p.Roles(), IsCreditCardAdmin: f.IsCreditCardAdmin, IsEmployee: f.IsEmployee, IsMilitary: f.IsMilitary,
		IsChild: f.IsChild, SessionID: a.Session.ID}
	if m, ok := p.Primary(); ok {
		c.OrganizationAccount = m.Org.AccountUUID
	}
	for _, m := range p.Memberships {
		am := auth.Membership{OrganizationAccount: m.Org.AccountUUID}
		for _, r := range m.Roles {
			am.Roles = append(am.Roles, string(r))
		}
		c.Memberships = append(c.Memberships, am)
	}
	return c
}

func (s *GRPC) request(ctx context.Context) iapp.Request { return requestOf(ctx, s.trustedProxies) }

func requestOf(ctx context.Context, trustedProxies int) iapp.Request {
	return iapp.Request{IP: auth.ClientIP(ctx, trustedProxies), UserAgent: auth.UserAgent(ctx), Token: auth.Token(ctx), Device: deviceCookie(ctx)}
}

// deviceCookie answers the device cookie the browser sent (grpc-gateway forwards the
// Cookie header as metadata).
func deviceCookie(ctx context.Context) string {
	for _, h := range metadata.ValueFromIncomingContext(ctx, "grpcgateway-cookie") {
		cs, err := http.ParseCookie(h)
		if err != nil {
			continue
		}
		for _, c := range cs {
			if c.Name == DeviceCookie {
				return c.Value
			}
		}
	}
	return ""
}

// Response metadata the gateway turns into cookies (gateway.go); never forwarded as
// headers. A failed login is an error, never an answer with a status in metadata.
const (
	mdSetSession   = "x-hangar-set-session"
	mdSessionAge   = "x-hangar-session-max-age"
	mdClearSession = "x-hangar-clear-session"
	mdSetDevice    = "x-hangar-set-device"
)

func setSession(ctx context.Context, l iapp.Login, now time.Time) {
	age := int(l.Expires.Sub(now).Seconds())
	_ = grpc.SetHeader(ctx, metadata.Pairs(mdSetSession, l.Token, mdSessionAge, strconv.Itoa(age)))
}

func user(a domain.Account) *identityv1.User {
	return &identityv1.User{Username: a.Email, AccountUuid: a.UUID, IsEmployee: proto.Bool(false), IsAdmin: proto.Bool(false)}
}

func (s *GRPC) Login(ctx context.Context, req *identityv1.LoginRequest) (*identityv1.LoginResponse, error) {
	r := s.request(ctx)
	r.HumanValue = req.GetRecaptchaValue()
	l, err := s.svc.Login(ctx, req.GetUsername(), req.GetPassword(), r)
	if err != nil {
		// 401 or 429 with Retry-After; the one error body carries the form's status and msg.
		return nil, err
	}
	setSession(ctx, l, time.Now())
	if l.Device != "" {
		_ = grpc.SetHeader(ctx, metadata.Pairs(mdSetDevice, l.Device))
	}
	return &identityv1.LoginResponse{Status: "ok", User: user(l.Account)}, nil
}

func (s *GRPC) Logout(ctx context.Context, _ *identityv1.LogoutRequest) (*identityv1.LogoutResponse, error) {
	_ = grpc.SetHeader(ctx, metadata.Pairs(mdClearSession, "1"))
	if err := s.svc.Logout(ctx, auth.Token(ctx)); err != nil {
		return nil, err
	}
	return &identityv1.LogoutResponse{Status: "ok"}, nil
}

func (s *GRPC) CreateAccount(ctx context.Context, req *identityv1.CreateAccountRequest) (*identityv1.CreateAccountResponse, error) {
	l, err := s.svc.CreateAccount(ctx, domain.NewAccountInput{Email: req.GetUsername(), Password: req.GetPassword(),
		ConfirmPassword: req.GetConfirmPassword(), IsEU: req.GetIsEu(), Consent: req.GetConsent()}, s.request(ctx))
	if err != nil {
		return nil, err
	}
	setSession(ctx, l, time.Now())
	return &identityv1.CreateAccountResponse{Status: "ok", User: user(l.Account)}, nil
}

func (s *GRPC) IsBusiness(ctx context.Context, req *identityv1.IsBusinessRequest) (*identityv1.IsBusinessResponse, error) {
	biz, id, err := s.svc.IsBusiness(ctx, req.GetEmail())
	if err != nil {
		return nil, err
	}
	// The account id goes to the account's own session only (spec 000 §7); anyone else
	// learns whether the e-mail buys as a business, with accountUuid present but empty.
	if c, ok := auth.CallerFrom(ctx); !ok || c.AccountUUID != id {
		id = ""
	}
	return &identityv1.IsBusinessResponse{Status: "ok", Isbiz: proto.Bool(biz), AccountUuid: id}, nil
}

// me answers the caller's profile, or ErrLoginRequired.
func (s *GRPC) me(ctx context.Context) (domain.Profile, error) {
	c, err := auth.Require(ctx)
	if err != nil {
		return domain.Profile{}, err
	}
	p, err := s.svc.Profile(ctx, c.AccountUUID)
	if errs.CodeOf(err) == errs.NotFound {
		return p, auth.ErrLoginRequired
	}
	return p, err
}

func (s *GRPC) GetMe(ctx context.Context, _ *identityv1.GetMeRequest) (*identityv1.GetMeResponse, error) {
	if _, ok := auth.CallerFrom(ctx); !ok {
		return &identityv1.GetMeResponse{LoggedIn: proto.Bool(false)}, nil
	}
	p, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	r := meResponse(p)
	flags, err := s.svc.EntitlementFlags(ctx, p.Account.UUID)
	if err != nil {
		return nil, err
	}
	setFlags(r.ProtoReflect(), flags)
	return r, nil
}

// setFlags sets the named flags (JSON names) of m.
func setFlags(m protoreflect.Message, flags map[string]bool) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		if f.Kind() == protoreflect.BoolKind && flags[f.JSONName()] {
			m.Set(f, protoreflect.ValueOfBool(true))
		}
	}
}

func (s *GRPC) GetUserInfo(ctx context.Context, req *identityv1.GetUserInfoRequest) (*identityv1.GetUserInfoResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.Visible(ctx, me, req.GetId())
	if errs.CodeOf(err) == errs.NotFound {
		// A group parent learns that the account is its child, and nothing else of it.
		if child, cerr := s.svc.ChildOf(ctx, me, req.GetId()); cerr == nil {
			return &identityv1.GetUserInfoResponse{Status: "ok", User: &identityv1.UserInfo{AccountUuid: child.UUID,
				ParentUuid: child.ParentUUID, AccountKind: string(child.Kind)}}, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return &identityv1.GetUserInfoResponse{Status: "ok", User: userInfo(p)}, nil
}

func (s *GRPC) ListUsers(ctx context.Context, req *identityv1.ListUsersRequest) (*identityv1.ListUsersResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	page, q, err := s.svc.ListUsers(ctx, me, iapp.UserQuery{Limit: int(req.GetLimit()), Offset: int(req.GetOffset()),
		Query: req.GetQuery(), Field: req.GetField(), Direction: req.GetDirection()})
	if err != nil {
		return nil, err
	}
	resp := &identityv1.ListUsersResponse{Total: int32(page.Total), Limit: int32(q.Limit), Offset: int32(q.Offset), Page: int32(q.Offset / q.Limit)}
	for _, u := range page.Users {
		resp.Users = append(resp.Users, userInfo(u))
	}
	return resp, nil
}

func (s *GRPC) ListGroups(ctx context.Context, _ *identityv1.ListGroupsRequest) (*identityv1.ListGroupsResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	resp := &identityv1.ListGroupsResponse{Groups: []*identityv1.Group{}}
	for _, m := range me.Memberships {
		g := &identityv1.Group{Id: m.Org.UUID, Name: m.Org.Name, AccountUuid: m.Org.AccountUUID, MemberCount: int32(m.Org.MemberCount)}
		for _, r := range m.Roles {
			g.Roles = append(g.Roles, string(r))
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}

func (s *GRPC) GetWebSettings(ctx context.Context, _ *identityv1.GetWebSettingsRequest) (*identityv1.GetWebSettingsResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	prefs, err := s.svc.Preferences(ctx, me.Account.UUID)
	if err != nil {
		return nil, err
	}
	st, err := structpb.NewStruct(prefs)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "internal error")
	}
	return &identityv1.GetWebSettingsResponse{Status: "ok", Preferences: st}, nil
}

func (s *GRPC) UpdatePreferences(ctx context.Context, req *identityv1.UpdatePreferencesRequest) (*identityv1.UpdatePreferencesResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	prefs, err := s.svc.UpdatePreferences(ctx, me.Account.UUID, req.GetPreferences().AsMap())
	if err != nil {
		return nil, err
	}
	st, err := structpb.NewStruct(prefs)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "internal error")
	}
	return &identityv1.UpdatePreferencesResponse{Status: "ok", Preferences: st}, nil
}

func (s *GRPC) GetEuConsent(ctx context.Context, req *identityv1.GetEuConsentRequest) (*identityv1.GetEuConsentResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.Visible(ctx, me, req.GetId())
	if err != nil {
		return nil, err
	}
	return &identityv1.GetEuConsentResponse{Status: "ok",
		Preference: &identityv1.ConsentPreference{MarketingNotificationsEnabled: proto.Bool(p.Account.MarketingConsent)}}, nil
}

func (s *GRPC) VerifyAssociationMember(ctx context.Context, req *identityv1.VerifyAssociationMemberRequest) (*identityv1.VerifyAssociationMemberResponse, error) {
	res, err := s.svc.VerifyAssociationMember(ctx, iapp.AssociationInput{Email: req.GetEmail(), Password: req.GetPassword(),
		VerifyPassword: req.GetVerifyPassword(), MemberNumber: req.GetMemberNumber(), LastName: req.GetLastName(),
		Consent: req.GetConsent(), CreateUser: req.GetCreateUser()}, s.request(ctx))
	if err != nil {
		return nil, err
	}
	if res.Login != nil {
		setSession(ctx, *res.Login, time.Now())
	}
	return &identityv1.VerifyAssociationMemberResponse{IsVerified: proto.Bool(res.Verified), ErrorMessage: res.ErrorMessage}, nil
}

func (s *GRPC) RequestMilitaryCode(ctx context.Context, req *identityv1.RequestMilitaryCodeRequest) (*identityv1.RequestMilitaryCodeResponse, error) {
	res, err := s.svc.RequestMilitaryCode(ctx, req.GetEmail(), req.GetSubscription())
	if err != nil {
		return nil, err
	}
	return &identityv1.RequestMilitaryCodeResponse{User: &identityv1.MilitaryUser{Eligible: proto.Bool(res.Eligible), InvoiceUrl: res.InvoiceURL}}, nil
}

func (s *GRPC) VerifyMilitaryCode(ctx context.Context, req *identityv1.VerifyMilitaryCodeRequest) (*identityv1.VerifyMilitaryCodeResponse, error) {
	u, err := s.svc.VerifyMilitaryCode(ctx, req.GetEmail(), req.GetCode())
	if err != nil {
		return nil, err
	}
	return &identityv1.VerifyMilitaryCodeResponse{Result: &identityv1.MilitaryResult{InvoiceUrl: u}}, nil
}

func (s *GRPC) Authenticate(ctx context.Context, req *identityv1.AuthenticateRequest) (*identityv1.AuthenticateResponse, error) {
	a, err := s.svc.Authenticate(ctx, req.GetSessionToken())
	if err != nil {
		return nil, err
	}
	c := callerOf(a)
	var ms []*identityv1.CallerMembership
	for _, m := range c.Memberships {
		ms = append(ms, &identityv1.CallerMembership{OrganizationAccount: m.OrganizationAccount, Roles: m.Roles})
	}
	return &identityv1.AuthenticateResponse{Caller: &identityv1.Caller{AccountUuid: c.AccountUUID, Username: c.Username,
		AccountKind: c.AccountKind, OrganizationAccount: c.OrganizationAccount, Roles: c.Roles,
		IsCreditCardAdmin: c.IsCreditCardAdmin, IsEmployee: c.IsEmployee, IsMilitary: c.IsMilitary, IsChild: c.IsChild,
		SessionId: c.SessionID, Memberships: ms}}, nil
}

// ProvisionAccount answers (creating when needed) the account of an e-mail, for checkout.
func (s *GRPC) ProvisionAccount(ctx context.Context, req *identityv1.ProvisionAccountRequest) (*identityv1.ProvisionAccountResponse, error) {
	id, created, passwordless, err := s.svc.ProvisionAccount(ctx, req.GetEmail(), req.GetIsEu(), req.GetMarketingConsent())
	if err != nil {
		return nil, err
	}
	return &identityv1.ProvisionAccountResponse{AccountUuid: id, Created: created, Passwordless: passwordless}, nil
}

func userInfo(p domain.Profile) *identityv1.UserInfo {
	f := p.Flags()
	u := &identityv1.UserInfo{AccountUuid: p.Account.UUID, Username: p.Account.Email, Email: p.Account.Email,
		AccountKind: string(p.Account.Kind), ParentUuid: p.Account.ParentUUID, Roles: p.Roles(),
		IsCreditCardAdmin: proto.Bool(f.IsCreditCardAdmin), IsOrgMember: proto.Bool(f.IsOrgMember), IsMilitary: proto.Bool(f.IsMilitary),
		Created: timestamppb.New(p.Account.CreatedAt)}
	if m, ok := p.Primary(); ok {
		u.OrganizationName, u.OrganizationAccount = m.Org.Name, m.Org.AccountUUID
	}
	return u
}

func meResponse(p domain.Profile) *identityv1.GetMeResponse {
	f := p.Flags()
	b := proto.Bool
	r := &identityv1.GetMeResponse{
		LoggedIn: b(true), AccountUuid: p.Account.UUID, ParentUuid: p.Account.ParentUUID, FspAdminUuid: p.Account.FSPAdminUUID,
		Username: p.Account.Email, Email: p.Account.Email, AccountKind: string(p.Account.Kind),
		IsEu: b(p.Account.IsEU), IsMilitary: b(f.IsMilitary), IsCreditCardAdmin: b(f.IsCreditCardAdmin), IsOrgMember: b(f.IsOrgMember),
		IsOrgOwner: b(f.IsOrgOwner), IsGroupOwner: b(f.IsGroupOwner), IsOrgAircraftAdmin: b(f.IsOrgAircraftAdmin),
		IsOrgUserAdmin: b(f.IsOrgUserAdmin), IsParent: b(f.IsParent), IsChild: b(f.IsChild), IsCorporate: b(f.IsCorporate),
		IsCompanyDispatcher: b(f.IsCompanyDispatcher), IsEmployee: b(f.IsEmployee), IsWebDev: b(f.IsWebDev),
		IsInvoiceAdmin: b(f.IsInvoiceAdmin), IsProSupport: b(f.IsProSupport), IsPremiumSupport: b(f.IsPremiumSupport),
		HasSmartGroups: b(f.HasSmartGroups), HasInsurance: b(f.HasInsurance), HasTrackingRole: b(f.HasTrackingRole),
		HasDispatchLowca: b(f.HasDispatchLowca), HasJeppesenMaDispatch: b(f.HasJeppMa),
	}
	if m, ok := p.Primary(); ok {
		r.OrganizationName, r.OrganizationAccount = m.Org.Name, m.Org.AccountUUID
	}
	// Entitlement, plan and tracking flags come from the subscription (GetMe sets them from
	// the projection of checkout's subscription-changed events); the rest are written out
	// as false so the page finds every flag.
	allFlags(r.ProtoReflect())
	return r
}

// allFlags sets every unset optional bool of m to false, so the JSON names each flag.
func allFlags(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		if f.Kind() == protoreflect.BoolKind && f.HasPresence() && !m.Has(f) {
			m.Set(f, protoreflect.ValueOfBool(false))
		}
	}
}

// GetMilitaryEligibility answers whether identity holds an e-mail or account as
// military-eligible, for checkout (gRPC only).
func (s *GRPC) GetMilitaryEligibility(ctx context.Context, req *identityv1.GetMilitaryEligibilityRequest) (*identityv1.GetMilitaryEligibilityResponse, error) {
	ok, program, err := s.svc.MilitaryEligibility(ctx, req.GetEmail(), req.GetAccountUuid())
	if err != nil {
		return nil, err
	}
	return &identityv1.GetMilitaryEligibilityResponse{Eligible: ok, Program: program}, nil
}
