// Command pause is the pod sandbox's process on the real-node test (scripts/test-k8s.sh):
// it holds the pod's namespaces until the runtime stops it, as registry.k8s.io/pause does
// (no registry is reachable here, so containerd's sandbox_image is this, built by
// hangar-images -extra).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
