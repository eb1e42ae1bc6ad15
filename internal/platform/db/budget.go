package db

import "time"

// The connection budget (docs/performance.md, "Connection budget"): every pool has a
// maximum and an idle timeout, and one table says how many connections each service's
// process may open. The services take their pool sizes from it (so make dev and every test
// that starts a service run on it), the chart's values equal it
// (services.<name>.database.maxConnections and extraConnections, which
// TestChartPoolsAreTheBudget checks), and templates/database-budget.yaml sums it with the
// formula of Connections: a store opens at most Connections(...) connections under load.
const (
	// DefaultMaxConns is a pool's size when its owner names none: pgx's own default on two
	// cores, made explicit so no pool grows with the machine's core count.
	DefaultMaxConns = 4
	// IdleTimeout closes a connection nobody used for this long: the pools shrink back to
	// what the background work uses once a burst is over.
	IdleTimeout = 30 * time.Second
	// HealthCheckPeriod caps how often a pool closes its idle connections (pgx: 1 minute);
	// Open checks four times per idle timeout below it. The check touches no connection.
	HealthCheckPeriod = 10 * time.Second
)

// Budget is one service process's connections: Max in its main pool (DATABASE_MAX_CONNS)
// and Extra in its other pools (payments' sandbox processor).
type Budget struct{ Max, Extra int }

// PerProcess is the most connections one process of the service opens.
func (b Budget) PerProcess() int { return b.Max + b.Extra }

// Services are the services with a database, in the order the budget lists them.
func Services() []string {
	return []string{"allocation", "catalog", "checkout", "identity", "notifications", "payments"}
}

// ServiceBudget answers a service's budget per process (the zero Budget for a service
// without a database). Why the sizes: a commit waits for its WAL flush, and a pool's
// connections are how many commits of a process can share one (group commit); identity
// and checkout write on every order (8), payments holds a connection through the
// processor call (24, and 8 for the sandbox processor's own statements); the others
// write little (4). A process of each: 60 connections, within PostgreSQL's default
// max_connections (100) beside the server's reserved slots, so a development store and
// the tests beside it fit one server.
func ServiceBudget(service string) Budget {
	switch service {
	case "identity", "checkout":
		return Budget{Max: 8}
	case "payments":
		return Budget{Max: 24, Extra: 8}
	case "allocation", "catalog", "notifications":
		return Budget{Max: DefaultMaxConns}
	}
	return Budget{}
}

// Connections is the budget's formula: each service's PerProcess times the processes it
// may run (processes(service)), summed, plus reserved (superuser slots, migrate jobs, an
// operator's psql). make dev runs one process of each (reserved 0); the chart counts each
// component's most pods (RollingPods) and postgresql.reservedConnections.
func Connections(processes func(service string) int, reserved int) int {
	total := reserved
	for _, s := range Services() {
		total += ServiceBudget(s).PerProcess() * processes(s)
	}
	return total
}

// RollingPods is the most pods a component with at most replicas runs: the rolling
// update's 25% surge on top, rounded up, as Kubernetes rounds maxSurge.
func RollingPods(replicas int) int { return replicas + (replicas+3)/4 }

// AtRest is the most connections a whole store (every service, one process each) holds
// when nothing is asked of it: what its background work uses at once, the rest closed
// after IdleTimeout. Five development stores or test runs on one server of 100 fit.
const AtRest = 16
