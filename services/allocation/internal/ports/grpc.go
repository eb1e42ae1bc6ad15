// Package ports is how requests and events reach the allocation use cases: the API over gRPC
// (and REST through grpc-gateway), and the inbox handler of subscription-changed events. It
// only converts messages, reads the caller and calls the app.
package ports

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	allocationv1 "github.com/hangar/hangar/gen/go/hangar/allocation/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	iapp "github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// FullAnswers are the answers the gateway writes with every field (server.EmitDefaults):
// the allocation lists and the report answer their lists and map even when empty (spec 001
// §3, §7), never a bare {}.
func FullAnswers() []proto.Message {
	return []proto.Message{&allocationv1.ListAllocationsResponse{}, &allocationv1.GetAllocationReportResponse{}}
}

// GRPC is the AllocationService server.
type GRPC struct {
	allocationv1.UnimplementedAllocationServiceServer
	svc *iapp.Service
}

// NewGRPC serves svc.
func NewGRPC(svc *iapp.Service) *GRPC { return &GRPC{svc: svc} }

func actor(ctx context.Context) (domain.Actor, error) {
	c, err := auth.Require(ctx)
	if err != nil {
		return domain.Actor{}, err
	}
	return domain.Actor{AccountID: c.AccountUUID, OrgAccount: c.OrganizationAccount, Roles: c.RolesIn(c.OrganizationAccount), Staff: c.IsEmployee}, nil
}

func (g *GRPC) ListAllocations(ctx context.Context, req *allocationv1.ListAllocationsRequest) (*allocationv1.ListAllocationsResponse, error) {
	a, err := actor(ctx)
	if err != nil {
		return nil, err
	}
	list, err := g.svc.List(ctx, a, req.Users, req.Tails)
	if err != nil {
		return nil, err
	}
	plans, err := g.svc.IsPlan(ctx, a)
	if err != nil {
		return nil, err
	}
	resp := &allocationv1.ListAllocationsResponse{}
	for _, x := range list {
		m := toProto(x)
		resp.Allocations = append(resp.Allocations, m)
		resp.AllAssignments = append(resp.AllAssignments, m)
		plan, other := split(x, plans)
		if len(plan.AddOnCodes)+len(plan.ExpiredAddOnCodes) > 0 {
			resp.PlanAssignments = append(resp.PlanAssignments, plan)
		}
		if len(other.AddOnCodes)+len(other.ExpiredAddOnCodes) > 0 {
			resp.NonPlanAssignments = append(resp.NonPlanAssignments, other)
		}
	}
	return resp, nil
}

func split(x iapp.Allocation, plans map[string]bool) (plan, other *allocationv1.Allocation) {
	plan, other = toProto(iapp.Allocation{Owner: x.Owner, Type: x.Type, ID: x.ID}), toProto(iapp.Allocation{Owner: x.Owner, Type: x.Type, ID: x.ID})
	for _, c := range x.Codes {
		if plans[c] {
			plan.AddOnCodes = append(plan.AddOnCodes, c)
		} else {
			other.AddOnCodes = append(other.AddOnCodes, c)
		}
	}
	for _, c := range x.Expired {
		if plans[c] {
			plan.ExpiredAddOnCodes = append(plan.ExpiredAddOnCodes, c)
		} else {
			other.ExpiredAddOnCodes = append(other.ExpiredAddOnCodes, c)
		}
	}
	return plan, other
}

func toProto(x iapp.Allocation) *allocationv1.Allocation {
	return &allocationv1.Allocation{AddOnCodes: x.Codes, TargetId: x.ID, TargetOwnerId: x.Owner, TargetType: string(x.Type), ExpiredAddOnCodes: x.Expired}
}

func (g *GRPC) GetAllocationReport(ctx context.Context, _ *allocationv1.GetAllocationReportRequest) (*allocationv1.GetAllocationReportResponse, error) {
	a, err := actor(ctx)
	if err != nil {
		return nil, err
	}
	owner, pools, err := g.svc.Report(ctx, a)
	if err != nil {
		return nil, err
	}
	resp := &allocationv1.GetAllocationReportResponse{OwnerId: owner, AddOnAllocationReports: map[string]*allocationv1.AddOnAllocationReport{}}
	for code, p := range pools {
		resp.AddOnAllocationReports[code] = poolReport(code, p)
	}
	return resp, nil
}

func poolReport(code string, p *domain.Pool) *allocationv1.AddOnAllocationReport {
	r := &allocationv1.AddOnAllocationReport{AddOnCode: code, LicensingMethod: string(p.Method), Bought: i32(p.Bought),
		Assigned: i32(p.Assigned), Free: i32(p.Free()), Expired: i32(p.Expired), IsPlan: &p.IsPlan}
	if !p.TermEnd.IsZero() {
		r.TermEnd = timestamppb.New(p.TermEnd)
	}
	for _, t := range p.Method.Targets() {
		r.TargetTypes = append(r.TargetTypes, string(t))
	}
	return r
}

func i32(n int) *int32 { v := int32(n); return &v }

func target(t, id string, codes []string) (iapp.Target, error) {
	tt, err := domain.ParseTarget(t)
	if err != nil {
		return iapp.Target{}, err
	}
	return iapp.Target{Type: tt, ID: id, Codes: codes}, nil
}

func (g *GRPC) Assign(ctx context.Context, req *allocationv1.AssignRequest) (*allocationv1.AssignResponse, error) {
	a, err := actor(ctx)
	if err != nil {
		return nil, err
	}
	t, err := target(req.GetTargetType(), req.GetTargetId(), req.GetAddOnCodes())
	if err != nil {
		return nil, err
	}
	out, err := g.svc.Change(ctx, a, iapp.OwnerOf(a, req.GetTargetOwnerId()), []iapp.Target{t}, nil)
	if err != nil {
		return nil, err
	}
	return &allocationv1.AssignResponse{Allocation: toProto(out[0])}, nil
}

func (g *GRPC) Unassign(ctx context.Context, req *allocationv1.UnassignRequest) (*allocationv1.UnassignResponse, error) {
	a, err := actor(ctx)
	if err != nil {
		return nil, err
	}
	t, err := target(req.GetTargetType(), req.GetTargetId(), req.GetAddOnCodes())
	if err != nil {
		return nil, err
	}
	out, err := g.svc.Change(ctx, a, iapp.OwnerOf(a, req.GetTargetOwnerId()), nil, []iapp.Target{t})
	if err != nil {
		return nil, err
	}
	return &allocationv1.UnassignResponse{Allocation: toProto(out[0])}, nil
}

func (g *GRPC) BulkAssign(ctx context.Context, req *allocationv1.BulkAssignRequest) (*allocationv1.BulkAssignResponse, error) {
	a, err := actor(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetOrganizationId() == "" {
		return nil, errs.Field("organizationId", "organizationId is required")
	}
	if len(req.GetAllocations())+len(req.GetUnassign()) > 1000 {
		return nil, errs.Field("allocations", "At most 1000 targets at once.")
	}
	read := func(list []*allocationv1.Allocation) ([]iapp.Target, error) {
		var out []iapp.Target
		for _, x := range list {
			if x.GetTargetOwnerId() != "" && x.GetTargetOwnerId() != req.GetOrganizationId() {
				return nil, errs.Field("targetOwnerId", "Every allocation of a bulk assignment belongs to its organization.")
			}
			t, err := target(x.GetTargetType(), x.GetTargetId(), x.GetAddOnCodes())
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	assign, err := read(req.GetAllocations())
	if err != nil {
		return nil, err
	}
	unassign, err := read(req.GetUnassign())
	if err != nil {
		return nil, err
	}
	out, err := g.svc.Change(ctx, a, req.GetOrganizationId(), assign, unassign)
	if err != nil {
		return nil, err
	}
	resp := &allocationv1.BulkAssignResponse{}
	for _, x := range out {
		resp.Allocations = append(resp.Allocations, toProto(x))
	}
	return resp, nil
}

func query(assigned, unassigned, filter string, page, size int32, dir string) (iapp.Query, error) {
	dir = strings.ToLower(strings.TrimSpace(dir))
	if dir != "" && dir != "asc" && dir != "desc" {
		return iapp.Query{}, errs.Field("sortDirection", "sortDirection must be asc or desc")
	}
	if page < 0 || size < 0 {
		return iapp.Query{}, errs.Field("page", "page and size cannot be negative")
	}
	return iapp.Query{Assigned: domain.Codes([]string{assigned}), Unassigned: domain.Codes([]string{unassigned}), Filter: filter,
		Page: int(page), Size: int(size), Desc: dir == "desc"}, nil
}

func (g *GRPC) ListUsersByAllocation(ctx context.Context, req *allocationv1.ListUsersByAllocationRequest) (*allocationv1.ListUsersByAllocationResponse, error) {
	a, err := actor(ctx)
	if err != nil {
		return nil, err
	}
	q, err := query(req.GetAssignedAddOnCodes(), req.GetUnassignedAddOnCodes(), req.GetUserFilters(), req.GetPage(), req.GetSize(), req.GetSortDirection())
	if err != nil {
		return nil, err
	}
	users, total, q, err := g.svc.UsersByAllocation(ctx, a, q)
	if err != nil {
		return nil, err
	}
	resp := &allocationv1.ListUsersByAllocationResponse{Total: i32(total), Page: i32(q.Page), Size: i32(q.Size)}
	for _, u := range users {
		resp.Users = append(resp.Users, &allocationv1.AllocatedUser{AccountUuid: u.AccountUUID, Email: u.Email, Roles: u.Roles,
			AssignedAddOnCodes: u.Codes, ExpiredAddOnCodes: u.Expired})
	}
	return resp, nil
}

func (g *GRPC) ListTails(ctx context.Context, req *allocationv1.ListTailsRequest) (*allocationv1.ListTailsResponse, error) {
	a, err := actor(ctx)
	if err != nil {
		return nil, err
	}
	q, err := query(req.GetAssignedAddOnCodes(), req.GetUnassignedAddOnCodes(), req.GetTailFilters(), req.GetPage(), req.GetSize(), req.GetSortDirection())
	if err != nil {
		return nil, err
	}
	tails, total, q, err := g.svc.Tails(ctx, a, q)
	if err != nil {
		return nil, err
	}
	resp := &allocationv1.ListTailsResponse{Total: i32(total), Page: i32(q.Page), Size: i32(q.Size)}
	for _, t := range tails {
		resp.Tails = append(resp.Tails, &allocationv1.AllocatedTail{TailId: t.ID, AssignedAddOnCodes: t.Codes, ExpiredAddOnCodes: t.Expired})
	}
	return resp, nil
}

func (g *GRPC) GetOwnerAllocations(ctx context.Context, req *allocationv1.GetOwnerAllocationsRequest) (*allocationv1.GetOwnerAllocationsResponse, error) {
	var t domain.TargetType
	if req.GetTargetType() != "" {
		var err error
		if t, err = domain.ParseTarget(req.GetTargetType()); err != nil {
			return nil, err
		}
	}
	var owners []string
	for _, o := range req.GetOwnerIds() {
		if o != "" {
			owners = append(owners, o)
		}
	}
	list, userAllocated, err := g.svc.OwnerAllocations(ctx, owners, t)
	if err != nil {
		return nil, err
	}
	resp := &allocationv1.GetOwnerAllocationsResponse{UserAllocatedAddOnCodes: userAllocated}
	for _, x := range list {
		resp.Allocations = append(resp.Allocations, toProto(x))
	}
	for _, o := range owners {
		pools, err := g.svc.Pools(ctx, o)
		if err != nil {
			return nil, err
		}
		codes := make([]string, 0, len(pools))
		for code := range pools {
			codes = append(codes, code)
		}
		slices.Sort(codes)
		for _, code := range codes {
			resp.Pools = append(resp.Pools, &allocationv1.OwnerPool{OwnerId: o, Pool: poolReport(code, pools[code])})
		}
	}
	return resp, nil
}

// slashRoutes are the spec's slash-terminated paths, served by their gateway routes.
var slashRoutes = map[string]bool{
	"/account/api/subscription/allocations/": true,
	"/account/api/users/by-allocation/":      true,
}

// TrailingSlash serves the spec's slash-terminated paths by their gateway routes.
func TrailingSlash(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slashRoutes[r.URL.Path] {
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimSuffix(r.URL.Path, "/")
			r2.URL.RawPath = ""
			next.ServeHTTP(w, r2)
			return
		}
		next.ServeHTTP(w, r)
	})
}
