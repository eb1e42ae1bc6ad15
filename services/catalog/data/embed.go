// Package data embeds the catalogue data file shipped with this build. The service loads it
// into its database at start when that version is not there yet.
package data

import "embed"

// Catalog is services/catalog/data/catalog.yaml.
//
//go:embed catalog.yaml
var Catalog []byte

// MapOutlines holds the coverage map's outlines (map/outlines/<region>.json, one GeoJSON
// Feature each, and land.json), generated from map/regions.json by map/generate.mjs.
//
//go:embed map/outlines/*.json
var MapOutlines embed.FS
