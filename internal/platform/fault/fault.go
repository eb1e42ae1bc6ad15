// Package fault lands a crash at a named point of a request on purpose, for the chaos run
// (scripts/chaos.sh): a kill -9 from outside hits a submit's charge-to-write window only by
// luck, and the windows that lose money are the ones to prove.
//
// A point fires when development mode is on (config.DevModeVar), HANGAR_FAULT_DIR names a
// directory and a file named after the point is in it: the first process of any replica
// to reach the point removes the file (one removal succeeds) and dies with SIGKILL there,
// as a kill -9 would, so a point fires once per arming however many replicas pass it and
// a restarted process, which inherits the same environment, does not die again. Outside
// development mode the variable is ignored: production binaries carry the seam, never the
// crash.
package fault

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/hangar/hangar/internal/platform/config"
)

// DirVar names the directory where points are armed.
const DirVar = "HANGAR_FAULT_DIR"

// Points of the order path (the chaos run arms them by these names).
const (
	// PaymentsAfterCapture: the processor captured, payments has not committed its charge.
	PaymentsAfterCapture = "payments.after-capture"
	// CheckoutAfterCharge: payments answered the charge, checkout has not written the order.
	CheckoutAfterCharge = "checkout.after-charge"
)

// Point answers the hook of point, nil when no fault can be armed in this process (not
// development mode, or no DirVar): the callers' seams stay nil in production.
func Point(point string) func(string) error {
	return pointFrom(os.LookupEnv, point, kill)
}

func pointFrom(lookup config.Lookup, point string, die func()) func(string) error {
	dir, ok := lookup(DirVar)
	if !ok || dir == "" {
		return nil
	}
	if dev, err := config.DevMode(lookup); err != nil || !dev {
		return nil
	}
	armed := filepath.Join(dir, point)
	return func(string) error {
		if os.Remove(armed) == nil {
			die()
		}
		return nil
	}
}

func kill() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }
