package telemetry_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/telemetry"
)

// What net/http or httputil log through their *log.Logger (which may quote client bytes)
// is one structured record with the line as an escaped attribute, never a raw line.
func TestStdLoggerWritesEscapedRecords(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	l := telemetry.StdLogger(slog.New(slog.NewJSONHandler(&out, nil)), slog.LevelWarn, "http server")
	l.Printf("http: bad request from client: %s", "\xff\n{\"msg\":\"forged\"}")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("one line logged as %d: %q", len(lines), out.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("not a JSON record: %q", lines[0])
	}
	if rec["msg"] != "http server" || rec["level"] != "WARN" || !strings.Contains(rec["detail"].(string), "bad request from client") {
		t.Errorf("record = %v", rec)
	}
}
