package servicetest

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Metric sums the samples of metric name on an admin port's /metrics (admin is host:port)
// whose label text contains every one of want (e.g. `outcome="handled"`): what a service
// exposes, read the way Prometheus would.
func Metric(t testing.TB, admin, name string, want ...string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
next:
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		for _, w := range want {
			if !strings.Contains(line, w) {
				continue next
			}
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += v
	}
	return sum
}
