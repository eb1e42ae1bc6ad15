package adapters

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	geov1 "github.com/hangar/hangar/gen/go/hangar/geo/v1"
	"github.com/hangar/hangar/internal/platform/kitclient"
)

// GeoKit is the outbound chain of calls to geo. A lookup is bounded tightly: the default
// currency is a convenience, and a slow geo must not slow a preview down (the caller falls
// back to USD); one retry, and the breaker stops asking a geo that is down. timeout bounds
// one try.
func GeoKit(reg prometheus.Registerer, timeout time.Duration) kitclient.Config {
	return kitclient.Config{Client: "geo", Registry: reg, Timeout: timeout, Tries: 2, Idempotent: []string{"Locate"}}
}

// GeoClient is the geo service as the default currency uses it.
type GeoClient struct {
	c geov1.GeoServiceClient
}

// NewGeoClient uses conn (a client connection to the geo service).
func NewGeoClient(conn grpc.ClientConnInterface) *GeoClient {
	return &GeoClient{c: geov1.NewGeoServiceClient(conn)}
}

// LocationCurrency answers the store's currency for the browser behind chain (the
// X-Forwarded-For values checkout received, then its peer): geo walks the chain with its
// own trusted proxies, as for its browser route.
func (g *GeoClient) LocationCurrency(ctx context.Context, chain []string) (string, error) {
	resp, err := g.c.Locate(ctx, &geov1.LocateRequest{ClientChain: chain})
	if err != nil {
		return "", remoteErr(err, "geo")
	}
	return resp.GetCurrency().GetCode(), nil
}
