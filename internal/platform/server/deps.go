package server

import (
	"context"
	"io"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// NewDeps builds the telemetry a service runs with from its platform configuration: the
// logger (to logOut), the tracer provider, a fresh metrics registry with RED metrics, and the
// propagator. Call shutdown on exit to flush traces.
func NewDeps(ctx context.Context, cfg config.Platform, logOut io.Writer) (deps Deps, shutdown func(context.Context) error, err error) {
	log, err := telemetry.NewLogger(logOut, cfg.LogLevel, cfg.LogFormat, cfg.ServiceName)
	if err != nil {
		return Deps{}, nil, err
	}
	tp, shutdown, err := telemetry.NewTracerProvider(ctx, cfg.ServiceName, cfg.OTLPEndpoint, cfg.TraceSampleRate)
	if err != nil {
		return Deps{}, nil, err
	}
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, cfg.ServiceName)
	if err != nil {
		_ = shutdown(ctx)
		return Deps{}, nil, err
	}
	adoptGRPCLogs(log)
	return Deps{Logger: log, Registry: reg, Tracer: tp, Propagator: telemetry.Propagator(), RED: red}, shutdown, nil
}
