package auth

import (
	"context"
	"testing"

	"google.golang.org/grpc/metadata"
)

// A service forwards the client it recorded; the next one reads it from the metadata. No
// client recorded (a renewal), nothing forwarded.
func TestClientForwardedBetweenServices(t *testing.T) {
	t.Parallel()
	ctx := context.WithValue(context.Background(), clientKey{}, Client{Addr: "198.51.100.9", Session: SessionRef("tok")})
	md, _ := metadata.FromOutgoingContext(OutgoingClient(ctx))
	got, ok := ForwardedClient(metadata.NewIncomingContext(context.Background(), md))
	if !ok || got.Addr != "198.51.100.9" || got.Session != SessionRef("tok") || got.Session == "tok" {
		t.Fatalf("forwarded = %+v %v", got, ok)
	}
	if _, ok := ForwardedClient(metadata.NewIncomingContext(context.Background(), metadata.MD{})); ok {
		t.Error("a call without a forwarded client has one")
	}
	if out := OutgoingClient(context.Background()); out != context.Background() {
		_, has := metadata.FromOutgoingContext(out)
		if has {
			t.Error("no client recorded, yet metadata forwarded")
		}
	}
}

// The browser's device cookie becomes a reference (never the cookie), and a client that
// passed human verification says so to the next service; nothing else sets either.
func TestClientDeviceAndHumanForwarded(t *testing.T) {
	t.Parallel()
	in := metadata.NewIncomingContext(context.Background(), metadata.Pairs(gatewayCookie, "a=b; "+DeviceCookie+"=dev-id.mac"))
	ref := DeviceRef(in)
	if ref == "" || ref == "dev-id.mac" || DeviceRef(context.Background()) != "" {
		t.Fatalf("device ref = %q", ref)
	}
	ctx := context.WithValue(context.Background(), clientKey{}, Client{Addr: "198.51.100.9", Device: ref})
	md, _ := metadata.FromOutgoingContext(OutgoingClient(ctx))
	got, _ := ForwardedClient(metadata.NewIncomingContext(context.Background(), md))
	if got.Device != ref || got.Human {
		t.Fatalf("forwarded before verification = %+v", got)
	}
	md, _ = metadata.FromOutgoingContext(OutgoingClient(HumanVerified(ctx)))
	if got, _ := ForwardedClient(metadata.NewIncomingContext(context.Background(), md)); !got.Human || got.Device != ref {
		t.Fatalf("forwarded after verification = %+v", got)
	}
	if HumanVerified(context.Background()) != context.Background() {
		t.Error("no client recorded, yet one marked")
	}
}
