package db

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/errs"
)

// PoolCollector exposes a pgx pool's statistics, read at scrape time from pool.Stat() (no
// hooks on the hot path). A service registers one per pool it opens, named by what the
// pool is for ("main", "sandbox", ...), so saturation shows before requests queue:
//
//	hangar_db_pool_connections{pool,state="acquired|idle|constructing"}
//	hangar_db_pool_max_connections{pool}
//	hangar_db_pool_acquires_total{pool}, hangar_db_pool_acquire_wait_seconds_total{pool}
//	hangar_db_pool_empty_acquires_total{pool} (had to wait for a connection)
//	hangar_db_pool_canceled_acquires_total{pool}
//	hangar_db_statements_total{pool,kind="query|batched|copy"} (pools made by Open: BEGIN and
//	COMMIT count as queries; a batch's statements share one round trip)
//	hangar_db_transactions_total{pool} (pools made by Open: what is sent outside a transaction
//	block starts one, implicit or with BEGIN)
type PoolCollector struct {
	pool                                  *pgxpool.Pool
	name                                  string
	conns, maxConns                       *prometheus.Desc
	acquires, acquireWait, empty, cancels *prometheus.Desc
	statements, transactions              *prometheus.Desc
}

// NewPoolCollector describes pool under the given name.
func NewPoolCollector(pool *pgxpool.Pool, name string) *PoolCollector {
	l := prometheus.Labels{"pool": name}
	return &PoolCollector{
		pool: pool, name: name,
		conns: prometheus.NewDesc("hangar_db_pool_connections",
			"Connections of the database pool by state: acquired (in use), idle, constructing.", []string{"state"}, l),
		maxConns: prometheus.NewDesc("hangar_db_pool_max_connections",
			"Maximum size of the database pool.", nil, l),
		acquires: prometheus.NewDesc("hangar_db_pool_acquires_total",
			"Successful connection acquisitions from the database pool.", nil, l),
		acquireWait: prometheus.NewDesc("hangar_db_pool_acquire_wait_seconds_total",
			"Total time spent acquiring connections from the database pool.", nil, l),
		empty: prometheus.NewDesc("hangar_db_pool_empty_acquires_total",
			"Acquisitions that had to wait because the database pool had no idle connection.", nil, l),
		cancels: prometheus.NewDesc("hangar_db_pool_canceled_acquires_total",
			"Acquisitions given up because the caller's context ended first.", nil, l),
		statements: prometheus.NewDesc("hangar_db_statements_total",
			"Statements sent through the pool: query (its own round trip), batched (pipelined), copy.", []string{"kind"}, l),
		transactions: prometheus.NewDesc("hangar_db_transactions_total",
			"Transactions begun through the pool: a statement, batch or copy sent outside a transaction block (implicit) or a BEGIN.", nil, l),
	}
}

// RegisterPool registers a PoolCollector for pool on reg.
func RegisterPool(reg prometheus.Registerer, pool *pgxpool.Pool, name string) error {
	return reg.Register(NewPoolCollector(pool, name))
}

// Describe implements prometheus.Collector.
func (c *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.conns, c.maxConns, c.acquires, c.acquireWait, c.empty, c.cancels, c.statements, c.transactions} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(c.maxConns, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(c.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.acquireWait, prometheus.CounterValue, s.AcquireDuration().Seconds())
	ch <- prometheus.MustNewConstMetric(c.empty, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.cancels, prometheus.CounterValue, float64(s.CanceledAcquireCount()))
	if sc, ok := c.pool.Config().ConnConfig.Tracer.(*statementCounter); ok {
		ch <- prometheus.MustNewConstMetric(c.statements, prometheus.CounterValue, float64(sc.query.Load()), "query")
		ch <- prometheus.MustNewConstMetric(c.statements, prometheus.CounterValue, float64(sc.batched.Load()), "batched")
		ch <- prometheus.MustNewConstMetric(c.statements, prometheus.CounterValue, float64(sc.copy.Load()), "copy")
		ch <- prometheus.MustNewConstMetric(c.transactions, prometheus.CounterValue, float64(sc.transactions.Load()))
	}
}

// statementCounter is the pgx tracer Open installs: it counts what each pool sends, by
// kind (a statement on its own, a statement in a pipelined batch, a COPY), with one atomic
// add per statement, and the transactions that begins. A connection outside a transaction
// block (ReadyForQuery said idle) starts one with whatever it sends next: the statement's
// or batch's implicit transaction, or the block a BEGIN opens; pg_stat_database counts the
// same per database, but late and for every client of the server at once.
//
// It also notices writes to the outbox (an INSERT INTO outbox, a COPY into it) and, once
// the connection is back outside a transaction block (committed, or rolled back: a wake-up
// for nothing costs the relay one round), signals OutboxWrites: the outbox relay of this
// process waits on that instead of polling (kafka.Relay.Wake).
type statementCounter struct {
	query, batched, copy, transactions atomic.Int64

	// outbox is signalled (never blocking, one pending signal at most) when a transaction
	// that wrote the outbox ended; pending holds the connections in such a transaction,
	// npending their number, so the common case (none) costs one atomic load.
	outbox   chan struct{}
	mu       sync.Mutex
	pending  map[*pgx.Conn]bool
	npending atomic.Int32

	// succeeded counts the statements, batches and copies the server answered without an
	// error: Probe skips its ping when it moved since the last probe (and failures, the lost
	// database's, did not). lost is signalled (one
	// pending signal at most) when one failed, or a connection could not be made, because
	// the database could not be reached (LostDatabase).
	succeeded, failures atomic.Int64
	lost                chan struct{}
}

func newStatementCounter() *statementCounter {
	return &statementCounter{outbox: make(chan struct{}, 1), pending: map[*pgx.Conn]bool{}, lost: make(chan struct{}, 1)}
}

// LostDatabase answers a channel that receives a value after a statement of pool failed, or
// a connection of it could not be made, because the database could not be reached (the
// errors errs.CodeOf takes for Unavailable, a cancelled call aside), or nil when pool was
// not made by Open. server.ProbeReady probes at once on it rather than at its next round.
func LostDatabase(pool *pgxpool.Pool) <-chan struct{} {
	if sc, ok := pool.Config().ConnConfig.Tracer.(*statementCounter); ok {
		return sc.lost
	}
	return nil
}

// answered records how a statement (a batch, a copy) ended.
func (c *statementCounter) answered(err error) {
	if err == nil {
		c.succeeded.Add(1)
		return
	}
	if errors.Is(err, context.Canceled) || errs.CodeOf(err) != errs.Unavailable {
		return
	}
	c.failures.Add(1)
	select {
	case c.lost <- struct{}{}:
	default:
	}
}

func (c *statementCounter) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return ctx
}

func (c *statementCounter) TraceConnectEnd(_ context.Context, d pgx.TraceConnectEndData) {
	if d.Err != nil {
		c.answered(d.Err)
	}
}

// OutboxWrites answers a channel that receives a value after a transaction of pool wrote
// outbox rows and ended (one value stands for any number of such transactions since it was
// last received), or nil when pool was not made by Open (its writes go unnoticed).
func OutboxWrites(pool *pgxpool.Pool) <-chan struct{} {
	if sc, ok := pool.Config().ConnConfig.Tracer.(*statementCounter); ok {
		return sc.outbox
	}
	return nil
}

// writesOutbox: sql inserts outbox rows (a statement of its own, or one part of a WITH),
// spelt as the kafka package and the services write it. A write spelt otherwise goes
// unnoticed and waits for the relay's periodic round, late but not lost.
func writesOutbox(sql string) bool {
	i := strings.Index(sql, "INSERT INTO outbox")
	if i < 0 {
		return false
	}
	rest := sql[i+len("INSERT INTO outbox"):]
	return rest == "" || rest[0] == ' ' || rest[0] == '(' || rest[0] == '\n' || rest[0] == '\t'
}

// wrote marks conn as in a transaction that wrote the outbox.
func (c *statementCounter) wrote(conn *pgx.Conn) {
	c.mu.Lock()
	if !c.pending[conn] {
		if len(c.pending) >= 64 {
			// A connection that broke in such a transaction never ends it here: forget it.
			for p := range c.pending {
				if p.IsClosed() {
					delete(c.pending, p)
					c.npending.Add(-1)
				}
			}
		}
		c.pending[conn] = true
		c.npending.Add(1)
	}
	c.mu.Unlock()
}

// ended signals OutboxWrites when conn wrote the outbox and its transaction is over.
func (c *statementCounter) ended(conn *pgx.Conn) {
	if c.npending.Load() == 0 || conn.PgConn().TxStatus() == 'T' {
		return
	}
	c.mu.Lock()
	was := c.pending[conn]
	if was {
		delete(c.pending, conn)
		c.npending.Add(-1)
	}
	c.mu.Unlock()
	if was {
		select {
		case c.outbox <- struct{}{}:
		default: // a signal is pending already: the relay's next round takes these rows too
		}
	}
}

// begins counts the transaction that what conn is about to send begins, if any.
func (c *statementCounter) begins(conn *pgx.Conn) {
	if conn.PgConn().TxStatus() == 'I' {
		c.transactions.Add(1)
	}
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.query.Add(1)
	c.begins(conn)
	if writesOutbox(d.SQL) {
		c.wrote(conn)
	}
	return ctx
}

func (c *statementCounter) TraceQueryEnd(_ context.Context, conn *pgx.Conn, d pgx.TraceQueryEndData) {
	c.answered(d.Err)
	c.ended(conn)
}

func (c *statementCounter) TraceBatchStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.begins(conn)
	return ctx
}

func (c *statementCounter) TraceBatchQuery(_ context.Context, conn *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.batched.Add(1)
	if writesOutbox(d.SQL) {
		c.wrote(conn)
	}
}

func (c *statementCounter) TraceBatchEnd(_ context.Context, conn *pgx.Conn, d pgx.TraceBatchEndData) {
	c.answered(d.Err)
	c.ended(conn)
}

func (c *statementCounter) TraceCopyFromStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	c.copy.Add(1)
	c.begins(conn)
	if len(d.TableName) > 0 && d.TableName[len(d.TableName)-1] == "outbox" {
		c.wrote(conn)
	}
	return ctx
}

func (c *statementCounter) TraceCopyFromEnd(_ context.Context, conn *pgx.Conn, d pgx.TraceCopyFromEndData) {
	c.answered(d.Err)
	c.ended(conn)
}
