package reference

import "sort"

// sortGroups orders groups by output position.
func sortGroups(gs []group) {
	sort.Slice(gs, func(i, j int) bool { return gs[i].out < gs[j].out })
}
