package servicetest

import (
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// Gatherer reads an admin port's /metrics (admin is host:port) as Prometheus scrapes it, so
// what reads an in-process registry (dbtest.Gather, say) reads a running service the same way.
func Gatherer(admin string) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		resp, err := http.Get("http://" + admin + "/metrics")
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET /metrics on %s: %s", admin, resp.Status)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		byName, err := p.TextToMetricFamilies(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("parse /metrics of %s: %w", admin, err)
		}
		out := make([]*dto.MetricFamily, 0, len(byName))
		for _, mf := range byName {
			out = append(out, mf)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
		return out, nil
	})
}

// Metric sums the samples of metric name (a counter, gauge or untyped metric) on an admin
// port's /metrics whose labels include every one of want, each written `label="value"`
// (e.g. `outcome="handled"`).
func Metric(t testing.TB, admin, name string, want ...string) float64 {
	t.Helper()
	mfs, err := Gatherer(admin).Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			labels := map[string]bool{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()+`="`+l.GetValue()+`"`] = true
			}
			for _, w := range want {
				if !labels[w] {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			case m.Untyped != nil:
				sum += m.GetUntyped().GetValue()
			}
		}
	}
	return sum
}

// AwaitMetric waits until Metric(name, want...) reaches at least n, polling /metrics, and
// fails the test if it has not within a minute (a consumer that stopped, say).
func AwaitMetric(t testing.TB, admin, name string, n float64, want ...string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := Metric(t, admin, name, want...)
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%v = %v after a minute; want at least %v", name, want, got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ReportDB reports, per unit of b.N, the statements, round trips and transactions pool made
// on a service since before (read with dbtest.Gather(b, Gatherer(admin))[pool]).
func ReportDB(b *testing.B, after, before dbtest.Counts, unit string) {
	d, n := after.Minus(before), float64(b.N)
	b.ReportMetric(d.Statements()/n, "stmts/"+unit)
	b.ReportMetric(d.Query/n, "roundtrips/"+unit)
	b.ReportMetric(d.Transactions/n, "txs/"+unit)
}
