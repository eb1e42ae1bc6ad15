package adapters

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	allocationv1 "github.com/hangar/hangar/gen/go/hangar/allocation/v1"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// AllocationKit is the outbound chain of calls to the allocation service: its one method is
// a read (retried), each attempt bounded by timeout; the breaker makes a preview fail over
// to its degraded answer at once while allocation is down.
func AllocationKit(reg prometheus.Registerer, timeout time.Duration) kitclient.Config {
	return kitclient.Config{Client: "allocation", Registry: reg, Timeout: timeout, Tries: 2, Idempotent: []string{"GetOwnerAllocations"}}
}

// AllocationClient reads the allocation service (services/allocation), which owns licence
// pools and their assignments: checkout keeps no copy.
type AllocationClient struct {
	c       allocationv1.AllocationServiceClient
	timeout time.Duration
}

// NewAllocationClient uses conn (a client connection to the allocation service, through
// AllocationKit); a call with its retry gives up after timeout in all, so a slow
// allocation service degrades a preview instead of holding it.
func NewAllocationClient(conn grpc.ClientConnInterface, timeout time.Duration) *AllocationClient {
	return &AllocationClient{c: allocationv1.NewAllocationServiceClient(conn), timeout: timeout}
}

// OwnerAllocations answers what the owners' licences are doing: the tail allocations with
// current add-ons, the add-ons users hold, and the pools.
func (a *AllocationClient) OwnerAllocations(ctx context.Context, owners []string) (*app.OwnerAllocations, error) {
	if a.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	resp, err := a.c.GetOwnerAllocations(ctx, &allocationv1.GetOwnerAllocationsRequest{OwnerIds: owners})
	if err != nil {
		return nil, remoteErr(err, "allocation")
	}
	out := &app.OwnerAllocations{UserAllocated: resp.GetUserAllocatedAddOnCodes()}
	for _, x := range resp.GetAllocations() {
		if len(x.GetAddOnCodes()) == 0 {
			continue
		}
		a := domain.Allocation{AddOnCodes: x.GetAddOnCodes(), TargetID: x.GetTargetId(), TargetOwnerID: x.GetTargetOwnerId(), TargetType: x.GetTargetType()}
		switch a.TargetType {
		case "TAIL":
			out.Tails = append(out.Tails, a)
		case "USER":
			out.Users = append(out.Users, a)
		}
	}
	for _, p := range resp.GetPools() {
		r := p.GetPool()
		out.Pools = append(out.Pools, app.Pool{Owner: p.GetOwnerId(), Code: r.GetAddOnCode(), Method: r.GetLicensingMethod(),
			IsPlan: r.GetIsPlan(), Bought: int(r.GetBought()), Assigned: int(r.GetAssigned())})
	}
	return out, nil
}
