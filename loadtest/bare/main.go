// Command bare is the yardstick of the catalogue performance target: a bare net/http
// handler that answers with the same bytes as the service's available-plans read (fetched
// once from -from at start), with no middleware, metrics, tracing or routing.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	from := flag.String("from", "http://127.0.0.1:8080/account/api/subscription/available/add-ons", "URL whose answer to serve")
	flag.Parse()
	req, _ := http.NewRequest(http.MethodGet, *from, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		log.Fatalf("fetch %s: %v", *from, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		log.Fatalf("fetch %s: status %d, %v", *from, resp.StatusCode, err)
	}
	enc := resp.Header.Get("Content-Encoding")
	fmt.Fprintf(os.Stderr, "bare: serving %d bytes (%s) on %s\n", len(body), enc, *addr)
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if enc != "" {
			w.Header().Set("Content-Encoding", enc)
		}
		_, _ = w.Write(body)
	})))
}
