package properties_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/reference"
)

// TestGinkgo runs the Ginkgo specs of this package: CheckTB under
// GinkgoT(), as a backend's Ginkgo suite would call it.
func TestGinkgo(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "properties under Ginkgo")
}

var _ = Describe("properties.CheckTB under GinkgoT()", func() {
	for _, p := range scatter.Profiles {
		It("passes the reference under "+p.String(), func() {
			rep := properties.CheckTB(GinkgoT(), properties.Target{Backend: reference.New(p), Profile: p},
				properties.Budget{Tier: properties.TierShort})
			Expect(rep.Failed()).To(BeFalse())
			Expect(rep.CasesRun()).To(BeNumerically(">", 100))
			Expect(rep.Properties).To(HaveLen(len(properties.Properties())))
		})
	}
})
