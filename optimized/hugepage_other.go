//go:build !linux

package optimized

import "unsafe"

func adviseHuge(p unsafe.Pointer, n uintptr) {}
