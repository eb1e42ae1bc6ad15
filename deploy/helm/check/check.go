// Package check validates a rendering of the Hangar Helm chart offline: it decodes every
// document strictly into the Kubernetes API types (an unknown or misspelled field is an
// error) and checks the policy the chart promises (pinned images, resources, probes,
// hardened security contexts, selectors and references that line up, and an Ingress
// that serves exactly the routes of routes.yaml whose component is rendered).
//
// scripts/helm-check.sh renders the chart and runs this package's tests with
// HANGAR_RENDERED pointing at the rendered files.
package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// ComponentLabel names the chart component a pod belongs to; routes.yaml's service field
// refers to it.
const ComponentLabel = "app.kubernetes.io/component"

// Rendering is a decoded chart rendering, by kind.
type Rendering struct {
	Deployments     []*appsv1.Deployment
	Jobs            []*batchv1.Job
	Services        []*corev1.Service
	ServiceAccounts []*corev1.ServiceAccount
	HPAs            []*autoscalingv2.HorizontalPodAutoscaler
	PDBs            []*policyv1.PodDisruptionBudget
	NetworkPolicies []*networkingv1.NetworkPolicy
	Ingresses       []*networkingv1.Ingress
	ServiceMonitors []*ServiceMonitor
	PrometheusRules []*PrometheusRule
	ConfigMaps      []*corev1.ConfigMap
}

// ServiceMonitor is the part of monitoring.coreos.com/v1 ServiceMonitor the chart renders;
// decoding is strict, so a field outside it is reported (and then added here on purpose).
type ServiceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector          metav1.LabelSelector `json:"selector"`
		NamespaceSelector struct {
			Any        bool     `json:"any,omitempty"`
			MatchNames []string `json:"matchNames,omitempty"`
		} `json:"namespaceSelector"`
		Endpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path"`
			Scheme        string `json:"scheme"`
			Interval      string `json:"interval"`
			ScrapeTimeout string `json:"scrapeTimeout"`
			HonorLabels   bool   `json:"honorLabels"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// PrometheusRule is the part of monitoring.coreos.com/v1 PrometheusRule the chart renders.
type PrometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Record      string            `json:"record,omitempty"`
				Alert       string            `json:"alert,omitempty"`
				Expr        string            `json:"expr"`
				For         string            `json:"for,omitempty"`
				Labels      map[string]string `json:"labels,omitempty"`
				Annotations map[string]string `json:"annotations,omitempty"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// Route is one entry of routes.yaml.
type Route struct {
	Path     string `json:"path"`
	PathType string `json:"pathType"`
	Service  string `json:"service"`
	Replay   string `json:"replay,omitempty"` // the dev edge's (internal/edge), not the Ingress's
}

// ParseRoutes reads routes.yaml strictly.
func ParseRoutes(b []byte) ([]Route, error) {
	var f struct {
		Routes []Route `json:"routes"`
	}
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		return nil, fmt.Errorf("routes.yaml: %w", err)
	}
	if len(f.Routes) == 0 {
		return nil, errors.New("routes.yaml: no routes")
	}
	return f.Routes, nil
}

// Decode splits a multi-document YAML stream and decodes every document strictly into
// its API type. Unknown kinds, unknown fields and duplicate keys are errors.
func Decode(r io.Reader) (*Rendering, error) {
	out := &Rendering{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var errs []error
	for i := 1; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		if err := out.add(doc); err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", i, err))
		}
	}
	return out, errors.Join(errs...)
}

func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func (r *Rendering) add(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	gvk := tm.APIVersion + " " + tm.Kind
	var err error
	switch gvk {
	case "apps/v1 Deployment":
		r.Deployments, err = decodeInto(doc, r.Deployments)
	case "batch/v1 Job":
		r.Jobs, err = decodeInto(doc, r.Jobs)
	case "v1 Service":
		r.Services, err = decodeInto(doc, r.Services)
	case "v1 ServiceAccount":
		r.ServiceAccounts, err = decodeInto(doc, r.ServiceAccounts)
	case "autoscaling/v2 HorizontalPodAutoscaler":
		r.HPAs, err = decodeInto(doc, r.HPAs)
	case "policy/v1 PodDisruptionBudget":
		r.PDBs, err = decodeInto(doc, r.PDBs)
	case "networking.k8s.io/v1 NetworkPolicy":
		r.NetworkPolicies, err = decodeInto(doc, r.NetworkPolicies)
	case "networking.k8s.io/v1 Ingress":
		r.Ingresses, err = decodeInto(doc, r.Ingresses)
	case "monitoring.coreos.com/v1 ServiceMonitor":
		r.ServiceMonitors, err = decodeInto(doc, r.ServiceMonitors)
	case "monitoring.coreos.com/v1 PrometheusRule":
		r.PrometheusRules, err = decodeInto(doc, r.PrometheusRules)
	case "v1 ConfigMap":
		r.ConfigMaps, err = decodeInto(doc, r.ConfigMaps)
	default:
		return fmt.Errorf("unexpected kind %q", gvk)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", tm.Kind, err)
	}
	return nil
}

func decodeInto[T any](doc []byte, list []*T) ([]*T, error) {
	v := new(T)
	if err := yaml.UnmarshalStrict(doc, v); err != nil {
		return list, err
	}
	return append(list, v), nil
}

// Check returns every policy violation of the rendering; routes is routes.yaml.
func Check(r *Rendering, routes []Route) []error {
	c := checker{r: r}
	c.names()
	for _, d := range r.Deployments {
		c.deployment(d)
	}
	c.jobs()
	for _, s := range r.Services {
		c.service(s)
	}
	for _, sa := range r.ServiceAccounts {
		if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
			c.errorf("ServiceAccount %s: automountServiceAccountToken must be false", sa.Name)
		}
	}
	for _, h := range r.HPAs {
		c.hpa(h)
	}
	for _, p := range r.PDBs {
		c.selectsOneDeployment("PodDisruptionBudget "+p.Name, p.Spec.Selector)
	}
	for _, np := range r.NetworkPolicies {
		c.networkPolicy(np)
	}
	// The routes may be split over several Ingresses (pages and APIs get different
	// response headers): per host, their paths together are the routes, each once.
	byHost := map[string]map[ingressPath]string{}
	fieldsHosts := map[string]bool{}
	for _, ing := range r.Ingresses {
		if ing.Labels[ComponentLabel] == FieldsComponent {
			fieldsHosts[c.fieldsIngress(ing)] = true
			continue
		}
		c.ingress(ing, routes, byHost)
	}
	for host := range byHost {
		if fieldsHosts[host] {
			c.errorf("Ingress host %q serves the store's routes and the card fields: the fields need an origin of their own", host)
		}
	}
	want := c.expectedRoutes(routes)
	for host, got := range byHost {
		for ip := range want {
			if got[ip] == "" {
				c.errorf("Ingress host %q: route %s %s -> %s from routes.yaml is missing", host, ip.pathType, ip.path, ip.service)
			}
		}
	}
	if len(r.Ingresses) == 0 && len(want) > 0 {
		c.errorf("no Ingress, but routes.yaml has routes for rendered components")
	}
	for _, sm := range r.ServiceMonitors {
		c.serviceMonitor(sm)
	}
	for _, pr := range r.PrometheusRules {
		c.prometheusRule(pr)
	}
	for _, cm := range r.ConfigMaps {
		c.configMap(cm)
	}
	return c.errs
}

type checker struct {
	r    *Rendering
	errs []error
}

func (c *checker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

func (c *checker) names() {
	seen := map[string]bool{}
	note := func(kind, name string) {
		if name == "" {
			c.errorf("%s without a name", kind)
		}
		if seen[kind+"/"+name] {
			c.errorf("%s %s rendered twice", kind, name)
		}
		seen[kind+"/"+name] = true
	}
	for _, o := range c.r.Deployments {
		note("Deployment", o.Name)
	}
	for _, o := range c.r.Services {
		note("Service", o.Name)
	}
	for _, o := range c.r.Jobs {
		note("Job", o.Name)
	}
	for _, o := range c.r.ServiceAccounts {
		note("ServiceAccount", o.Name)
	}
	for _, o := range c.r.HPAs {
		note("HorizontalPodAutoscaler", o.Name)
	}
	for _, o := range c.r.PDBs {
		note("PodDisruptionBudget", o.Name)
	}
	for _, o := range c.r.NetworkPolicies {
		note("NetworkPolicy", o.Name)
	}
	for _, o := range c.r.Ingresses {
		note("Ingress", o.Name)
	}
	for _, o := range c.r.ServiceMonitors {
		note("ServiceMonitor", o.Name)
	}
	for _, o := range c.r.PrometheusRules {
		note("PrometheusRule", o.Name)
	}
	for _, o := range c.r.ConfigMaps {
		note("ConfigMap", o.Name)
	}
}

// pinnedImage: a tag other than latest, or a sha256 digest.
var (
	digestRE = regexp.MustCompile(`@sha256:[a-f0-9]{64}$`)
	tagRE    = regexp.MustCompile(`:([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$`)
)

func pinned(image string) bool {
	if digestRE.MatchString(image) {
		return true
	}
	last := image[strings.LastIndex(image, "/")+1:]
	m := tagRE.FindStringSubmatch(last)
	return m != nil && m[1] != "latest"
}

func (c *checker) deployment(d *appsv1.Deployment) {
	where := "Deployment " + d.Name
	pod := d.Spec.Template.Spec
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	switch {
	case err != nil || d.Spec.Selector == nil || sel.Empty():
		c.errorf("%s: invalid or empty selector", where)
	case !sel.Matches(labels.Set(d.Spec.Template.Labels)):
		c.errorf("%s: selector does not match the pod template labels", where)
	}
	if d.Spec.Template.Labels[ComponentLabel] == "" {
		c.errorf("%s: pod template has no %s label", where, ComponentLabel)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		c.errorf("%s: automountServiceAccountToken must be false", where)
	}
	if !slices.ContainsFunc(c.r.ServiceAccounts, func(sa *corev1.ServiceAccount) bool { return sa.Name == pod.ServiceAccountName }) {
		c.errorf("%s: serviceAccountName %q is not rendered", where, pod.ServiceAccountName)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		c.errorf("%s: pod securityContext.runAsNonRoot must be true", where)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		c.errorf("%s: pod seccompProfile must be RuntimeDefault", where)
	}
	for _, tsc := range pod.TopologySpreadConstraints {
		s, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
		if err != nil || s.Empty() || !s.Matches(labels.Set(d.Spec.Template.Labels)) {
			c.errorf("%s: topology spread on %s does not select its own pods", where, tsc.TopologyKey)
		}
	}
	if len(pod.Containers) == 0 {
		c.errorf("%s: no containers", where)
	}
	tmpVolumes := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.EmptyDir != nil {
			tmpVolumes[v.Name] = true
		}
	}
	for _, ctr := range pod.Containers {
		cw := fmt.Sprintf("%s container %s", where, ctr.Name)
		if !pinned(ctr.Image) {
			c.errorf("%s: image %q is not pinned by tag (other than latest) or digest", cw, ctr.Image)
		}
		for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := ctr.Resources.Requests[res]; !ok || q.IsZero() {
				c.errorf("%s: resources.requests.%s is not set", cw, res)
			}
		}
		if q, ok := ctr.Resources.Limits[corev1.ResourceMemory]; !ok || q.IsZero() {
			c.errorf("%s: resources.limits.memory is not set", cw)
		}
		for res, req := range ctr.Resources.Requests {
			if lim, ok := ctr.Resources.Limits[res]; ok && lim.Cmp(req) < 0 {
				c.errorf("%s: resources.limits.%s is below the request", cw, res)
			}
		}
		ports := map[string]int32{}
		for _, p := range ctr.Ports {
			ports[p.Name] = p.ContainerPort
		}
		for name, p := range map[string]*corev1.Probe{"startupProbe": ctr.StartupProbe, "livenessProbe": ctr.LivenessProbe, "readinessProbe": ctr.ReadinessProbe} {
			if p == nil {
				c.errorf("%s: %s is not set", cw, name)
				continue
			}
			if p.HTTPGet == nil {
				c.errorf("%s: %s is not an httpGet probe", cw, name)
				continue
			}
			if port := p.HTTPGet.Port; port.Type == intstr.String {
				if _, ok := ports[port.StrVal]; !ok {
					c.errorf("%s: %s uses port %q that the container does not declare", cw, name, port.StrVal)
				}
			}
		}
		if ctr.ReadinessProbe != nil && ctr.ReadinessProbe.HTTPGet != nil && ctr.ReadinessProbe.HTTPGet.Path != "/readyz" {
			c.errorf("%s: readinessProbe must GET /readyz", cw)
		}
		if ctr.LivenessProbe != nil && ctr.LivenessProbe.HTTPGet != nil && ctr.LivenessProbe.HTTPGet.Path != "/healthz" {
			c.errorf("%s: livenessProbe must GET /healthz", cw)
		}
		sc := ctr.SecurityContext
		switch {
		case sc == nil:
			c.errorf("%s: no securityContext", cw)
		default:
			if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
				c.errorf("%s: securityContext.runAsNonRoot must be true", cw)
			}
			uid := sc.RunAsUser
			if uid == nil && psc != nil {
				uid = psc.RunAsUser
			}
			if uid == nil || *uid != 65532 {
				c.errorf("%s: runAsUser must be 65532", cw)
			}
			if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				c.errorf("%s: readOnlyRootFilesystem must be true", cw)
			}
			if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				c.errorf("%s: allowPrivilegeEscalation must be false", cw)
			}
			if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
				c.errorf("%s: capabilities must drop ALL and add none", cw)
			}
			if sc.Privileged != nil && *sc.Privileged {
				c.errorf("%s: privileged", cw)
			}
		}
		if !slices.ContainsFunc(ctr.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/tmp" && tmpVolumes[m.Name] }) {
			c.errorf("%s: no emptyDir mounted at /tmp", cw)
		}
		c.shutdown(cw, pod, ctr)
	}
}

// shutdown checks that the grace period covers the pre-stop pause plus SHUTDOWN_TIMEOUT.
func (c *checker) shutdown(cw string, pod corev1.PodSpec, ctr corev1.Container) {
	need := time.Duration(0)
	for _, e := range ctr.Env {
		if e.Name == "SHUTDOWN_TIMEOUT" {
			d, err := time.ParseDuration(e.Value)
			if err != nil {
				c.errorf("%s: SHUTDOWN_TIMEOUT %q: %v", cw, e.Value, err)
				return
			}
			need += d
		}
	}
	if ctr.Lifecycle != nil && ctr.Lifecycle.PreStop != nil && ctr.Lifecycle.PreStop.Sleep != nil {
		need += time.Duration(ctr.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	grace := 30 * time.Second // the API default
	if pod.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	}
	if grace <= need {
		c.errorf("%s: terminationGracePeriodSeconds (%s) must exceed pre-stop sleep + SHUTDOWN_TIMEOUT (%s)", cw, grace, need)
	}
}

// deploymentsSelectedBy returns the Deployments whose pods sel selects.
func (c *checker) deploymentsSelectedBy(sel labels.Selector) []*appsv1.Deployment {
	var out []*appsv1.Deployment
	for _, d := range c.r.Deployments {
		if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			out = append(out, d)
		}
	}
	return out
}

func (c *checker) selectsOneDeployment(where string, ls *metav1.LabelSelector) *appsv1.Deployment {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || ls == nil || sel.Empty() {
		c.errorf("%s: invalid or empty selector", where)
		return nil
	}
	ds := c.deploymentsSelectedBy(sel)
	if len(ds) != 1 {
		c.errorf("%s: selector %s selects the pods of %d Deployments, want 1", where, sel, len(ds))
		return nil
	}
	return ds[0]
}

func containerPorts(d *appsv1.Deployment) map[string]int32 {
	ports := map[string]int32{}
	for _, ctr := range d.Spec.Template.Spec.Containers {
		for _, p := range ctr.Ports {
			ports[p.Name] = p.ContainerPort
		}
	}
	return ports
}

func (c *checker) service(s *corev1.Service) {
	where := "Service " + s.Name
	d := c.selectsOneDeployment(where, &metav1.LabelSelector{MatchLabels: s.Spec.Selector})
	if d == nil {
		return
	}
	ports := containerPorts(d)
	var names []string
	for _, p := range s.Spec.Ports {
		names = append(names, p.Name)
		switch p.TargetPort.Type {
		case intstr.String:
			if _, ok := ports[p.TargetPort.StrVal]; !ok {
				c.errorf("%s: port %s targets %q, which Deployment %s does not declare", where, p.Name, p.TargetPort.StrVal, d.Name)
			}
		default:
			c.errorf("%s: port %s should target a named container port", where, p.Name)
		}
	}
	if !slices.Contains(names, "http") {
		c.errorf("%s: no port named http", where)
	}
}

func (c *checker) hpa(h *autoscalingv2.HorizontalPodAutoscaler) {
	where := "HorizontalPodAutoscaler " + h.Name
	ref := h.Spec.ScaleTargetRef
	var target *appsv1.Deployment
	for _, d := range c.r.Deployments {
		if ref.APIVersion == "apps/v1" && ref.Kind == "Deployment" && d.Name == ref.Name {
			target = d
		}
	}
	if target == nil {
		c.errorf("%s: scaleTargetRef %s %s/%s is not rendered", where, ref.APIVersion, ref.Kind, ref.Name)
		return
	}
	if target.Spec.Replicas != nil {
		c.errorf("%s: Deployment %s sets replicas, which fights the autoscaler", where, target.Name)
	}
	if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
		c.errorf("%s: needs 1 <= minReplicas <= maxReplicas", where)
	}
	cpu := slices.ContainsFunc(h.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
		return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
			m.Resource.Target.Type == autoscalingv2.UtilizationMetricType && m.Resource.Target.AverageUtilization != nil
	})
	if !cpu {
		c.errorf("%s: no CPU utilisation target", where)
	}
	for _, ctr := range target.Spec.Template.Spec.Containers {
		if _, ok := ctr.Resources.Requests[corev1.ResourceCPU]; !ok {
			c.errorf("%s: container %s has no CPU request to compute utilisation from", where, ctr.Name)
		}
	}
}

func (c *checker) networkPolicy(np *networkingv1.NetworkPolicy) {
	where := "NetworkPolicy " + np.Name
	d := c.selectsOneDeployment(where, &np.Spec.PodSelector)
	if d == nil {
		return
	}
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
		c.errorf("%s: policyTypes must list Ingress and Egress", where)
	}
	ports := containerPorts(d)
	allowed := map[string]bool{}
	for _, rule := range np.Spec.Ingress {
		if len(rule.From) == 0 {
			c.errorf("%s: an ingress rule without from admits every source", where)
		}
		for _, p := range rule.Ports {
			if p.Port == nil {
				c.errorf("%s: an ingress rule without a port", where)
				continue
			}
			if p.Port.Type == intstr.String {
				if _, ok := ports[p.Port.StrVal]; !ok {
					c.errorf("%s: ingress port %q is not a port of Deployment %s", where, p.Port.StrVal, d.Name)
				}
				allowed[p.Port.StrVal] = true
			}
		}
	}
	for name := range ports {
		if !allowed[name] {
			c.errorf("%s: container port %s of Deployment %s is not reachable through any ingress rule", where, name, d.Name)
		}
	}
	dns := false
	for _, rule := range np.Spec.Egress {
		if len(rule.Ports) == 0 {
			c.errorf("%s: an egress rule without ports allows every port", where)
		}
		for _, p := range rule.Ports {
			if p.Port != nil && p.Port.IntValue() == 53 {
				dns = true
			}
		}
	}
	if !dns {
		c.errorf("%s: no DNS egress", where)
	}
}

// componentService maps each rendered component (pod label) to the Service selecting it.
func (c *checker) componentServices() map[string]*corev1.Service {
	out := map[string]*corev1.Service{}
	for _, s := range c.r.Services {
		sel := labels.SelectorFromSet(s.Spec.Selector)
		for _, d := range c.deploymentsSelectedBy(sel) {
			out[d.Spec.Template.Labels[ComponentLabel]] = s
		}
	}
	return out
}

type ingressPath struct{ path, pathType, service string }

func (c *checker) expectedRoutes(routes []Route) map[ingressPath]bool {
	svcs := c.componentServices()
	want := map[ingressPath]bool{}
	for _, r := range routes {
		if s, ok := svcs[r.Service]; ok {
			want[ingressPath{r.Path, r.PathType, s.Name}] = true
		}
	}
	return want
}

// FieldsComponent labels the Ingress of the card-fields origin (values payments.fieldsHost):
// payments' hosted card fields and tokenize on a host of their own (docs/pci-saq-a.md).
const FieldsComponent = "card-fields"

// fieldsIngress checks the card-fields origin's Ingress: one named host, every path of it
// (Prefix /) to payments' fields port and nothing else; none of the store's routes.
func (c *checker) fieldsIngress(ing *networkingv1.Ingress) string {
	where := "Ingress " + ing.Name
	if len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].Host == "" || ing.Spec.Rules[0].HTTP == nil || len(ing.Spec.Rules[0].HTTP.Paths) != 1 {
		c.errorf("%s: the card-fields origin is one named host with one path", where)
		return ""
	}
	rule := ing.Spec.Rules[0]
	p := rule.HTTP.Paths[0]
	if p.Path != "/" || p.PathType == nil || *p.PathType != networkingv1.PathTypePrefix || p.Backend.Service == nil || p.Backend.Service.Port.Name != "fields" {
		c.errorf("%s: the card-fields origin must route Prefix / to a Service port named fields", where)
		return rule.Host
	}
	for _, svc := range c.r.Services {
		if svc.Name != p.Backend.Service.Name {
			continue
		}
		if svc.Labels[ComponentLabel] != "payments" {
			c.errorf("%s: the card-fields origin routes to %s, not payments", where, svc.Name)
		}
		if !slices.ContainsFunc(svc.Spec.Ports, func(sp corev1.ServicePort) bool { return sp.Name == "fields" }) {
			c.errorf("%s: Service %s has no port fields", where, svc.Name)
		}
		return rule.Host
	}
	c.errorf("%s: backend Service %s is not rendered", where, p.Backend.Service.Name)
	return rule.Host
}

func (c *checker) ingress(ing *networkingv1.Ingress, routes []Route, byHost map[string]map[ingressPath]string) {
	where := "Ingress " + ing.Name
	services := map[string]*corev1.Service{}
	for _, s := range c.r.Services {
		services[s.Name] = s
	}
	want := c.expectedRoutes(routes)
	if len(ing.Spec.Rules) == 0 {
		c.errorf("%s: no rules", where)
	}
	for _, tls := range ing.Spec.TLS {
		if tls.SecretName == "" {
			c.errorf("%s: tls entry without secretName", where)
		}
	}
	for _, rule := range ing.Spec.Rules {
		rw := fmt.Sprintf("%s host %q", where, rule.Host)
		if rule.HTTP == nil {
			c.errorf("%s: no http paths", rw)
			continue
		}
		got := byHost[rule.Host]
		if got == nil {
			got = map[ingressPath]string{}
			byHost[rule.Host] = got
		}
		for _, p := range rule.HTTP.Paths {
			pt := ""
			if p.PathType != nil {
				pt = string(*p.PathType)
			}
			b := p.Backend.Service
			if b == nil {
				c.errorf("%s path %s: backend is not a Service", rw, p.Path)
				continue
			}
			svc, ok := services[b.Name]
			if !ok {
				c.errorf("%s path %s: backend Service %s is not rendered", rw, p.Path, b.Name)
				continue
			}
			if !slices.ContainsFunc(svc.Spec.Ports, func(sp corev1.ServicePort) bool {
				return (b.Port.Name != "" && sp.Name == b.Port.Name) || (b.Port.Number != 0 && sp.Port == b.Port.Number)
			}) {
				c.errorf("%s path %s: Service %s has no port %s%d", rw, p.Path, b.Name, b.Port.Name, b.Port.Number)
			}
			if b.Port.Name != "http" {
				c.errorf("%s path %s: backend port must be the Service port named http", rw, p.Path)
			}
			ip := ingressPath{p.Path, pt, b.Name}
			if other := got[ip]; other != "" {
				c.errorf("%s: path %s %s listed twice (also in Ingress %s)", rw, pt, p.Path, other)
			}
			got[ip] = ing.Name
			if !want[ip] {
				c.errorf("%s: path %s %s -> %s is not a route of routes.yaml for a rendered component", rw, pt, p.Path, b.Name)
			}
		}
	}
}

func (c *checker) serviceMonitor(sm *ServiceMonitor) {
	where := "ServiceMonitor " + sm.Name
	sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil || sel.Empty() {
		c.errorf("%s: invalid or empty selector", where)
		return
	}
	var matched []*corev1.Service
	for _, s := range c.r.Services {
		if sel.Matches(labels.Set(s.Labels)) {
			matched = append(matched, s)
		}
	}
	if len(matched) != 1 {
		c.errorf("%s: selects %d Services, want 1", where, len(matched))
		return
	}
	if len(sm.Spec.Endpoints) == 0 {
		c.errorf("%s: no endpoints", where)
	}
	for _, e := range sm.Spec.Endpoints {
		if !slices.ContainsFunc(matched[0].Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == e.Port }) {
			c.errorf("%s: Service %s has no port %q", where, matched[0].Name, e.Port)
		}
		if e.Path != "/metrics" {
			c.errorf("%s: endpoint path %q, want /metrics", where, e.Path)
		}
	}
}

func (c *checker) prometheusRule(pr *PrometheusRule) {
	where := "PrometheusRule " + pr.Name
	if len(pr.Spec.Groups) == 0 {
		c.errorf("%s: no groups", where)
	}
	alerts := 0
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			if (r.Record == "") == (r.Alert == "") {
				c.errorf("%s group %s: a rule needs exactly one of record and alert", where, g.Name)
			}
			if strings.TrimSpace(r.Expr) == "" {
				c.errorf("%s group %s: rule %s%s has no expr", where, g.Name, r.Record, r.Alert)
			}
			if strings.Count(r.Expr, "(") != strings.Count(r.Expr, ")") || strings.Count(r.Expr, "{") != strings.Count(r.Expr, "}") {
				c.errorf("%s group %s: rule %s%s has unbalanced brackets", where, g.Name, r.Record, r.Alert)
			}
			if r.Alert != "" {
				alerts++
				if r.Labels["severity"] == "" {
					c.errorf("%s: alert %s has no severity label", where, r.Alert)
				}
				if r.Annotations["summary"] == "" {
					c.errorf("%s: alert %s has no summary", where, r.Alert)
				}
				if !runbookRE.MatchString(r.Annotations["runbook_url"]) {
					c.errorf("%s: alert %s has no runbook_url to a page of docs/runbooks/ (got %q)", where, r.Alert, r.Annotations["runbook_url"])
				}
			}
		}
	}
	if alerts == 0 {
		c.errorf("%s: no alerts", where)
	}
}

// runbookRE: every alert links a runbook page of the repository's docs/runbooks/.
var runbookRE = regexp.MustCompile(`^https?://\S+/docs/runbooks/[a-z0-9-]+\.md(#[a-z0-9-]+)?$`)

// DashboardLabel marks the ConfigMaps Grafana's sidecar loads as dashboards.
const DashboardLabel = "grafana_dashboard"

// configMap checks the dashboards: every data entry is a Grafana dashboard (JSON with a
// uid, a title and panels whose queries are set), with no placeholder left unfilled.
func (c *checker) configMap(cm *corev1.ConfigMap) {
	where := "ConfigMap " + cm.Name
	if cm.Labels[ComponentLabel] == HeadersComponent {
		c.headersConfigMap(cm)
		return
	}
	if _, ok := cm.Labels[DashboardLabel]; !ok {
		c.errorf("%s: not labelled %s or %s=%s (the chart renders ConfigMaps only for dashboards and Ingress headers)",
			where, DashboardLabel, ComponentLabel, HeadersComponent)
		return
	}
	if len(cm.Data) == 0 {
		c.errorf("%s: no dashboard in data", where)
	}
	for key, body := range cm.Data {
		if !strings.HasSuffix(key, ".json") {
			c.errorf("%s: key %s is not a .json file", where, key)
		}
		if strings.Contains(body, "__") && placeholderRE.MatchString(body) {
			c.errorf("%s %s: unfilled placeholder %s", where, key, placeholderRE.FindString(body))
		}
		var d struct {
			UID    string `json:"uid"`
			Title  string `json:"title"`
			Panels []struct {
				Type    string `json:"type"`
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			c.errorf("%s %s: not JSON: %v", where, key, err)
			continue
		}
		if d.UID == "" || d.Title == "" || len(d.UID) > 40 {
			c.errorf("%s %s: a dashboard needs a title and a uid of at most 40 characters", where, key)
		}
		graphs := 0
		for _, p := range d.Panels {
			if p.Type == "row" {
				continue
			}
			graphs++
			if len(p.Targets) == 0 {
				c.errorf("%s %s: panel %q has no query", where, key, p.Title)
			}
			for _, t := range p.Targets {
				if strings.TrimSpace(t.Expr) == "" || strings.Count(t.Expr, "(") != strings.Count(t.Expr, ")") {
					c.errorf("%s %s: panel %q has an empty or unbalanced query %q", where, key, p.Title, t.Expr)
				}
			}
		}
		if graphs == 0 {
			c.errorf("%s %s: no panels", where, key)
		}
	}
}

var placeholderRE = regexp.MustCompile(`__[A-Z]+__`)

// jobs checks the once-per-release Jobs (migrations, topics): Helm hooks that run before
// the release's pods change, bounded in time, as locked down as the Deployments; and a
// Deployment that does not migrate (DB_MIGRATE=false) has its migrate Job, and one that
// has a migrate Job does not migrate itself.
func (c *checker) jobs() {
	migrateJobs := map[string]bool{}
	for _, j := range c.r.Jobs {
		where := "Job " + j.Name
		hooks := strings.Split(j.Annotations["helm.sh/hook"], ",")
		if !slices.Contains(hooks, "pre-install") || !slices.Contains(hooks, "pre-upgrade") {
			c.errorf("%s: must be a pre-install,pre-upgrade hook (got %q)", where, j.Annotations["helm.sh/hook"])
		}
		if j.Spec.ActiveDeadlineSeconds == nil || j.Spec.BackoffLimit == nil {
			c.errorf("%s: activeDeadlineSeconds and backoffLimit are required", where)
		}
		pod := j.Spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			c.errorf("%s: restartPolicy must be Never", where)
		}
		if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
			c.errorf("%s: automountServiceAccountToken must be false", where)
		}
		if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
			c.errorf("%s: pod securityContext.runAsNonRoot must be true", where)
		}
		for _, ctr := range pod.Containers {
			if ctr.Resources.Limits.Memory().IsZero() || ctr.Resources.Requests.Cpu().IsZero() {
				c.errorf("%s: container %s needs requests and limits", where, ctr.Name)
			}
			if sc := ctr.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				c.errorf("%s: container %s must have a read-only root filesystem and no privilege escalation", where, ctr.Name)
			}
			if slices.Equal(ctr.Args, []string{"migrate"}) {
				migrateJobs[strings.TrimSuffix(j.Name, "-migrate")] = true
			}
		}
	}
	for _, d := range c.r.Deployments {
		for _, ctr := range d.Spec.Template.Spec.Containers {
			for _, e := range ctr.Env {
				if e.Name != "DB_MIGRATE" {
					continue
				}
				if e.Value == "false" && !migrateJobs[d.Name] {
					c.errorf("Deployment %s: DB_MIGRATE=false but no %s-migrate Job applies its migrations", d.Name, d.Name)
				}
				if e.Value != "false" && migrateJobs[d.Name] {
					c.errorf("Deployment %s: has a migrate Job, so its replicas must not migrate (DB_MIGRATE=false)", d.Name)
				}
			}
		}
	}
}
