// Package adapters stores catalogue data versions in the catalog service's PostgreSQL database.
package adapters

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/catalog/internal/app"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

// Migrations are the catalog database's schema migrations.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Store keeps every loaded catalogue version; one of them is active. It is the app's
// Store and Versions.
type Store struct{ pool *pgxpool.Pool }

var _ app.Versions = (*Store)(nil)

// NewStore uses pool, already migrated.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Load stores c and, when activate is set, makes it the active version. Loading a version
// that is already stored with the same content is a no-op apart from activation; the same
// version with different content is a Conflict: data releases are immutable, bump the version.
// It answers whether the version was newly inserted.
func (s *Store) Load(ctx context.Context, c *domain.Catalog, activate bool) (inserted bool, err error) {
	doc, err := json.Marshal(c.Document())
	if err != nil {
		return false, fmt.Errorf("encode catalogue %s: %w", c.Version(), err)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO catalog_versions (version, checksum, document) VALUES ($1, $2, $3)
			ON CONFLICT (version) DO NOTHING`, c.Version(), c.Checksum(), doc)
		if err != nil {
			return fmt.Errorf("insert catalogue %s: %w", c.Version(), err)
		}
		inserted = tag.RowsAffected() == 1
		if !inserted {
			var sum string
			if err := tx.QueryRow(ctx, `SELECT checksum FROM catalog_versions WHERE version = $1`, c.Version()).Scan(&sum); err != nil {
				return fmt.Errorf("read catalogue %s: %w", c.Version(), err)
			}
			if sum != c.Checksum() {
				return errs.E(errs.Conflict, "catalogue version %s is already loaded with different content: bump the version", c.Version())
			}
		}
		if activate {
			if _, err := tx.Exec(ctx, `UPDATE catalog_versions SET activated_at = clock_timestamp() WHERE version = $1`, c.Version()); err != nil {
				return fmt.Errorf("activate catalogue %s: %w", c.Version(), err)
			}
		}
		return nil
	})
	return inserted, err
}

// Activate makes a stored version active again (a rollback).
func (s *Store) Activate(ctx context.Context, version string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE catalog_versions SET activated_at = clock_timestamp() WHERE version = $1`, version)
	if err != nil {
		return fmt.Errorf("activate catalogue %s: %w", version, err)
	}
	if tag.RowsAffected() == 0 {
		return errs.E(errs.NotFound, "catalogue version %s is not loaded", version)
	}
	return nil
}

// Head answers the active version; NotFound when none is active.
func (s *Store) Head(ctx context.Context) (app.Head, error) {
	var h app.Head
	err := s.pool.QueryRow(ctx, `SELECT version, checksum FROM catalog_versions
		WHERE activated_at IS NOT NULL ORDER BY activated_at DESC LIMIT 1`).Scan(&h.Version, &h.Checksum)
	if errors.Is(err, pgx.ErrNoRows) {
		return app.Head{}, errs.E(errs.NotFound, "no catalogue version is active")
	}
	if err != nil {
		return app.Head{}, fmt.Errorf("read active catalogue: %w", err)
	}
	return h, nil
}

// Get answers a stored version, validated again on the way out.
func (s *Store) Get(ctx context.Context, version string) (*domain.Catalog, error) {
	var doc []byte
	err := s.pool.QueryRow(ctx, `SELECT document FROM catalog_versions WHERE version = $1`, version).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errs.E(errs.NotFound, "catalogue version %s is not loaded", version)
	}
	if err != nil {
		return nil, fmt.Errorf("read catalogue %s: %w", version, err)
	}
	return domain.Parse(doc)
}
