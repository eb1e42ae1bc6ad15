// Command layercheck fails when a service's inner layers reach for what only its adapters
// may hold (issue 32): a package under services/<svc>/internal/app, internal/domain or
// internal/gateway (and checkout's internal/order and internal/subscription) may import neither that service's
// internal/adapters nor a database driver (github.com/jackc/pgx/v5 and its packages,
// database/sql). The use cases declare the ports they need; SQL lives in adapters.
//
// It reads `go list -json` of the module (non-test imports: a test may build a database)
// and prints one line per offending import; `make lint` runs it.
//
// It also refuses globals (globals.go): an init function or a package-level variable that is
// state (sync or atomic values, function variables, variables written after their
// declaration) in any Go file outside gen/, tests included; and a top-level test that
// neither calls t.Parallel() nor says why it must run alone (parallel.go).
//
//	go run ./cmd/layercheck [packages...]   (default ./...)
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	patterns := os.Args[1:]
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	cmd := exec.Command("go", append([]string{"list", "-e", "-json=ImportPath,Imports", "--"}, patterns...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	pkgs, err := decode(out)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("go list: %w", werr)
	}
	if err != nil {
		fail(err)
	}
	vs := Check(pkgs)
	for _, v := range vs {
		fmt.Println(v)
	}
	if len(vs) > 0 {
		fmt.Fprintf(os.Stderr, "layercheck: %d forbidden imports in inner layers (app, domain, order, subscription, gateway; see the target shape in issue 32: ports in app, SQL in adapters)\n", len(vs))
	}
	globals, serial := checkGlobals(), checkParallel()
	if len(vs) > 0 || globals > 0 || serial > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "layercheck:", err)
	os.Exit(2)
}

// decode reads the stream of JSON objects `go list -json` prints.
func decode(r io.Reader) ([]Package, error) {
	var pkgs []Package
	dec := json.NewDecoder(r)
	for {
		var p Package
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decode go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}
