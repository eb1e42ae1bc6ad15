package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/db"
)

// PoolCollector answers the statement and transaction counters of a's pool on their own:
// an /metrics scrape also reads the database (the outbox's depth) while it counts.
func PoolCollector(a *App) prometheus.Collector { return db.NewPoolCollector(a.pool, "main") }

// CheckVATRegister is checkVATRegister (LoadConfig's check of CHECKOUT_VAT_REGISTER).
var CheckVATRegister = checkVATRegister

// Metrics answers a's registry (the outbound calls' counters among them).
func Metrics(a *App) prometheus.Gatherer { return a.deps.Registry }
