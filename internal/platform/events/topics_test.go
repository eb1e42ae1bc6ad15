package events_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/events"
)

// Every Topic* constant is in All: a topic missing there would be created on first use by
// the durable dev broker, which does not keep such topics across a restart.
func TestAllListsEveryTopic(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "topics.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || len(vs.Values) == 0 {
			return true
		}
		for i, name := range vs.Names {
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || !strings.HasPrefix(name.Name, "Topic") {
				continue
			}
			n++
			v, _ := strconv.Unquote(lit.Value)
			if !slices.Contains(events.All, v) {
				t.Errorf("%s (%s) is not in events.All", name.Name, v)
			}
		}
		return true
	})
	if n == 0 || n != len(events.All) {
		t.Errorf("%d Topic constants, %d in All", n, len(events.All))
	}
}
