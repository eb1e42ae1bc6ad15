package server_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/server"
)

// TestMain installs grpclog's logger before any gRPC code runs, as a command's main does.
func TestMain(m *testing.M) {
	server.InstallGRPCLogs()
	os.Exit(m.Run())
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A client's bytes the gateway library quotes in its log lines (here a Content-Type it
// cannot parse, written verbatim by grpc-gateway, invalid UTF-8 and a forged log line
// included) reach the log only as an escaped attribute of a structured record; they went
// to stderr raw before.
func TestClientBytesReachLogsOnlyEscaped(t *testing.T) {
	t.Parallel()
	out := &lockedBuffer{}
	defer server.CaptureGRPCLogs(slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})))()
	s, _, _ := startServer(t, &fake{traces: make(chan trace.TraceID, 4)})
	_, httpAddr, _ := s.Addrs()
	const forged = "\xff\xfe/x;\n{\"level\":\"ERROR\",\"msg\":\"forged\"}"
	req, err := http.NewRequest("GET", "http://"+httpAddr+"/account/api/subscription/available/add-ons?currency=USD", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header["Content-Type"] = []string{strings.ReplaceAll(forged, "\n", " ")}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	logged := out.String()
	if !strings.Contains(logged, "Content-Type") {
		t.Fatalf("the gateway's complaint about the Content-Type was not logged through slog:\n%s", logged)
	}
	for _, line := range strings.Split(strings.TrimSpace(logged), "\n") {
		var rec map[string]any
		if !utf8.ValidString(line) || json.Unmarshal([]byte(line), &rec) != nil {
			t.Errorf("log line is not a valid JSON record: %q", line)
			continue
		}
		if rec["msg"] == "forged" {
			t.Errorf("a client forged a log record: %q", line)
		}
	}
}
