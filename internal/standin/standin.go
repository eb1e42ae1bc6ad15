// Package standin marks the development stand-ins hangar-dev runs inside its own process for
// what production gets from other people's processes: the Kafka-protocol broker (kfake; Kafka
// in production), the SMTP mail sink (an SMTP relay), the human verifier (Google's
// reCAPTCHA) and the sandbox card processor (payments' gateway.Sandbox; a processor such as
// Braintree or Stripe, whose adapter calls it over HTTPS). Their goroutines carry the runtime/pprof label Key with the stand-in's name,
// so a CPU profile of hangar-dev tells their CPU from the store's; the measurement scripts
// (scripts/perf-floor.sh, scripts/checkout-cpu.sh) count the store as hangar-dev less the
// labelled samples. The store's own side of them (kafka-go producers and consumers, the
// notifications service's SMTP client, the services' siteverify calls, payments' use of the
// processor's answers) runs unlabelled and stays the store's. The processor runs inside
// payments' own calls rather than on goroutines of its own: each call into it is labelled
// for its length (Do), as a call to a remote processor would leave payments' CPU.
package standin

import (
	"context"
	"net/http"
	"runtime/pprof"
)

// Key is the pprof label key every stand-in goroutine carries.
const Key = "hangar.standin"

// The stand-ins, the values of Key.
const (
	Broker    = "broker"
	Mail      = "mail"
	Recaptcha = "recaptcha"
	Processor = "processor"
)

// Names answers every stand-in, in the order the scripts print them.
func Names() []string { return []string{Broker, Mail, Recaptcha, Processor} }

// Do runs f with the calling goroutine labelled as stand-in name (besides ctx's own labels)
// and restores its labels after: every goroutine f starts inherits the label, and so do
// the goroutines those start (a server's accept loop and its connections).
func Do(ctx context.Context, name string, f func(context.Context)) {
	pprof.Do(ctx, pprof.Labels(Key, name), f)
}

// Handler serves h with the serving goroutine labelled as stand-in name for the length of
// each request, for a stand-in mounted on a server that also serves the store (the edge):
// the connection's own work before and after the handler (reading the request, flushing the
// answer) stays unlabelled.
func Handler(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Do(r.Context(), name, func(ctx context.Context) { h.ServeHTTP(w, r.WithContext(ctx)) })
	})
}
