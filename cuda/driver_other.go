//go:build !linux

package cuda

import "errors"

// openDevice: the backend loads libcuda.so.1 and NVRTC with dlopen, which
// it does on Linux only.
func openDevice(int) (device, error) {
	return nil, errors.New("the CUDA backend runs on Linux only (it loads libcuda.so.1)")
}
