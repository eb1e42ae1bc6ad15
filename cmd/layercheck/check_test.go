package main

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

const mod = "example.com/m/"

func TestCheckNamesEachForbiddenImportOfAnInnerLayer(t *testing.T) {
	t.Parallel()
	pkgs := []Package{
		{ImportPath: mod + "services/shop/internal/app", Imports: []string{
			"context", mod + "services/shop/internal/adapters", mod + "services/shop/internal/domain",
			"github.com/jackc/pgx/v5/pgxpool", mod + "internal/platform/kafka"}},
		{ImportPath: mod + "services/shop/internal/domain/tax", Imports: []string{"database/sql", "strings"}},
		{ImportPath: mod + "services/shop/internal/domain", Imports: []string{"github.com/jackc/pgx/v5"}},
		{ImportPath: mod + "services/shop/internal/gateway", Imports: []string{"github.com/jackc/pgx/v5/pgxpool", mod + "services/shop/internal/domain"}},
		{ImportPath: mod + "services/shop/internal/app/apptest", Imports: []string{mod + "services/shop/internal/adapters/pgstore"}},
		// Checkout's pipeline and subscription packages are inner layers; another service's
		// packages of those names are not.
		{ImportPath: mod + "services/checkout/internal/order", Imports: []string{"github.com/jackc/pgx/v5/pgconn"}},
		{ImportPath: mod + "services/checkout/internal/subscription", Imports: []string{mod + "services/checkout/internal/adapters"}},
		{ImportPath: mod + "services/shop/internal/order", Imports: []string{"github.com/jackc/pgx/v5"}},
		// Adapters, ports and wiring may hold the drivers.
		{ImportPath: mod + "services/shop/internal/adapters", Imports: []string{"github.com/jackc/pgx/v5"}},
		{ImportPath: mod + "services/shop/internal/ports", Imports: []string{mod + "services/shop/internal/adapters"}},
		{ImportPath: mod + "services/shop/cmd/shop", Imports: []string{"database/sql", mod + "services/shop/internal/adapters"}},
		// A package merely named like a driver is not one.
		{ImportPath: mod + "services/shop/internal/app/x", Imports: []string{"github.com/jackc/pgx/v5x", "database/sqlish", mod + "services/shop/internal/adaptersish"}},
	}
	got := Check(pkgs)
	type pair struct{ pkg, imp string }
	var pairs []pair
	for _, v := range got {
		pairs = append(pairs, pair{strings.TrimPrefix(v.Package, mod), strings.TrimPrefix(v.Import, mod)})
	}
	want := []pair{
		{"services/checkout/internal/order", "github.com/jackc/pgx/v5/pgconn"},
		{"services/checkout/internal/subscription", "services/checkout/internal/adapters"},
		{"services/shop/internal/app", "services/shop/internal/adapters"}, // example.com/... sorts first
		{"services/shop/internal/app", "github.com/jackc/pgx/v5/pgxpool"},
		{"services/shop/internal/app/apptest", "services/shop/internal/adapters/pgstore"},
		{"services/shop/internal/domain", "github.com/jackc/pgx/v5"},
		{"services/shop/internal/domain/tax", "database/sql"},
		{"services/shop/internal/gateway", "github.com/jackc/pgx/v5/pgxpool"},
	}
	if !reflect.DeepEqual(pairs, want) {
		t.Fatalf("violations:\n got %v\nwant %v", pairs, want)
	}
	if s := got[0].String(); !strings.Contains(s, "services/checkout/internal/order imports github.com/jackc/pgx/v5/pgconn") {
		t.Errorf("a violation reads %q; want it to name the package and the import", s)
	}
}

func TestCheckPassesACleanModule(t *testing.T) {
	t.Parallel()
	pkgs := []Package{
		{ImportPath: mod + "services/shop/internal/app", Imports: []string{"context", mod + "services/shop/internal/domain"}},
		{ImportPath: mod + "services/shop/internal/adapters", Imports: []string{"github.com/jackc/pgx/v5/pgxpool", mod + "services/shop/internal/app"}},
	}
	if got := Check(pkgs); len(got) != 0 {
		t.Fatalf("Check = %v; want none", got)
	}
}

func TestDecodeReadsGoListStream(t *testing.T) {
	t.Parallel()
	in := `{"ImportPath": "a/services/s/internal/app", "Imports": ["database/sql"]}
{"ImportPath": "a/b"}`
	pkgs, err := decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 || pkgs[0].Imports[0] != "database/sql" || pkgs[1].ImportPath != "a/b" {
		t.Fatalf("decode = %+v", pkgs)
	}
	if _, err := decode(strings.NewReader(`{"ImportPath": `)); err == nil {
		t.Error("a truncated stream decodes without error")
	}
}

// The no-globals rule with a planted violation of each kind beside what it allows.
func TestCheckGlobalsNamesEachPlantedGlobal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// The planted sources spell their init functions INIT, so that a search of the
	// repository for init functions finds none here.
	plant := func(path, src string) {
		t.Helper()
		src = strings.ReplaceAll(src, "INIT", "func "+"init()")
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("svc/a.go", `package svc

import (
	"errors"
	"regexp"
	"sync"
	"sync/atomic"
	_ "embed"
)

var ErrGone = errors.New("gone")
var word = regexp.MustCompile("^[a-z]+$")
var table = map[string]int{"a": 1}
var limits = []int{1, 2}

//go:embed a.go
var src []byte

//layercheck:global a library's one hook per process
var hook atomic.Pointer[int]

var registry sync.Map
var seen = &sync.Mutex{}
var afterCharge func(string) error
var clock = func() int { return 1 }
var cache []string
var counter = 0
var sweeps atomic.Int64

INIT { limits = append(limits, 3) }

func bump() {
	counter++
	word := 1
	word++
	_ = word
}
`)
	plant("svc/b_test.go", `package svc

func setTable() { table["b"] = 2 }
`)
	plant("svc/c_test.go", `package svc_test

INIT {}
`)
	plant("gen/go/x.go", "package x\n\nvar generated sync.Map\n\nINIT {}\n")
	plant("web/node_modules/y/y.go", "package y\n\nINIT {}\n")
	got, err := CheckGlobals(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, strings.SplitN(g.What, ":", 2)[0]+" @ "+strings.SplitN(g.Pos, ":", 2)[0])
	}
	want := []string{
		"init function @ svc/a.go",
		"var afterCharge @ svc/a.go",
		"var cache @ svc/a.go",
		"var clock @ svc/a.go",
		"var counter @ svc/a.go",
		"var limits @ svc/a.go",
		"var registry @ svc/a.go",
		"var seen @ svc/a.go",
		"var sweeps @ svc/a.go",
		"var table @ svc/a.go",
		"init function @ svc/c_test.go",
	}
	sort.Strings(names)
	sort.Strings(want)
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("globals:\n got %v\nwant %v", names, want)
	}
}

// The repository itself has none (make lint runs the same check).
func TestTheRepositoryHasNoGlobals(t *testing.T) {
	t.Parallel()
	got, err := CheckGlobals(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		t.Error(g)
	}
}

// The parallel rule with a planted violation of each kind beside what it allows.
func TestCheckParallelNamesEachSerialTest(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	plant := func(path, src string) {
		t.Helper()
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("svc/a_test.go", `package svc

import "testing"

func TestMain(m *testing.M) { m.Run() }

func TestParallel(t *testing.T) {
	t.Parallel()
}

func TestParallelAfterSetUp(tt *testing.T) {
	x := 1
	_ = x
	tt.Parallel()
}

//layercheck:serial it sets the process environment (t.Setenv)
func TestSaysWhy(t *testing.T) { t.Setenv("A", "b") }

func TestSerial(t *testing.T) {}

// A directive without its reason does not count.
//layercheck:serial
func TestSerialWithoutWhy(t *testing.T) {}

func TestOnlyItsSubtestsParallel(t *testing.T) {
	t.Run("a", func(t *testing.T) { t.Parallel() })
}

func BenchmarkX(b *testing.B) {}

func FuzzX(f *testing.F) {}

func TestHelperShaped() {}

type suite struct{}

func (suite) TestMethod(t *testing.T) {}
`)
	plant("svc/b.go", "package svc\n\nfunc TestNotATestFile(t *testing.T) {}\n")
	plant("gen/go/x_test.go", "package x\n\nimport \"testing\"\n\nfunc TestGenerated(t *testing.T) {}\n")
	plant("web/node_modules/y/y_test.go", "package y\n\nimport \"testing\"\n\nfunc TestVendored(t *testing.T) {}\n")
	got, err := CheckParallel(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, strings.Fields(g.What)[1]+" @ "+strings.SplitN(g.Pos, ":", 2)[0])
	}
	want := []string{"TestSerial @ svc/a_test.go", "TestSerialWithoutWhy @ svc/a_test.go", "TestOnlyItsSubtestsParallel @ svc/a_test.go"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("serial tests:\n got %v\nwant %v", names, want)
	}
}

// The repository's top-level tests are parallel or say why not (make lint runs the same
// check).
func TestTheRepositorysTestsAreParallel(t *testing.T) {
	t.Parallel()
	got, err := CheckParallel(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		t.Error(g)
	}
}
