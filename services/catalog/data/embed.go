// Package data embeds the catalogue data file shipped with this build. The service loads it
// into its database at start when that version is not there yet.
package data

import _ "embed"

// Catalog is services/catalog/data/catalog.yaml.
//
//go:embed catalog.yaml
var Catalog []byte
