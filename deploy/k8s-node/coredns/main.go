// CoreDNS with the plugins a cluster's DNS needs (kubernetes, forward, cache and their
// usual companions), in CoreDNS's plugin order: a build of the CoreDNS module without the
// cloud providers' plugins.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func main() {
	dnsserver.Directives = []string{"reload", "bind", "ready", "health", "errors", "log", "loadbalance", "cache", "kubernetes", "loop", "forward"}
	coremain.Run()
}
