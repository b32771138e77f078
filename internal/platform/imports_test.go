package platform_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPlatformImportsNoProduct: no package under internal/platform imports
// a product (internal/guide, internal/property), directly or through
// another package, outside its tests. The platform is the kernel both
// products build on; a product's rules and schema live in the product.
func TestPlatformImportsNoProduct(t *testing.T) {
	module := goList(t, "-m")
	products := []string{module + "/internal/guide", module + "/internal/property"}
	out := goList(t, "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...")
	for line := range strings.SplitSeq(out, "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		var offenders []string
		for dep := range strings.FieldsSeq(deps) {
			for _, p := range products {
				if dep == p || strings.HasPrefix(dep, p+"/") {
					offenders = append(offenders, dep)
				}
			}
		}
		if len(offenders) > 0 {
			t.Errorf("%s imports %s", pkg, strings.Join(offenders, ", "))
		}
	}
}

// TestDomainImportsNoTransport: the domain packages (internal/guide,
// internal/property, not their doors) import no transport: net/http,
// httpx or mcpx, in any file but tests. A door decodes its wire format
// into the service's types, so that a rule reads alike through every door
// and a new door needs no change in the domain. net/url stays allowed:
// the domain checks links a caller writes (profile links, the pictures
// of a travelogue), which are content, not transport.
func TestDomainImportsNoTransport(t *testing.T) {
	module := goList(t, "-m")
	forbidden := []string{"net/http", module + "/internal/platform/httpx", module + "/internal/platform/mcpx"}
	root := goList(t, "-m", "-f", "{{.Dir}}")
	for line := range strings.SplitSeq(goList(t, "-f", `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, module+"/internal/guide", module+"/internal/property"), "\n") {
		dir, files, _ := strings.Cut(line, " ")
		for name := range strings.FieldsSeq(files) {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			rel, err := filepath.Rel(root, filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range forbidden {
					if path == bad || strings.HasPrefix(path, bad+"/") {
						t.Errorf("%s imports %s: the domain imports no transport; let the door parse its wire format", filepath.ToSlash(rel), path)
					}
				}
			}
		}
	}
}

// goList runs go list in this folder and returns its output, trimmed.
func goList(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// TestPlatformTestsImportNoProduct: the platform's tests test the
// platform alone, with handlers and rules of their own; a product's
// end-to-end tests live in the product. The one product code they may
// import is the stores' Schema, whose migrations create the tables the
// kernel serves (jobs, events, idempotency keys) on a real database.
func TestPlatformTestsImportNoProduct(t *testing.T) {
	module := goList(t, "-m")
	products := []string{module + "/internal/guide", module + "/internal/property"}
	schemas := []string{module + "/internal/guide/guidedb", module + "/internal/property/propertydb"}
	out := goList(t, "-f", `{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}`, "./...")
	for line := range strings.SplitSeq(out, "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		var offenders []string
		for imp := range strings.FieldsSeq(imports) {
			for _, p := range products {
				if (imp == p || strings.HasPrefix(imp, p+"/")) && !slices.Contains(schemas, imp) {
					offenders = append(offenders, imp)
				}
			}
		}
		if len(offenders) > 0 {
			t.Errorf("the tests of %s import %s", pkg, strings.Join(offenders, ", "))
		}
	}
}
