package cuda

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/scatterconf/scatter"
)

// A program is a planned call: the device buffers it needs (some uploaded
// from host memory) and the steps (kernel launches, copies, memsets) that
// compute the output. Steps re-initialise everything they accumulate into,
// so a program can be executed again on the same buffers (the benchmarks
// do).
type program struct {
	bufs  []buf
	steps []step
	out   bufID // the output buffer (dtype dt, outShape)
	dt    scatter.DType
	shape []int // the output's shape
	outN  int
}

type bufID int

const noBuf bufID = -1

// buf is a device buffer: size bytes, uploaded from host (kept alive by
// keep) when host is not nil.
type buf struct {
	size int
	host unsafe.Pointer
	keep any
	dev  uint64
}

type stepKind uint8

const (
	stepLaunch stepKind = iota
	stepCopy            // device-to-device copy of bytes from src to dst
	stepMemset          // dst's first bytes set to zero
)

// Buffer roles in a launch's params.
const (
	rOut = iota
	rSrc
	rIdx
	rSelf
	rCount
	rTouched
	rPerm
	rSegs
	nRoles
)

type step struct {
	kind     stepKind
	kernel   string
	p        params
	refs     [nRoles]bufID
	work     int64
	dst, src bufID
	bytes    int
}

// addBuf adds a buffer of size bytes, uploaded from host data (an element
// slice, or nil).
func (pr *program) addBuf(size int, data any) bufID {
	b := buf{size: size}
	if data != nil {
		b.host, _ = bytesOf(data)
		b.keep = data
	}
	pr.bufs = append(pr.bufs, b)
	return bufID(len(pr.bufs) - 1)
}

func noRefs() [nRoles]bufID {
	var r [nRoles]bufID
	for i := range r {
		r[i] = noBuf
	}
	return r
}

func (pr *program) launch(kernel string, work int64, p params, refs [nRoles]bufID) {
	pr.steps = append(pr.steps, step{kind: stepLaunch, kernel: kernel, p: p, refs: refs, work: work})
}

func (pr *program) copy(dst, src bufID, bytes int) {
	if bytes > 0 && dst != noBuf && src != noBuf {
		pr.steps = append(pr.steps, step{kind: stepCopy, dst: dst, src: src, bytes: bytes})
	}
}

func (pr *program) memset(dst bufID, bytes int) {
	if bytes > 0 && dst != noBuf {
		pr.steps = append(pr.steps, step{kind: stepMemset, dst: dst, bytes: bytes})
	}
}

// errIndexOutOfRange: a kernel flagged an index value out of range; the
// call is answered by the reference.
var errIndexOutOfRange = errors.New("cuda: an index value is out of range")

// loaded is a program whose buffers are on the device.
type loaded struct {
	pr  *program
	err uint64 // the error flag (one int)
	dev device
}

// load allocates the program's buffers (padded to 8 bytes, so that the
// word-wide compare-and-swap of 8- and 16-bit elements stays inside) and
// uploads their host data.
func load(dev device, pr *program) (*loaded, error) {
	l := &loaded{pr: pr, dev: dev}
	for i := range pr.bufs {
		b := &pr.bufs[i]
		p, err := dev.Malloc(pad8(b.size))
		if err != nil {
			l.free()
			return nil, err
		}
		b.dev = p
		if b.host != nil && b.size > 0 {
			if err := dev.CopyHtoD(p, b.host, b.size); err != nil {
				l.free()
				return nil, err
			}
		}
		runtime.KeepAlive(b.keep)
	}
	e, err := dev.Malloc(8)
	if err != nil {
		l.free()
		return nil, err
	}
	l.err = e
	return l, nil
}

func pad8(n int) int { return max(8, (n+7)&^7) }

// run executes the steps once (asynchronously on a real device).
func (l *loaded) run() error {
	dev := l.dev
	if err := dev.Memset(l.err, 0, 8); err != nil {
		return err
	}
	for _, s := range l.pr.steps {
		switch s.kind {
		case stepCopy:
			if err := dev.CopyDtoD(l.pr.bufs[s.dst].dev, l.pr.bufs[s.src].dev, s.bytes); err != nil {
				return err
			}
		case stepMemset:
			if err := dev.Memset(l.pr.bufs[s.dst].dev, 0, s.bytes); err != nil {
				return err
			}
		case stepLaunch:
			p := s.p
			p.Err = l.err
			ptrs := [nRoles]*uint64{&p.Out, &p.Src, &p.Idx, &p.Self, &p.Count, &p.Touched, &p.Perm, &p.Segs}
			for r, id := range s.refs {
				if id != noBuf {
					*ptrs[r] = l.pr.bufs[id].dev
				}
			}
			grid, block := dev.Config(max(s.work, 1))
			if err := dev.Launch(s.kernel, grid, block, &p); err != nil {
				return err
			}
		}
	}
	return nil
}

// result waits for the device, checks the error flag and downloads the
// output.
func (l *loaded) result() (scatter.Tensor, error) {
	if err := l.dev.Sync(); err != nil {
		return scatter.Tensor{}, err
	}
	var flag [2]int32
	if err := l.dev.CopyDtoH(unsafe.Pointer(&flag[0]), l.err, 8); err != nil {
		return scatter.Tensor{}, err
	}
	if flag[0] != 0 {
		return scatter.Tensor{}, errIndexOutOfRange
	}
	pr := l.pr
	data := scatter.MakeData(pr.dt, pr.outN)
	if p, n := bytesOf(data); n > 0 {
		if err := l.dev.CopyDtoH(p, pr.bufs[pr.out].dev, n); err != nil {
			return scatter.Tensor{}, err
		}
		runtime.KeepAlive(data)
	}
	return scatter.Tensor{Shape: append([]int{}, pr.shape...), Data: data}, nil
}

func (l *loaded) free() {
	for i := range l.pr.bufs {
		if b := &l.pr.bufs[i]; b.dev != 0 {
			l.dev.Free(b.dev)
			b.dev = 0
		}
	}
	if l.err != 0 {
		l.dev.Free(l.err)
		l.err = 0
	}
}

// execute loads, runs and frees a program under the device's lock.
func (b *backend) execute(pr *program) (scatter.Tensor, error) {
	unlock := b.lock()
	defer unlock()
	l, err := load(b.dev, pr)
	if err != nil {
		return scatter.Tensor{}, err
	}
	defer l.free()
	if err := l.run(); err != nil {
		return scatter.Tensor{}, err
	}
	return l.result()
}
