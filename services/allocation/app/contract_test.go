package app_test

import (
	"os"
	"testing"

	"github.com/hangar/hangar/internal/platform/contracttest"
)

// Every request these tests send to the service's public port, and every answer, is held
// to the published OpenAPI documents (gen/openapi3): a drift fails the package.
func TestMain(m *testing.M) { os.Exit(contracttest.Main(m)) }
