package db_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// chartValues is what the connection budget reads of deploy/helm/hangar/values.yaml.
type chartValues struct {
	PostgreSQL struct {
		MaxConnections      int `json:"maxConnections"`
		ReservedConnections int `json:"reservedConnections"`
	} `json:"postgresql"`
	ComponentDefaults chartComponent            `json:"componentDefaults"`
	Services          map[string]chartComponent `json:"services"`
}

type chartComponent struct {
	Enabled     *bool `json:"enabled"`
	Replicas    *int  `json:"replicas"`
	Autoscaling struct {
		Enabled     *bool `json:"enabled"`
		MaxReplicas *int  `json:"maxReplicas"`
	} `json:"autoscaling"`
	Database struct {
		Enabled          *bool `json:"enabled"`
		MaxConnections   *int  `json:"maxConnections"`
		ExtraConnections *int  `json:"extraConnections"`
	} `json:"database"`
	Env map[string]string `json:"env"`
}

func or[T any](p, def *T) T {
	if p != nil {
		return *p
	}
	if def != nil {
		return *def
	}
	var zero T
	return zero
}

// The chart's pools are the connection budget's: each component with a database has
// db.ServiceBudget's Max as database.maxConnections (its DATABASE_MAX_CONNS) and Extra as
// extraConnections, payments' sandbox pool is the Extra, and the chart's default release
// fits its server by the budget's formula (db.Connections over db.RollingPods of the most
// replicas, what templates/database-budget.yaml computes). So make dev and the tests,
// which run on the services' defaults from the same table, open what a pod opens.
func TestChartPoolsAreTheBudget(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "helm", "hangar", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v chartValues
	if err := yaml.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	d := v.ComponentDefaults
	var withDB []string
	pods := map[string]int{}
	for name, c := range v.Services {
		if !or(c.Enabled, d.Enabled) || !or(c.Database.Enabled, d.Database.Enabled) {
			continue
		}
		withDB = append(withDB, name)
		got := db.Budget{Max: or(c.Database.MaxConnections, d.Database.MaxConnections), Extra: or(c.Database.ExtraConnections, d.Database.ExtraConnections)}
		if want := db.ServiceBudget(name); got != want {
			t.Errorf("chart services.%s.database: maxConnections %d, extraConnections %d; the budget (db.ServiceBudget) is %d and %d",
				name, got.Max, got.Extra, want.Max, want.Extra)
		}
		most := or(c.Replicas, d.Replicas)
		if or(c.Autoscaling.Enabled, d.Autoscaling.Enabled) {
			most = or(c.Autoscaling.MaxReplicas, d.Autoscaling.MaxReplicas)
		}
		pods[name] = db.RollingPods(most)
	}
	slices.Sort(withDB)
	if !slices.Equal(withDB, db.Services()) {
		t.Errorf("chart components with a database %v, the budget's services %v", withDB, db.Services())
	}
	if n, err := strconv.Atoi(v.Services["payments"].Env["PAYMENTS_SANDBOX_MAX_CONNS"]); err != nil || n != db.ServiceBudget("payments").Extra {
		t.Errorf("chart PAYMENTS_SANDBOX_MAX_CONNS %q, want the budget's payments Extra %d", v.Services["payments"].Env["PAYMENTS_SANDBOX_MAX_CONNS"], db.ServiceBudget("payments").Extra)
	}
	total := db.Connections(func(s string) int { return pods[s] }, v.PostgreSQL.ReservedConnections)
	t.Logf("chart default release: at most %d connections of postgresql.maxConnections %d", total, v.PostgreSQL.MaxConnections)
	if total > v.PostgreSQL.MaxConnections {
		t.Errorf("the chart's default release may open %d connections, over postgresql.maxConnections %d", total, v.PostgreSQL.MaxConnections)
	}
}

// One process of every service (make dev, a test of the whole store) opens at most 60
// connections under load: PostgreSQL's default max_connections (100) holds it beside its
// reserved slots and a test run.
func TestOneProcessEachFitsTheDefaultServer(t *testing.T) {
	t.Parallel()
	if got := db.Connections(func(string) int { return 1 }, 0); got != 60 {
		t.Errorf("one process of each service: %d connections at most, want 60", got)
	}
}

// Every pool Open builds has a maximum and an idle timeout: a pool that names no size gets
// db.DefaultMaxConns, not pgx's (which grows with the cores), and none keeps connections
// pgx's 30 minutes; IdleAfter shortens it and the health check follows.
func TestEveryPoolHasAMaximumAndAnIdleTimeout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name             string
		max              int
		opts             []db.PoolOption
		wantMax          int32
		wantIdle, wantHC time.Duration
	}{
		{"no size named", 0, nil, db.DefaultMaxConns, db.IdleTimeout, db.IdleTimeout / 4},
		{"a service's size", 8, []db.PoolOption{db.IdleAfter(0)}, 8, db.IdleTimeout, db.IdleTimeout / 4},
		{"a short idle timeout", 24, []db.PoolOption{db.IdleAfter(time.Second)}, 24, time.Second, 250 * time.Millisecond},
	} {
		pool, err := db.Open(context.Background(), dbtest.DefaultServerURL, c.max, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		cfg := pool.Config()
		pool.Close()
		if cfg.MaxConns != c.wantMax || cfg.MinConns != 0 || cfg.MaxConnIdleTime != c.wantIdle || cfg.HealthCheckPeriod != c.wantHC {
			t.Errorf("%s: max %d, min %d, idle %v, health check %v; want %d, 0, %v, %v", c.name,
				cfg.MaxConns, cfg.MinConns, cfg.MaxConnIdleTime, cfg.HealthCheckPeriod, c.wantMax, c.wantIdle, c.wantHC)
		}
	}
}
