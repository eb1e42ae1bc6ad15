package main

import (
	"reflect"
	"strings"
	"testing"
)

const mod = "example.com/m/"

func TestCheckNamesEachForbiddenImportOfAnInnerLayer(t *testing.T) {
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
	pkgs := []Package{
		{ImportPath: mod + "services/shop/internal/app", Imports: []string{"context", mod + "services/shop/internal/domain"}},
		{ImportPath: mod + "services/shop/internal/adapters", Imports: []string{"github.com/jackc/pgx/v5/pgxpool", mod + "services/shop/internal/app"}},
	}
	if got := Check(pkgs); len(got) != 0 {
		t.Fatalf("Check = %v; want none", got)
	}
}

func TestDecodeReadsGoListStream(t *testing.T) {
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
