package edge

import (
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/hangar/hangar/gen/go/hangar/allocation/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/geo/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/payments/v1"
)

// The route table's replay marks are held to the routes the gateway declares (the
// google.api.http bindings of the proto services): a marked route is an Exact path bound
// to a POST, and every POST whose request carries an idempotency key is marked keyed, so
// a new keyed route cannot be left out (its buyers would see a dying replica) and a mark
// cannot outlive its route.
func TestRouteTableReplayMatchesTheGateway(t *testing.T) {
	t.Parallel()
	tab, err := LoadTable(filepath.Join("..", "..", "deploy", "helm", "hangar", "routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	posts := map[string]protoreflect.MethodDescriptor{} // POST path → method
	protoregistry.GlobalFiles.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(string(f.Package()), "hangar.") {
			return true
		}
		for i := range f.Services().Len() {
			ms := f.Services().Get(i).Methods()
			for j := range ms.Len() {
				m := ms.Get(j)
				rule, _ := proto.GetExtension(m.Options(), annotations.E_Http).(*annotations.HttpRule)
				for _, r := range append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...) {
					if p := r.GetPost(); p != "" {
						posts[p] = m
					}
				}
			}
		}
		return true
	})
	if len(posts) == 0 {
		t.Fatal("no POST bindings found in the proto services")
	}
	for _, r := range tab.Routes {
		if r.Replay == "" {
			continue
		}
		m, ok := posts[r.Path]
		if r.PathType != "Exact" || !ok {
			t.Errorf("route %s (%s) is marked replay %s but is not an Exact path the gateway binds a POST to", r.Path, r.PathType, r.Replay)
			continue
		}
		if r.Replay == ReplayReadOnly && m.Input().Fields().ByName("idempotency_key") != nil {
			t.Errorf("route %s is marked read-only, but %s takes an idempotency key (it writes)", r.Path, m.FullName())
		}
	}
	for path, m := range posts {
		if m.Input().Fields().ByName("idempotency_key") == nil {
			continue
		}
		if r, _ := tab.Match(path); r.Replay != ReplayKeyed {
			t.Errorf("POST %s (%s) takes an idempotency key; its route %s is not marked replay: keyed", path, m.FullName(), r.Path)
		}
	}
}
