// Command contract-check holds the API exchanges a browser run recorded through the dev
// edge (HANGAR_CONTRACT_LOG, set by scripts/web-e2e.sh) to the published OpenAPI documents
// (gen/openapi3), with the same rules as the Go service tests (internal/platform/contracttest).
//
//	go run ./cmd/contract-check web/test-results/api-exchanges.jsonl
//
// It prints each violation and exits 1 when there is any.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/hangar/hangar/internal/edge"
	"github.com/hangar/hangar/internal/platform/contracttest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: contract-check EXCHANGES.jsonl")
		os.Exit(2)
	}
	n, bad, err := check(os.Args[1], contracttest.Dir())
	if err != nil {
		fmt.Fprintln(os.Stderr, "contract-check:", err)
		os.Exit(1)
	}
	if len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "contract-check: %d of %d API exchanges of the browser run break the OpenAPI documents (gen/openapi3; proto/openapi.contract.json):\n  %s\n", len(bad), n, strings.Join(bad, "\n  "))
		os.Exit(1)
	}
	fmt.Printf("contract-check: %d API exchanges of the browser run match the OpenAPI documents\n", n)
}

// check validates every exchange of the log at path against the documents under dir.
func check(path, dir string) (checked int, violations []string, err error) {
	v, err := contracttest.Load(dir)
	if err != nil {
		return 0, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var x edge.Exchange
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return 0, nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		req, err := http.NewRequest(x.Method, "http://edge"+x.URI, nil)
		if err != nil {
			return 0, nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if x.ContentType != "" {
			req.Header.Set("Content-Type", x.ContentType)
		}
		h := http.Header{}
		if x.AnswerType != "" {
			h.Set("Content-Type", x.AnswerType)
		}
		if x.AnswerEncoding != "" {
			h.Set("Content-Encoding", x.AnswerEncoding)
		}
		_ = v.Check(contracttest.Exchange{Request: req, RequestBody: x.Body, Status: x.Status, Header: h, Body: x.Answer})
	}
	if err := sc.Err(); err != nil {
		return 0, nil, err
	}
	checked, violations = v.Violations()
	return checked, violations, nil
}
