package events_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/events"
)

// Every Topic* constant is in All: a topic missing there would be created on first use by
// the durable dev broker, which does not keep such topics across a restart.
func TestAllListsEveryTopic(t *testing.T) {
	t.Parallel()
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

// Every topic a service publishes or consumes is declared (with its dead-letter topic),
// with replication of at least 3 and min.insync.replicas 2, and every declared topic is
// used: the Go source of services/, internal/ and cmd/ is scanned for topic names, both
// events.Topic* constants and topic-shaped string literals ("hangar.<service>.<event>.vN").
func TestDeclaredCoversEveryTopicInUse(t *testing.T) {
	t.Parallel()
	consts := map[string]string{}
	for _, s := range events.Declared {
		if s.ReplicationFactor < 3 || s.MinInSyncReplicas != 2 || s.Partitions < 1 || s.Retention <= 0 || s.CleanupPolicy == "" {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "topics.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					break
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Topic") {
					consts[name.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
		return true
	})
	used := map[string]string{} // topic -> where
	topicShape := regexp.MustCompile(`^hangar\.[a-z]+\.[a-z0-9-]+\.v[0-9]+(\.dlq)?$`)
	for _, root := range []string{"../../../services", "../../../internal", "../../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
				strings.HasSuffix(path, filepath.Join("platform", "events", "topics.go")) {
				return err
			}
			pf, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(pf, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == "events" {
						if v, ok := consts[n.Sel.Name]; ok {
							used[v] = path
						}
					}
				case *ast.BasicLit:
					if v, err := strconv.Unquote(n.Value); err == nil && topicShape.MatchString(v) {
						used[v] = path
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for topic, where := range used {
		if _, ok := events.Spec(topic); !ok {
			t.Errorf("%s uses topic %s, which is not declared", where, topic)
		}
		if _, ok := events.Spec(topic + events.DLQSuffix); !strings.HasSuffix(topic, events.DLQSuffix) && !ok {
			t.Errorf("%s has no declared dead-letter topic", topic)
		}
	}
	for _, s := range events.Declared {
		base := strings.TrimSuffix(s.Name, events.DLQSuffix)
		if _, ok := used[base]; !ok {
			t.Errorf("declared topic %s is used by no service", s.Name)
		}
	}
}
