// Command promcheck asserts a running Prometheus scrapes every expected target and has
// loaded and evaluated every rule without error (scripts/test-prometheus.sh). It polls the
// HTTP API until both hold or the timeout passes, then prints what is missing.
//
//	promcheck -url http://127.0.0.1:PORT -targets 4 -groups 30
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	base := flag.String("url", "", "Prometheus base URL")
	wantTargets := flag.Int("targets", 0, "number of active targets expected")
	wantGroups := flag.Int("groups", 0, "number of rule groups expected")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	last := ""
	for {
		ok, why, err := check(ctx, *base, *wantTargets, *wantGroups)
		if err != nil {
			fmt.Fprintln(os.Stderr, "promcheck: FAIL:", err)
			os.Exit(1)
		}
		if ok {
			fmt.Println("promcheck:", why)
			return
		}
		if why != last {
			fmt.Println("promcheck: waiting:", why)
			last = why
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "promcheck: FAIL after", *timeout, ":", why)
			os.Exit(1)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func get(ctx context.Context, url string, v any) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func check(ctx context.Context, base string, wantTargets, wantGroups int) (bool, string, error) {
	var targets struct {
		Data struct {
			ActiveTargets []struct {
				Labels    map[string]string `json:"labels"`
				ScrapeURL string            `json:"scrapeUrl"`
				Health    string            `json:"health"`
				LastError string            `json:"lastError"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := get(ctx, base+"/api/v1/targets", &targets); err != nil {
		return false, err.Error(), nil // not up yet
	}
	var down []string
	var up []string
	for _, t := range targets.Data.ActiveTargets {
		if t.Health != "up" {
			down = append(down, fmt.Sprintf("%s %s (%s %s)", t.Labels["job"], t.ScrapeURL, t.Health, t.LastError))
		} else {
			up = append(up, t.Labels["job"])
		}
	}
	if n := len(targets.Data.ActiveTargets); n != wantTargets {
		return false, fmt.Sprintf("%d active targets, want %d", n, wantTargets), nil
	}
	if len(down) > 0 {
		return false, "targets not up: " + strings.Join(down, "; "), nil
	}

	var rules struct {
		Data struct {
			Groups []struct {
				Name  string `json:"name"`
				File  string `json:"file"`
				Rules []struct {
					Name           string    `json:"name"`
					Health         string    `json:"health"`
					LastError      string    `json:"lastError"`
					LastEvaluation time.Time `json:"lastEvaluation"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if err := get(ctx, base+"/api/v1/rules", &rules); err != nil {
		return false, err.Error(), nil
	}
	if n := len(rules.Data.Groups); n != wantGroups {
		return false, fmt.Sprintf("%d rule groups loaded, want %d", n, wantGroups), nil
	}
	total := 0
	var pending []string
	for _, g := range rules.Data.Groups {
		for _, r := range g.Rules {
			total++
			switch {
			case r.Health == "err":
				// A rule that fails to evaluate fails the test at once: waiting will not fix it.
				return false, "", fmt.Errorf("rule %s in group %s: %s", r.Name, g.Name, r.LastError)
			case r.Health != "ok" || r.LastEvaluation.IsZero():
				pending = append(pending, g.Name+"/"+r.Name)
			}
		}
	}
	if len(pending) > 0 {
		sort.Strings(pending)
		return false, fmt.Sprintf("%d of %d rules not evaluated yet (first: %s)", len(pending), total, pending[0]), nil
	}
	sort.Strings(up)
	return true, fmt.Sprintf("%d targets up (%s); %d rules in %d groups loaded and evaluated without error",
		len(up), strings.Join(up, ", "), total, len(rules.Data.Groups)), nil
}
