package scatter_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocCopiesInSync: PROTOCOL.md, SEMANTICS.md and PERFORMANCE.md are
// this repository's copies of the documents shared beside it (../shared):
// after their first line (the note saying so) and a blank line, each is
// the shared copy byte for byte, optionally followed by a last section
// of the repository's own headed "## In this repository" (PROTOCOL.md's:
// the places the shared text leaves open, the optional extensions). The
// shared copies are not the repository's to change. Skipped where
// ../shared is not there (a clone of this repository alone).
func TestDocCopiesInSync(t *testing.T) {
	const ownSection = "\n## In this repository\n"
	for _, name := range []string{"PROTOCOL.md", "SEMANTICS.md", "PERFORMANCE.md"} {
		mine, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s is not in the repository: %v", name, err)
		}
		shared, err := os.ReadFile(filepath.Join("..", "shared", name))
		if err != nil {
			t.Logf("%s: no shared copy to compare with (%v)", name, err)
			continue
		}
		_, body, ok := bytes.Cut(mine, []byte("\n\n"))
		if !ok || !bytes.HasPrefix(mine, []byte("<!-- This file is kept in sync with ../shared/"+name)) {
			t.Errorf("%s does not start with the note that it is kept in sync", name)
			continue
		}
		own, ok := bytes.CutPrefix(body, shared)
		switch {
		case !ok:
			t.Errorf("%s differs from ../shared/%s: copy the shared one over it (after the note), and keep what is the repository's own in its last section (%q)", name, name, strings.TrimSpace(ownSection))
		case len(own) > 0 && !bytes.HasPrefix(own, []byte(ownSection)):
			t.Errorf("%s follows ../shared/%s with text that does not start the repository's own section (%q)", name, name, strings.TrimSpace(ownSection))
		}
	}
}

// TestDocsCiteWhatIsThere: what README.md and the gate's and the oracle's
// documents send a reader to is in the repository (no document beside
// it), and the Ginkgo label-filter example names only packages with
// Ginkgo specs (a package without them rejects the flag).
func TestDocsCiteWhatIsThere(t *testing.T) {
	mdRef := regexp.MustCompile("`([A-Za-z0-9_./-]+\\.md)`")
	filter := regexp.MustCompile("`go test ([^`]*?)-ginkgo\\.label-filter")
	for _, doc := range []string{"README.md", "tools/scattercheck/README.md", "tools/scattercheck/ORACLE.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.Contains(text, "../shared") {
			t.Errorf("%s sends readers to ../shared, outside the repository", doc)
		}
		for _, m := range mdRef.FindAllStringSubmatch(text, -1) {
			name := m[1]
			if strings.HasPrefix(name, "DIR/") {
				continue // a file the command writes
			}
			if _, err := os.Stat(name); err == nil {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(doc), name)); err == nil {
				continue
			}
			t.Errorf("%s cites %s, which is not in the repository", doc, name)
		}
		for _, m := range filter.FindAllStringSubmatch(text, -1) {
			for _, pkg := range strings.Fields(m[1]) {
				if strings.Contains(pkg, "...") {
					t.Errorf("%s: %q runs every package, and those without Ginkgo specs reject -ginkgo.label-filter", doc, m[0])
					continue
				}
				if !hasGinkgoSpecs(t, pkg) {
					t.Errorf("%s: package %s has no Ginkgo specs and rejects -ginkgo.label-filter", doc, pkg)
				}
			}
		}
	}
}

func hasGinkgoSpecs(t *testing.T, dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("RunSpecs(")) {
			return true
		}
	}
	return false
}
