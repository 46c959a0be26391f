package scatter_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/scatterconf/scatter"

// layoutRules reads the dependency table of LAYOUT.md: for every package
// (relative to the module, "." for the root), the module packages it may
// import.
func layoutRules(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("LAYOUT.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var allowed []string
		for _, f := range strings.Fields(cells[2]) {
			allowed = append(allowed, strings.Trim(f, "`"))
		}
		rules[pkg] = allowed
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatal("LAYOUT.md has no dependency table")
	}
	return rules
}

// listed is what go list says of one package.
type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// goList lists every package of the module with its imports.
func goList(t *testing.T) []listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command here to list the packages: ", err)
	}
	out, err := exec.Command("go", "list", "-e", "-json", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rel names a module package relative to the module ("." for the root),
// or returns false for a package outside it.
func rel(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

func underTools(p string) bool { return p == "tools" || strings.HasPrefix(p, "tools/") }

// TestDependencyRules checks every package's imports against LAYOUT.md.
func TestDependencyRules(t *testing.T) {
	rules := layoutRules(t)
	for _, p := range goList(t) {
		name, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		allowed, ok := rules[name]
		if !ok {
			t.Errorf("package %s has no row in LAYOUT.md's dependency table", name)
			continue
		}
		for _, imp := range p.Imports {
			if dep, ok := rel(imp); ok && !slices.Contains(allowed, dep) {
				t.Errorf("package %s imports %s, which LAYOUT.md does not allow it", name, dep)
			}
		}
		if underTools(name) {
			continue
		}
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			if dep, ok := rel(imp); ok && underTools(dep) {
				t.Errorf("the tests of %s import %s: nothing outside tools/ imports it", name, dep)
			}
		}
	}
}
