package db_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/db"
)

// grandfathered are the migrations applied before the expand/contract rule
// (docs/architecture.md): they ran in every environment already, so rewriting them would
// change nothing but their history. Each is listed with what it did; nothing may be added
// here — a new migration that the lint refuses is split into expand and contract steps.
var grandfathered = map[string]string{
	// The rollout of this one is the incident behind the rule: old pods still selected
	// allocated_add_ons and answered 5xx until the roll finished.
	"checkout/0007_drop_allocations.sql":  "drops checkout's allocations copy and subscriptions.allocated_add_ons",
	"checkout/0003_gift_oneoff.sql":       "blocking index on gift_certificates (a small table then)",
	"checkout/0006_renewal_jobs.sql":      "blocking indexes on renewals and subscriptions",
	"checkout/0008_renewal_job_index.sql": "blocking indexes on renewals",
	"allocation/0002_platform_inbox.sql":  "replaced the service's first inbox table before any release read it",
}

// Every migration of every service passes the lint (or is a grandfathered one, which must
// still fail it: an entry the lint no longer needs is removed).
func TestEveryMigrationRolls(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../../services/*/internal/adapters/migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found (%v)", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		svc := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(f)))))
		key := svc + "/" + filepath.Base(f)
		findings := db.LintMigration(key, string(raw))
		if _, ok := grandfathered[key]; ok {
			seen[key] = true
			if len(findings) == 0 {
				t.Errorf("%s is grandfathered but passes the lint: remove it from the list", key)
			}
			continue
		}
		for _, fd := range findings {
			t.Errorf("%s", fd)
		}
	}
	for key := range grandfathered {
		if !seen[key] {
			t.Errorf("grandfathered %s does not exist", key)
		}
	}
}

func TestLintRefusesWhatBreaksTheRunningRelease(t *testing.T) {
	t.Parallel()
	for name, sql := range map[string]string{
		"planted drop column":             "-- no longer used\nALTER TABLE subscriptions DROP COLUMN billing_state;",
		"drop column without the keyword": "ALTER TABLE subscriptions DROP billing_state;",
		"drop table":                      "DROP TABLE IF EXISTS renewals;",
		"rename column":                   "ALTER TABLE subscriptions RENAME COLUMN email TO e_mail;",
		"rename table":                    "ALTER TABLE orders RENAME TO purchases;",
		"set not null":                    "ALTER TABLE subscriptions ALTER COLUMN last_invoice_id SET NOT NULL;",
		"blocking index":                  "CREATE INDEX orders_email ON orders (email);",
		"blocking unique index":           "CREATE UNIQUE INDEX IF NOT EXISTS orders_email ON public.orders (email);",
		"concurrent index beside others":  "CREATE INDEX CONCURRENTLY orders_email ON orders (email);\nALTER TABLE orders ADD COLUMN x text;",
		"not null without default":        "ALTER TABLE orders ADD COLUMN channel text NOT NULL;",
		"type change":                     "ALTER TABLE orders ALTER COLUMN total TYPE numeric;",
		"contract without a release":      "-- hangar:contract\nALTER TABLE subscriptions DROP COLUMN billing_state;",
		"concurrent drops together":       "-- hangar:contract 2026.12: x\nDROP INDEX CONCURRENTLY IF EXISTS a;\nDROP INDEX CONCURRENTLY IF EXISTS b;",
	} {
		if got := db.LintMigration(name, sql); len(got) == 0 {
			t.Errorf("%s: accepted\n%s", name, sql)
		}
	}
}

func TestLintAcceptsExpandAndMarkedContractSteps(t *testing.T) {
	t.Parallel()
	for name, sql := range map[string]string{
		"new table with its index": `CREATE TABLE IF NOT EXISTS refunds (id uuid PRIMARY KEY, charge_id uuid NOT NULL);
			CREATE INDEX refunds_charge ON refunds (charge_id);
			ALTER TABLE refunds ADD COLUMN reason text NOT NULL;`,
		"defaulted column":       "ALTER TABLE orders ADD COLUMN channel text NOT NULL DEFAULT 'web', ADD COLUMN note text;",
		"concurrent index alone": "-- the scan by e-mail\nCREATE INDEX CONCURRENTLY IF NOT EXISTS orders_email ON orders (email);",
		"loosening":              "ALTER TABLE orders ALTER COLUMN note DROP NOT NULL, ALTER COLUMN channel DROP DEFAULT;",
		"contract step": "-- hangar:contract 2026.12: the code stopped reading subscriptions.billing_state in 2026.11\n" +
			"ALTER TABLE subscriptions DROP COLUMN billing_state;",
		"concurrent drop alone in a contract step": "-- hangar:contract 2026.12: no query uses it since 2026.11\n" +
			"DROP INDEX CONCURRENTLY IF EXISTS renewals_in_flight;",
		"words in comments and literals": "-- we will DROP this later; RENAME too\nINSERT INTO notes VALUES ('DROP TABLE x; ALTER TABLE y RENAME TO z');",
		"function body":                  `CREATE FUNCTION f() RETURNS trigger AS $body$ BEGIN DROP TABLE x; END $body$ LANGUAGE plpgsql;`,
	} {
		if got := db.LintMigration(name, sql); len(got) != 0 {
			t.Errorf("%s: refused: %v", name, got)
		}
	}
}

func TestLintNamesTheRule(t *testing.T) {
	t.Parallel()
	got := db.LintMigration("x.sql", "ALTER TABLE subscriptions DROP COLUMN billing_state;")
	if len(got) != 1 || !strings.Contains(got[0].Rule, "contract") || !slices.Contains(strings.Fields(got[0].Statement), "billing_state") {
		t.Fatalf("findings = %v", got)
	}
}
