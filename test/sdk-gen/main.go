// Command sdk-gen generates the Go, Python and Node.js SDKs of a Pulumi package schema with
// Pulumi's own code generators (github.com/pulumi/pulumi/pkg/v3/codegen/...), offline: what
// `pulumi package gen-sdk` asks each language host to do, without the language hosts, which the Go
// module proxy does not serve (docs/design/pulumi-cli.md, "SDKs of the provider plugin").
//
//	sdk-gen --schema FILE --out DIR
//
// The schema is bound and validated first (schema.BindSpec, against Pulumi's metaschema): every
// diagnostic is printed to stderr, and any error stops the command with exit code 1 before anything
// is written. The SDKs go to DIR/go, DIR/python and DIR/nodejs (each folder emptied first). The
// schema may refer to no other package: there is no plugin to load one from.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// offlineLoader refuses every package other than the one being generated: this program loads no
// plugins and reaches no registry.
type offlineLoader struct{}

func (offlineLoader) refuse(name string) error {
	return fmt.Errorf("the schema refers to package %q, which sdk-gen cannot load (no plugins offline)", name)
}

func (l offlineLoader) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.refuse(pkg)
}

func (l offlineLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.refuse(d.Name)
}

func (l offlineLoader) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.refuse(pkg)
}

func (l offlineLoader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, l.refuse(d.Name)
}

// The tool names Pulumi's language hosts give the generators, so the files carry the same headers
// as those of `pulumi package gen-sdk`.
var generators = []struct {
	dir      string
	generate func(pkg *schema.Package) (map[string][]byte, error)
}{
	{"go", func(pkg *schema.Package) (map[string][]byte, error) {
		return gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	}},
	{"python", func(pkg *schema.Package) (map[string][]byte, error) {
		return python.GeneratePackage("pulumi-language-python", pkg, nil, offlineLoader{})
	}},
	{"nodejs", func(pkg *schema.Package) (map[string][]byte, error) {
		return nodejs.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, offlineLoader{})
	}},
}

func main() {
	schemaPath := flag.String("schema", "", "the package schema (JSON)")
	outDir := flag.String("out", "", "the folder to write DIR/go, DIR/python and DIR/nodejs into")
	flag.Parse()
	if *schemaPath == "" || *outDir == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: sdk-gen --schema FILE --out DIR")
		os.Exit(2)
	}
	if err := run(*schemaPath, *outDir); err != nil {
		fmt.Fprintf(os.Stderr, "sdk-gen: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, outDir string) error {
	text, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	// Validate once, printing every diagnostic (warnings too).
	if _, err := bind(text, true); err != nil {
		return err
	}
	for _, g := range generators {
		// Each generator reads and fills the package's language info: a fresh binding each, as each
		// language host of `pulumi package gen-sdk` binds the schema for itself.
		pkg, err := bind(text, false)
		if err != nil {
			return err
		}
		files, err := g.generate(pkg)
		if err != nil {
			return fmt.Errorf("generating the %s SDK: %w", g.dir, err)
		}
		if err := write(filepath.Join(outDir, g.dir), files); err != nil {
			return err
		}
	}
	return nil
}

func bind(text []byte, report bool) (*schema.Package, error) {
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, offlineLoader{}, schema.ValidationOptions{})
	if report {
		for _, d := range diags {
			fmt.Fprintln(os.Stderr, describe(d))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("binding the schema: %w", err)
	}
	if diags.HasErrors() {
		errs := 0
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				errs++
			}
		}
		return nil, fmt.Errorf("the schema does not bind: %d error(s)", errs)
	}
	return pkg, nil
}

func describe(d *hcl.Diagnostic) string {
	severity := "warning"
	if d.Severity == hcl.DiagError {
		severity = "error"
	}
	where := ""
	if d.Subject != nil && d.Subject.Filename != "" {
		where = d.Subject.Filename + ": "
	}
	text := fmt.Sprintf("%s: %s%s", severity, where, d.Summary)
	if d.Detail != "" && d.Detail != d.Summary {
		text += "; " + d.Detail
	}
	return text
}

func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if !isInside(dir, path) {
			return errors.New("a generator named a file outside its folder: " + name)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func isInside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}
