// Package ports converts between geo's transports (gRPC, and the browser's JSON route on
// the HTTP port) and its use case.
package ports

import (
	"context"
	"net"
	"net/netip"

	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/proto"

	geov1 "github.com/hangar/hangar/gen/go/hangar/geo/v1"
	"github.com/hangar/hangar/services/geo/internal/app"
	"github.com/hangar/hangar/services/geo/internal/domain"
)

// GRPC is geo's gRPC server.
type GRPC struct {
	geov1.UnimplementedGeoServiceServer
	loc *app.Locator
}

// NewGRPC serves loc over gRPC.
func NewGRPC(loc *app.Locator) *GRPC { return &GRPC{loc: loc} }

// Locate answers the location of req.ip; else of the browser behind req.client_chain (a
// service's X-Forwarded-For values and its peer, walked with geo's trusted proxies as its
// own route does); else of the calling peer (tools).
func (g *GRPC) Locate(ctx context.Context, req *geov1.LocateRequest) (*geov1.LocateResponse, error) {
	if chain := req.GetClientChain(); req.GetIp() == "" && len(chain) > 0 {
		return toProto(g.loc.LocateChain(chain)), nil
	}
	if req.GetIp() == "" {
		p, _ := peer.FromContext(ctx)
		return toProto(g.loc.LocateClient(peerAddr(p), nil)), nil
	}
	loc, err := g.loc.Locate(req.GetIp())
	if err != nil {
		return nil, err
	}
	return toProto(loc), nil
}

func peerAddr(p *peer.Peer) netip.Addr {
	if p == nil || p.Addr == nil {
		return netip.Addr{}
	}
	if ta, ok := p.Addr.(*net.TCPAddr); ok {
		a, _ := netip.AddrFromSlice(ta.IP)
		return a.Unmap()
	}
	if ap, err := netip.ParseAddrPort(p.Addr.String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

func toProto(l domain.Location) *geov1.LocateResponse {
	ip := ""
	if l.Addr.IsValid() {
		ip = l.Addr.String()
	}
	return &geov1.LocateResponse{
		Ip:       ip,
		Location: &geov1.Location{CountryCode: l.CountryCode, IsEu: proto.Bool(l.IsEU)},
		Currency: &geov1.Currency{Code: l.Currency},
	}
}
