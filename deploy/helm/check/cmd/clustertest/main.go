// Command clustertest installs the Hangar chart on a real Kubernetes API server on loopback
// and rolls it forward and back (scripts/test-cluster.sh, `make test-cluster`).
//
// It starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok (which
// plays the kubelets: it marks fake nodes and their pods Ready without running containers),
// all from ./bin, on free loopback ports, with state in a temporary directory. Then:
//
//  1. registers three kwok nodes in three zones and the prometheus-operator CRDs
//     (ServiceMonitor, PrometheusRule) from the operator's Go module;
//  2. `helm install --wait` with every component enabled, then checks that every object of
//     the rendered manifest exists on the server (so each kind was accepted), every
//     Deployment is Available with its pods on kwok nodes, the HPAs scaled their
//     Deployments to minReplicas, and the PDBs see enough healthy pods;
//  3. `helm upgrade --wait` with a new image tag while watching the pods: every Deployment
//     must roll over to the new tag without its ready pods ever dropping below what its
//     PodDisruptionBudget allows;
//  4. `helm rollback --wait` to revision 1: the old tag everywhere again, all Available;
//  5. `helm uninstall --wait`.
//
// Every process it starts dies with it: each gets SIGTERM (then SIGKILL) on the way out,
// and Pdeathsig kills them should this program itself be killed.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	release   = "hangar"
	namespace = "store"
	// componentLabel names the chart component of a pod (deploy/helm/hangar/_helpers.tpl).
	componentLabel = "app.kubernetes.io/component"
)

type options struct {
	bin, chart, values, crds, work string
	keep                           bool
	timeout                        time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin", "directory with etcd, kube-*, kwok, kwok-stages-*/ and helm")
	flag.StringVar(&o.chart, "chart", "deploy/helm/hangar", "the chart")
	flag.StringVar(&o.values, "values", "deploy/helm/cluster-values.yaml,deploy/helm/test-secrets-values.yaml", "values for the install (comma list)")
	flag.StringVar(&o.crds, "crds", "", "directory with the prometheus-operator CRD YAML files")
	flag.StringVar(&o.work, "work", "", "state directory (default: a new temporary directory, removed at the end)")
	flag.BoolVar(&o.keep, "keep", false, "keep the state directory (logs) even on success")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "give up after this long")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	err := run(ctx, o)
	cancel()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "test-cluster: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("test-cluster: PASS")
}

var start = time.Now()

func logf(format string, args ...any) {
	fmt.Printf("[%5.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options) (err error) {
	for _, p := range []*string{&o.bin, &o.chart, &o.crds} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}
	// -values is a comma list, as helm's -f takes it (the cluster values and the test Secrets).
	files := strings.Split(o.values, ",")
	for i, f := range files {
		if files[i], err = filepath.Abs(f); err != nil {
			return err
		}
	}
	o.values = strings.Join(files, ",")
	removeWork := o.work == ""
	if o.work == "" {
		if o.work, err = os.MkdirTemp("", "hangar-cluster-"); err != nil {
			return err
		}
	}
	defer func() {
		if err != nil || o.keep {
			logf("state and logs kept in %s", o.work)
		} else if removeWork {
			_ = os.RemoveAll(o.work)
		}
	}()

	cp, err := startControlPlane(ctx, o)
	defer cp.stop()
	if err != nil {
		return err
	}
	t := &tester{o: o, cp: cp}
	if err := t.connect(); err != nil {
		return err
	}
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"kwok nodes", t.nodes},
		{"prometheus-operator CRDs", t.crds},
		{"helm install", t.install},
		{"helm upgrade within the PDBs", t.upgrade},
		{"helm rollback", t.rollback},
		{"helm uninstall", t.uninstall},
	}
	for _, s := range steps {
		logf("==> %s", s.name)
		if err := s.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------- processes

type controlPlane struct {
	work, kubeconfig, server string
	procs                    []*proc
}

type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func freePorts(n int) ([]int, error) {
	// Hold every listener until all are picked so the ports differ; the kernel does not hand
	// out a just-closed ephemeral port again right away, so the race with other programs is
	// small (and a collision fails the test loudly, never silently).
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func (cp *controlPlane) start(name, bin string, args ...string) (*proc, error) {
	logFile, err := os.Create(filepath.Join(cp.work, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = cp.work
	// Own process group (a Ctrl-C of the terminal reaches us, and we stop them in order), and
	// killed by the kernel if this program dies without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	cp.procs = append(cp.procs, p)
	return p, nil
}

// stop ends the processes in reverse start order: SIGTERM, then SIGKILL after 10 s.
func (cp *controlPlane) stop() {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		p := cp.procs[i]
		select {
		case <-p.done:
			continue
		default:
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
	if len(cp.procs) > 0 {
		logf("stopped %d processes", len(cp.procs))
	}
	cp.procs = nil
}

// waitHTTP polls url until it answers 200 (TLS unverified: the API server's self-signed
// certificate), or the process exits, or ctx ends.
func waitHTTP(ctx context.Context, p *proc, url, token string) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: insecureTLS()}}
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v) before %s answered; see %s.log", p.name, p.err, url, p.name)
		case <-ctx.Done():
			return fmt.Errorf("%s: %s not ready (%s): %w", p.name, url, last, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func startControlPlane(ctx context.Context, o options) (*controlPlane, error) {
	cp := &controlPlane{work: o.work}
	ports, err := freePorts(5)
	if err != nil {
		return cp, err
	}
	etcdClient, etcdPeer, apiPort, cmPort, schedPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	cp.server = fmt.Sprintf("https://127.0.0.1:%d", apiPort)

	// Service-account signing key and a static admin token.
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return cp, err
	}
	saKey := filepath.Join(o.work, "sa.key")
	if err := os.WriteFile(saKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return cp, err
	}
	tokenBytes := make([]byte, 16)
	_, _ = rand.Read(tokenBytes)
	token := hex.EncodeToString(tokenBytes)
	tokens := filepath.Join(o.work, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",admin,admin,system:masters\n"), 0o600); err != nil {
		return cp, err
	}
	cp.kubeconfig = filepath.Join(o.work, "kubeconfig")
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: %q}
contexts:
- name: local
  context: {cluster: local, user: admin}
current-context: local
`, cp.server, token)
	if err := os.WriteFile(cp.kubeconfig, []byte(kubeconfig), 0o600); err != nil {
		return cp, err
	}
	bin := func(name string) string { return filepath.Join(o.bin, name) }

	logf("starting etcd on 127.0.0.1:%d", etcdClient)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	etcd, err := cp.start("etcd", bin("etcd"),
		"--name=hangar", "--data-dir="+filepath.Join(o.work, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", etcdPeer),
		fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", etcdPeer),
		fmt.Sprintf("--initial-cluster=hangar=http://127.0.0.1:%d", etcdPeer),
		"--log-level=warn",
		// Test data: no fsync per write keeps the shared machine's disk out of the timings.
		"--unsafe-no-fsync")
	if err != nil {
		return cp, err
	}
	if err := waitHTTP(ctx, etcd, etcdURL+"/health", ""); err != nil {
		return cp, err
	}

	logf("starting kube-apiserver on %s", cp.server)
	api, err := cp.start("kube-apiserver", bin("kube-apiserver"),
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", apiPort),
		"--cert-dir="+filepath.Join(o.work, "certs"),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+saKey, "--service-account-signing-key-file="+saKey,
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--enable-priority-and-fairness=false",
		"--v=0")
	if err != nil {
		return cp, err
	}
	if err := waitHTTP(ctx, api, cp.server+"/readyz", token); err != nil {
		return cp, err
	}

	// The controllers and the scheduler talk to the API server with the admin kubeconfig;
	// their own HTTPS endpoints take free ports and are not used.
	logf("starting kube-controller-manager, kube-scheduler and kwok")
	cm, err := cp.start("kube-controller-manager", bin("kube-controller-manager"),
		"--kubeconfig="+cp.kubeconfig,
		"--authentication-kubeconfig="+cp.kubeconfig, "--authorization-kubeconfig="+cp.kubeconfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", cmPort),
		"--cert-dir="+filepath.Join(o.work, "cm-certs"),
		"--leader-elect=false",
		"--service-account-private-key-file="+saKey,
		"--use-service-account-credentials=false",
		// Faster HPA reconciliation than the default 15 s keeps the test short.
		"--horizontal-pod-autoscaler-sync-period=2s",
		"--v=0")
	if err != nil {
		return cp, err
	}
	sched, err := cp.start("kube-scheduler", bin("kube-scheduler"),
		"--kubeconfig="+cp.kubeconfig,
		"--authentication-kubeconfig="+cp.kubeconfig, "--authorization-kubeconfig="+cp.kubeconfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", schedPort),
		"--cert-dir="+filepath.Join(o.work, "sched-certs"),
		"--leader-elect=false", "--v=0")
	if err != nil {
		return cp, err
	}
	stages, err := filepath.Glob(filepath.Join(o.bin, "kwok-stages-*", "*.yaml"))
	if err != nil || len(stages) == 0 {
		return cp, fmt.Errorf("no kwok stage files under %s/kwok-stages-*/ (run scripts/cluster-tools.sh)", o.bin)
	}
	kwokArgs := []string{"--kubeconfig=" + cp.kubeconfig, "--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--node-ip=10.0.0.1", "--cidr=10.0.0.0/16"}
	for _, s := range stages {
		kwokArgs = append(kwokArgs, "--config="+s)
	}
	kwok, err := cp.start("kwok", bin("kwok"), kwokArgs...)
	if err != nil {
		return cp, err
	}
	if err := waitHTTP(ctx, cm, fmt.Sprintf("https://127.0.0.1:%d/healthz", cmPort), token); err != nil {
		return cp, err
	}
	if err := waitHTTP(ctx, sched, fmt.Sprintf("https://127.0.0.1:%d/healthz", schedPort), token); err != nil {
		return cp, err
	}
	select {
	case <-kwok.done:
		return cp, fmt.Errorf("kwok exited (%v); see kwok.log", kwok.err)
	default:
	}
	logf("control plane up")
	return cp, nil
}

// ---------------------------------------------------------------------------- checks

type tester struct {
	o      options
	cp     *controlPlane
	cfg    *rest.Config
	kube   *kubernetes.Clientset
	dyn    *dynamic.DynamicClient
	mapper *restmapper.DeferredDiscoveryRESTMapper
	nodes_ []string
}

func (t *tester) connect() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", t.cp.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 200, 400
	t.cfg = cfg
	if t.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if t.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	t.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return nil
}

// poll calls fn every 250 ms until it reports done, fails, or the timeout passes; the
// error then carries fn's last explanation.
func poll(ctx context.Context, timeout time.Duration, what string, fn func(context.Context) (bool, string, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, why, err := fn(ctx)
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not after %s: %s", what, timeout, why)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// nodes registers three fake nodes, one per zone; kwok's node stage marks them Ready.
func (t *tester) nodes(ctx context.Context) error {
	for i, zone := range []string{"zone-a", "zone-b", "zone-c"} {
		name := fmt.Sprintf("kwok-node-%d", i)
		n := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
				Labels: map[string]string{
					"type": "kwok", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
					"kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": zone,
				},
			},
			Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{"cpu": resource.MustParse("32"), "memory": resource.MustParse("128Gi"), "pods": resource.MustParse("110")},
				Allocatable: corev1.ResourceList{"cpu": resource.MustParse("32"), "memory": resource.MustParse("128Gi"), "pods": resource.MustParse("110")},
			},
		}
		if _, err := t.kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			return err
		}
		t.nodes_ = append(t.nodes_, name)
	}
	return poll(ctx, 60*time.Second, "nodes Ready", func(ctx context.Context) (bool, string, error) {
		list, err := t.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		var notReady []string
		for _, n := range list.Items {
			if !nodeReady(&n) {
				notReady = append(notReady, n.Name)
			}
		}
		if len(notReady) == 0 && len(list.Items) == len(t.nodes_) {
			logf("%d nodes Ready: %s", len(list.Items), strings.Join(t.nodes_, ", "))
			return true, "", nil
		}
		return false, "not Ready: " + strings.Join(notReady, ", "), nil
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// crds creates the prometheus-operator CRDs the chart uses and waits until they serve.
func (t *tester) crds(ctx context.Context) error {
	if t.o.crds == "" {
		return errors.New("-crds not given")
	}
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	var names []string
	for _, f := range []string{"monitoring.coreos.com_servicemonitors.yaml", "monitoring.coreos.com_prometheusrules.yaml"} {
		docs, err := readYAMLDocs(filepath.Join(t.o.crds, f))
		if err != nil {
			return err
		}
		for _, u := range docs {
			if _, err := t.dyn.Resource(gvr).Create(ctx, u, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			names = append(names, u.GetName())
		}
	}
	err := poll(ctx, 60*time.Second, "CRDs Established", func(ctx context.Context) (bool, string, error) {
		for _, n := range names {
			u, err := t.dyn.Resource(gvr).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			established := false
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					established = true
				}
			}
			if !established {
				return false, n + " not Established", nil
			}
		}
		return true, "", nil
	})
	if err != nil {
		return err
	}
	t.mapper.Reset()
	logf("CRDs established: %s", strings.Join(names, ", "))
	return nil
}

func readYAMLDocs(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeDocs(f)
}

func decodeDocs(r io.Reader) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var out []*unstructured.Unstructured
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(obj) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
}

// helm runs the pinned helm against the test cluster, with its own home directories.
func (t *tester) helm(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(t.o.bin, "helm"), args...)
	home := filepath.Join(t.o.work, "helm")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+t.cp.kubeconfig,
		"HELM_CACHE_HOME="+home+"/cache", "HELM_CONFIG_HOME="+home+"/config", "HELM_DATA_HOME="+home+"/data")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	logf("helm %s (%.1fs)", strings.Join(args[:min(2, len(args))], " "), time.Since(began).Seconds())
	if err != nil {
		return out.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

const (
	tagInstall = "0.1.0-cluster"
	tagUpgrade = "0.2.0-cluster"
)

func (t *tester) install(ctx context.Context) error {
	if _, err := t.helm(ctx, "install", release, t.o.chart, "--namespace", namespace, "--create-namespace",
		"-f", t.o.values, "--set", "componentDefaults.image.tag="+tagInstall, "--wait", "--timeout", "5m"); err != nil {
		return err
	}
	manifest, err := t.helm(ctx, "get", "manifest", release, "--namespace", namespace)
	if err != nil {
		return err
	}
	objs, err := decodeDocs(strings.NewReader(manifest))
	if err != nil {
		return fmt.Errorf("decode the release manifest: %w", err)
	}
	// Every rendered object must be on the server, as rendered: the API server validated it
	// (CRD schemas included) when helm created it; here we prove nothing was dropped.
	kinds := map[string]int{}
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		m, err := t.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s %s: the server does not serve this kind: %w", gvk, u.GetName(), err)
		}
		ns := u.GetNamespace()
		if m.Scope.Name() == meta.RESTScopeNameNamespace && ns == "" {
			ns = namespace
		}
		if _, err := t.dyn.Resource(m.Resource).Namespace(ns).Get(ctx, u.GetName(), metav1.GetOptions{}); err != nil {
			return fmt.Errorf("%s %s/%s not on the server: %w", gvk.Kind, ns, u.GetName(), err)
		}
		kinds[gvk.Kind]++
	}
	logf("all %d rendered objects are on the server: %s", len(objs), countString(kinds))
	for _, k := range []string{"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "ServiceMonitor", "PrometheusRule", "Ingress", "ConfigMap"} {
		if kinds[k] == 0 {
			return fmt.Errorf("the release has no %s (cluster-values.yaml must switch every kind on)", k)
		}
	}
	deps, err := t.kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	var comps []string
	for _, d := range deps.Items {
		comps = append(comps, d.Labels[componentLabel])
	}
	sort.Strings(comps)
	logf("%d Deployments: %s", len(comps), strings.Join(comps, ", "))
	return t.settled(ctx, tagInstall)
}

// settled waits until every Deployment runs its HPA's minReplicas (or its replicas) of
// ready pods of the given tag on kwok nodes, is Available, and its PDB counts the pods.
func (t *tester) settled(ctx context.Context, tag string) error {
	return poll(ctx, 3*time.Minute, "Deployments Available on kwok nodes with tag "+tag, func(ctx context.Context) (bool, string, error) {
		deps, err := t.kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		if len(deps.Items) == 0 {
			return false, "no Deployments", nil
		}
		hpas, err := t.kube.AutoscalingV2().HorizontalPodAutoscalers(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		minReplicas := map[string]int32{}
		for _, h := range hpas.Items {
			if h.Spec.MinReplicas != nil {
				minReplicas[h.Spec.ScaleTargetRef.Name] = *h.Spec.MinReplicas
			}
		}
		pods, err := t.kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		pdbs, err := t.kube.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		var summary []string
		for _, d := range deps.Items {
			want := int32(1)
			if d.Spec.Replicas != nil {
				want = *d.Spec.Replicas
			}
			if m, ok := minReplicas[d.Name]; ok {
				if want < m {
					return false, fmt.Sprintf("%s: %d replicas, its HPA's minimum is %d", d.Name, want, m), nil
				}
			}
			if !deploymentAvailable(&d) || d.Status.ObservedGeneration < d.Generation ||
				d.Status.UpdatedReplicas != want || d.Status.AvailableReplicas != want || d.Status.Replicas != want {
				return false, fmt.Sprintf("%s: %d/%d updated, %d available, %d total", d.Name, d.Status.UpdatedReplicas, want, d.Status.AvailableReplicas, d.Status.Replicas), nil
			}
			for _, c := range d.Spec.Template.Spec.Containers {
				if !strings.HasSuffix(c.Image, ":"+tag) {
					return false, fmt.Sprintf("%s: container %s runs %s, want tag %s", d.Name, c.Name, c.Image, tag), nil
				}
			}
			sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
			if err != nil {
				return false, "", err
			}
			ready := 0
			for _, p := range pods.Items {
				if !sel.Matches(labels.Set(p.Labels)) || p.DeletionTimestamp != nil {
					continue
				}
				if !slices.Contains(t.nodes_, p.Spec.NodeName) {
					return false, fmt.Sprintf("pod %s is on node %q, not a kwok node", p.Name, p.Spec.NodeName), nil
				}
				if podReady(&p) {
					ready++
				}
			}
			if int32(ready) != want {
				return false, fmt.Sprintf("%s: %d ready pods, want %d", d.Name, ready, want), nil
			}
			for _, pdb := range pdbs.Items {
				if pdb.Name == d.Name && (pdb.Status.ObservedGeneration < pdb.Generation || pdb.Status.CurrentHealthy != want) {
					return false, fmt.Sprintf("PDB %s: %d healthy, want %d", pdb.Name, pdb.Status.CurrentHealthy, want), nil
				}
			}
			summary = append(summary, fmt.Sprintf("%s=%d", d.Labels[componentLabel], want))
		}
		sort.Strings(summary)
		logf("all Deployments Available with tag %s on kwok nodes: %s", tag, strings.Join(summary, " "))
		return true, "", nil
	})
}

// insecureTLS trusts the API server's self-signed certificate: the test created it a
// moment ago on loopback.
func insecureTLS() *tls.Config { return &tls.Config{InsecureSkipVerify: true} } //nolint:gosec

func deploymentAvailable(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// budget is how many ready pods each component must keep during a rollout: its replicas
// minus what its PodDisruptionBudget lets go.
func (t *tester) budget(ctx context.Context) (map[string]int, error) {
	deps, err := t.kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pdbs, err := t.kube.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	byName := map[string]policyv1.PodDisruptionBudget{}
	for _, p := range pdbs.Items {
		byName[p.Name] = p
	}
	out := map[string]int{}
	for _, d := range deps.Items {
		want := int(*d.Spec.Replicas)
		floor := want
		if pdb, ok := byName[d.Name]; ok && pdb.Spec.MaxUnavailable != nil {
			mu, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, want, true)
			if err != nil {
				return nil, err
			}
			floor = want - mu
		}
		out[d.Labels[componentLabel]] = floor
	}
	return out, nil
}

// watchReady counts, at every pod event, the ready and not terminating pods of each
// component, and keeps the minimum seen.
type readyWatch struct {
	mu      sync.Mutex
	pods    map[string]*corev1.Pod
	minimum map[string]int
	events  int
}

func (w *readyWatch) observe(p *corev1.Pod, deleted bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p != nil {
		w.events++
		if deleted {
			delete(w.pods, p.Name)
		} else {
			w.pods[p.Name] = p
		}
	}
	counts := map[string]int{}
	for _, q := range w.pods {
		c := q.Labels[componentLabel]
		if _, ok := counts[c]; !ok {
			counts[c] = 0
		}
		if q.DeletionTimestamp == nil && podReady(q) {
			counts[c]++
		}
	}
	for c, n := range counts {
		if m, ok := w.minimum[c]; !ok || n < m {
			w.minimum[c] = n
		}
	}
}

func (t *tester) upgrade(ctx context.Context) error {
	floor, err := t.budget(ctx)
	if err != nil {
		return err
	}
	list, err := t.kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	w := &readyWatch{pods: map[string]*corev1.Pod{}, minimum: map[string]int{}}
	// The listed pods are the starting state: load them all before counting, or the first
	// pod of each component would look like a component with one ready pod.
	for i := range list.Items {
		w.pods[list.Items[i].Name] = &list.Items[i]
	}
	w.observe(nil, false)
	wctx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan error, 1)
	wi, err := t.kube.CoreV1().Pods(namespace).Watch(wctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		stopWatch()
		return err
	}
	go func() {
		defer wi.Stop()
		for {
			select {
			case <-wctx.Done():
				watchDone <- nil
				return
			case ev, ok := <-wi.ResultChan():
				if !ok {
					watchDone <- errors.New("the pod watch ended early")
					return
				}
				if ev.Type == watch.Error {
					watchDone <- fmt.Errorf("pod watch: %v", apierrors.FromObject(ev.Object))
					return
				}
				if p, ok := ev.Object.(*corev1.Pod); ok {
					w.observe(p, ev.Type == watch.Deleted)
				}
			}
		}
	}()
	_, herr := t.helm(ctx, "upgrade", release, t.o.chart, "--namespace", namespace,
		"-f", t.o.values, "--set", "componentDefaults.image.tag="+tagUpgrade, "--wait", "--timeout", "5m")
	if herr == nil {
		herr = t.settled(ctx, tagUpgrade)
	}
	stopWatch()
	if err := <-watchDone; err != nil && herr == nil {
		herr = err
	}
	if herr != nil {
		return herr
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var lines []string
	for c, f := range floor {
		m := w.minimum[c]
		if m < f {
			return fmt.Errorf("%s: only %d ready pods during the rollout, its PDB allows no fewer than %d", c, m, f)
		}
		lines = append(lines, fmt.Sprintf("%s>=%d(min %d)", c, f, m))
	}
	sort.Strings(lines)
	logf("rolled out within the PDBs over %d pod events: %s", w.events, strings.Join(lines, " "))
	return nil
}

func (t *tester) rollback(ctx context.Context) error {
	if _, err := t.helm(ctx, "rollback", release, "1", "--namespace", namespace, "--wait", "--timeout", "5m"); err != nil {
		return err
	}
	if err := t.settled(ctx, tagInstall); err != nil {
		return err
	}
	hist, err := t.helm(ctx, "history", release, "--namespace", namespace, "--max", "10")
	if err != nil {
		return err
	}
	if !strings.Contains(hist, "Rollback to 1") {
		return fmt.Errorf("helm history shows no rollback:\n%s", hist)
	}
	fmt.Print(hist)
	return nil
}

func (t *tester) uninstall(ctx context.Context) error {
	if _, err := t.helm(ctx, "uninstall", release, "--namespace", namespace, "--wait", "--timeout", "2m"); err != nil {
		return err
	}
	return poll(ctx, 60*time.Second, "Deployments gone", func(ctx context.Context) (bool, string, error) {
		deps, err := t.kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		return len(deps.Items) == 0, fmt.Sprintf("%d left", len(deps.Items)), nil
	})
}

func countString(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
