package ports

import (
	"net/http"
	"net/netip"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/geo/internal/app"
)

// LookupPath is the browser's location lookup (spec 001 §7), with the trailing slash the
// page calls; the form without it is served too.
const LookupPath = "/freegeoip/api/json/"

// Lookup serves GET /freegeoip/api/json/: the location of the client that made the request,
// as the trusted proxy chain reports it.
//
// It is a plain handler on the HTTP port rather than a gateway route: the client address
// is the HTTP peer plus X-Forwarded-For, which the gateway would fold into one metadata
// value and a loopback gRPC peer.
type Lookup struct {
	Loc *app.Locator
}

var lookupJSON = protojson.MarshalOptions{EmitUnpopulated: true}

func (h Lookup) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var peer netip.Addr
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		peer = ap.Addr()
	}
	loc := h.Loc.LocateClient(peer, r.Header.Values("X-Forwarded-For"))
	body, err := lookupJSON.Marshal(toProto(loc))
	if err != nil {
		server.WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// The answer depends on who asks: no shared cache may keep it.
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Vary", "X-Forwarded-For")
	_, _ = w.Write(body)
}
