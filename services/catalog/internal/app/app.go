// Package app is the catalog service's use case: keep the active catalogue version in
// memory, pick up a newly activated version without a restart, and answer queries from it.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

// Head is the identity of the active version.
type Head struct{ Version, Checksum string }

// Store is where catalogue versions are kept (adapters.Store in production).
type Store interface {
	// Head answers the active version; NotFound when none is active.
	Head(ctx context.Context) (Head, error)
	// Get answers a stored version; NotFound when it is not stored.
	Get(ctx context.Context, version string) (*domain.Catalog, error)
}

// Versions is the store as data releases change it (adapters.Store in production).
type Versions interface {
	Store
	// Load stores c and, when activate is set, makes it the active version, in one
	// transaction. It answers whether the version was newly inserted; the same version
	// with different content is a Conflict.
	Load(ctx context.Context, c *domain.Catalog, activate bool) (inserted bool, err error)
	// Activate makes a stored version active; NotFound when it is not stored.
	Activate(ctx context.Context, version string) error
}

// Catalogs holds the active catalogue. Readers call Current on every request; a swap is one
// atomic pointer store, so requests never see a half-loaded version.
type Catalogs struct {
	store Store
	log   *slog.Logger
	cur   atomic.Pointer[domain.Catalog]

	mu        sync.Mutex
	listeners []func(*domain.Catalog)
}

// NewCatalogs reads from store.
func NewCatalogs(store Store, log *slog.Logger) *Catalogs {
	return &Catalogs{store: store, log: log}
}

// OnChange registers f to run (synchronously, before the swap is visible) for every new
// version, so derived caches are ready when readers see the version.
func (c *Catalogs) OnChange(f func(*domain.Catalog)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners = append(c.listeners, f)
}

// Current answers the active catalogue, or an Unavailable error before the first load.
func (c *Catalogs) Current() (*domain.Catalog, error) {
	if cat := c.cur.Load(); cat != nil {
		return cat, nil
	}
	return nil, errs.E(errs.Unavailable, "the catalogue is not loaded yet")
}

// Refresh loads the active version if it differs from the one in memory. It answers
// whether a new version was swapped in.
func (c *Catalogs) Refresh(ctx context.Context) (bool, error) {
	head, err := c.store.Head(ctx)
	if err != nil {
		return false, err
	}
	if cur := c.cur.Load(); cur != nil && cur.Version() == head.Version && cur.Checksum() == head.Checksum {
		return false, nil
	}
	cat, err := c.store.Get(ctx, head.Version)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	for _, f := range c.listeners {
		f(cat)
	}
	old := c.cur.Swap(cat)
	c.mu.Unlock()
	from := ""
	if old != nil {
		from = old.Version()
	}
	c.log.InfoContext(ctx, "catalogue version active", "version", cat.Version(), "previous", from, "entries", len(cat.AllEntries()))
	return true, nil
}

// Watch refreshes every interval until ctx ends; failures are logged and retried, and the
// version in memory keeps serving meanwhile.
func (c *Catalogs) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := c.Refresh(ctx); err != nil && ctx.Err() == nil {
				c.log.WarnContext(ctx, "catalogue refresh failed; serving the version in memory", "err", err.Error())
			}
		}
	}
}

// Seed stores the catalogue raw (the data file built into the binary). A version seen for
// the first time is activated; one already stored is left as it is, so an older binary
// starting during a rollout does not switch prices back.
func Seed(ctx context.Context, store Versions, raw []byte, log *slog.Logger) error {
	cat, err := domain.Parse(raw)
	if err != nil {
		return fmt.Errorf("embedded catalogue: %w", err)
	}
	inserted, err := store.Load(ctx, cat, false)
	if err != nil {
		return err
	}
	if inserted {
		log.InfoContext(ctx, "embedded catalogue stored", "version", cat.Version())
		return store.Activate(ctx, cat.Version())
	}
	if _, err := store.Head(ctx); err != nil {
		return store.Activate(ctx, cat.Version())
	}
	return nil
}

// LoadVersion is the operator's `catalog load`: it reads a data file, stores its version
// and makes it the active one in one transaction, and answers the version. Running
// services pick it up at their next refresh.
func LoadVersion(ctx context.Context, store Versions, raw []byte) (string, error) {
	cat, err := domain.Parse(raw)
	if err != nil {
		return "", err
	}
	if _, err := store.Load(ctx, cat, true); err != nil {
		return "", err
	}
	return cat.Version(), nil
}

// ActivateVersion is the operator's `catalog activate`: a stored version becomes the
// active one again (a rollback); NotFound when it is not stored.
func ActivateVersion(ctx context.Context, store Versions, version string) error {
	return store.Activate(ctx, version)
}
