// Command hangar-images writes the OCI image of every deployable (`make images`): builds each
// static binary (CGO_ENABLED=0, -trimpath), assembles its image (package images) and writes
// <out>/<name>.oci.tar (an OCI image layout as a tar, the form `ctr images import` and
// `skopeo copy oci-archive:` take), <out>/<name>.digest and <out>/images.json (name, reference,
// digest of each). An archive whose digest is unchanged is not rewritten: the digest is the
// cache key, and equal inputs give equal digests.
package main

import (
	"archive/tar"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/hangar/hangar/deploy/images"
)

// Written is one image in images.json.
type Written struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
	Ref        string `json:"ref"`
	Digest     string `json:"digest"`
	Archive    string `json:"archive"`
}

func main() {
	root := flag.String("root", ".", "the repository root")
	out := flag.String("out", "bin/images", "where the archives are written")
	registry := flag.String("registry", "hangar.local", "the registry part of every image reference")
	only := flag.String("only", "", "comma-separated image names (default: every deployable)")
	label := flag.String("label", "", "an extra label key=value (a rebuilt image with another digest, for upgrade tests)")
	extra := flag.String("extra", "", "comma-separated name=binary: images of other static binaries (the test node's pause, broker, DNS, ingress), instead of the deployables")
	flag.Parse()
	var err error
	if *extra != "" {
		err = runExtra(*out, *registry, *extra)
	} else {
		err = run(*root, *out, *registry, *only, *label)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangar-images:", err)
		os.Exit(1)
	}
}

func run(root, out, registry, only, label string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	specs := images.Specs()
	if only != "" {
		want := map[string]bool{}
		for _, n := range strings.Split(only, ",") {
			want[n] = true
		}
		var sel []images.Spec
		for _, s := range specs {
			if want[s.Name] {
				sel = append(sel, s)
				delete(want, s.Name)
			}
		}
		if len(want) > 0 {
			return fmt.Errorf("-only names no deployable: %v", want)
		}
		specs = sel
	}
	binDir := filepath.Join(out, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	pkgs := []string{}
	for _, s := range specs {
		pkgs = append(pkgs, s.Package)
	}
	// One go build for all: the packages share most of their dependencies.
	cmd := exec.Command("go", append([]string{"build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", binDir + "/"}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	var written []Written
	for _, s := range specs {
		in := images.Inputs{
			Binary:   filepath.Join(binDir, filepath.Base(s.Package)),
			Site:     filepath.Join(root, "web/dist/site"),
			Routes:   filepath.Join(root, "web/apps/shell/src/routes.ts"),
			CACerts:  "/etc/ssl/certs/ca-certificates.crt",
			ZoneInfo: "/usr/share/zoneinfo",
		}
		if s.Site {
			if _, err := os.Stat(filepath.Join(in.Site, "index.html")); err != nil {
				return fmt.Errorf("%s: no web build at %s (scripts/web-build.sh makes it): %w", s.Name, in.Site, err)
			}
		}
		img, err := images.Build(s, in)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		if label != "" {
			k, v, ok := strings.Cut(label, "=")
			if !ok {
				return fmt.Errorf("-label %q: want key=value", label)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				return err
			}
			cf = cf.DeepCopy()
			cf.Config.Labels[k] = v
			if img, err = mutate.ConfigFile(img, cf); err != nil {
				return err
			}
		}
		w, err := write(img, s.Name, registry, out)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		written = append(written, w)
	}
	b, err := json.MarshalIndent(written, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "images.json"), append(b, '\n'), 0o644)
}

// runExtra writes the image of each name=binary: the binary as /hangar/<name>, its
// entrypoint, on the same base as the deployables. Their list goes to <out>/extra.json.
func runExtra(out, registry, extra string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var written []Written
	for _, kv := range strings.Split(extra, ",") {
		name, bin, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-extra %q: want name=binary", kv)
		}
		img, err := images.Build(images.Spec{Name: name, Binary: name, Title: name, Description: name + " (real-node test)"},
			images.Inputs{Binary: bin, CACerts: "/etc/ssl/certs/ca-certificates.crt", ZoneInfo: "/usr/share/zoneinfo"})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		w, err := write(img, name, registry, out)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		written = append(written, w)
	}
	b, err := json.MarshalIndent(written, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "extra.json"), append(b, '\n'), 0o644)
}

// write stores img as <out>/<name>.oci.tar unless the archive with its digest is there.
func write(img v1.Image, name, registry, out string) (Written, error) {
	digest, err := img.Digest()
	if err != nil {
		return Written{}, err
	}
	tag := digest.Hex[:16]
	w := Written{Name: name, Repository: registry + "/" + name, Tag: tag, Ref: registry + "/" + name + ":" + tag,
		Digest: digest.String(), Archive: filepath.Join(out, name+".oci.tar")}
	digestFile := filepath.Join(out, name+".digest")
	if prev, err := os.ReadFile(digestFile); err == nil && strings.TrimSpace(string(prev)) == w.Digest {
		if _, err := os.Stat(w.Archive); err == nil {
			fmt.Printf("hangar-images: %-14s %s (cached)\n", name, w.Digest)
			return w, nil
		}
	}
	dir, err := os.MkdirTemp(out, name+".layout-")
	if err != nil {
		return w, err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return w, err
	}
	// containerd names an imported image by io.containerd.image.name; the OCI ref name is
	// the tag others (skopeo, crane) read.
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          w.Ref,
		"org.opencontainers.image.ref.name": tag,
	})); err != nil {
		return w, err
	}
	if err := tarDir(dir, w.Archive+".tmp"); err != nil {
		return w, err
	}
	if err := os.Rename(w.Archive+".tmp", w.Archive); err != nil {
		return w, err
	}
	fmt.Printf("hangar-images: %-14s %s\n", name, w.Digest)
	return w, os.WriteFile(digestFile, []byte(w.Digest+"\n"), 0o644)
}

// tarDir writes the files under dir, in path order, as a tar at dst.
func tarDir(dir, dst string) error {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	for _, p := range names {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h, err := tar.FileInfoHeader(st, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if st.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if st.Mode().IsRegular() {
			src, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, src)
			src.Close()
			if err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}
