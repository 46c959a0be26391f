package properties_test

import (
	"os"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/protocol"
)

// TestOutsideImplementation runs the properties on an implementation in
// any language, through the protocol, when SCATTER_PROPERTIES_IMPL names
// its command (judged under SCATTER_PROPERTIES_PROFILE, torch-2 by
// default), e.g. against real PyTorch 1.13:
//
//	SCATTER_PROPERTIES_IMPL='/usr/bin/python3 ../tools/adapters/torch_adapter.py' \
//	SCATTER_PROPERTIES_PROFILE=torch-1.13 go test ./properties -run TestOutsideImplementation
func TestOutsideImplementation(t *testing.T) {
	cmd := os.Getenv("SCATTER_PROPERTIES_IMPL")
	if cmd == "" {
		t.Skip("set SCATTER_PROPERTIES_IMPL to an implementation's command to run the properties on it")
	}
	prof := scatter.Torch2
	if s := os.Getenv("SCATTER_PROPERTIES_PROFILE"); s != "" {
		var err error
		if prof, err = scatter.ParseProfile(s); err != nil {
			t.Fatal(err)
		}
	}
	c, err := protocol.NewClient(cmd, protocol.ClientOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("starting %s: %v", cmd, err)
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("the implementation's standard error (tail):\n%s", c.Stderr())
		}
	})
	properties.Check(t, properties.Target{Backend: c, Profile: prof})
}
