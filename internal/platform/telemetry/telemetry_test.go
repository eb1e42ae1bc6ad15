package telemetry_test

import (
	"context"
	"testing"

	"github.com/hangar/hangar/internal/platform/telemetry"
)

// Without an exporter spans are not recorded, yet each has trace and span ids for the logs
// and for propagation, and a child keeps its parent's trace.
func TestTracerWithoutExporterKeepsIDsRecordsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tp, shutdown, err := telemetry.NewTracerProvider(ctx, "test", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(ctx) }()
	pctx, parent := tp.Tracer("t").Start(ctx, "parent")
	_, child := tp.Tracer("t").Start(pctx, "child")
	if parent.IsRecording() || child.IsRecording() {
		t.Error("spans are recorded without an exporter")
	}
	p, c := parent.SpanContext(), child.SpanContext()
	if !p.TraceID().IsValid() || !p.SpanID().IsValid() || !c.SpanID().IsValid() {
		t.Errorf("ids missing: parent %v, child %v", p, c)
	}
	if c.TraceID() != p.TraceID() || c.SpanID() == p.SpanID() {
		t.Errorf("child %v is not in its parent's trace %v", c, p)
	}
}
