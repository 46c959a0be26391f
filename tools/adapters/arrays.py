"""Tensors as NumPy arrays on the wire, for the adapters whose tensors
are NumPy arrays: the NumPy adapter's and the frameworks' (wire.py). Each
gives its table of dtypes (the protocol's name -> the NumPy dtype of the
wire bytes, little-endian) and its limits; the checks of a tensor field
are lines.tensor_data's."""

import numpy as np

from lines import fail, tensor_data, tensor_object

# the protocol's dtypes that NumPy has (all but bfloat16, which ml_dtypes
# adds): name -> NumPy dtype of the wire bytes (little-endian)
NUMPY_DTYPES = {
    "bool": np.dtype("|b1"),
    "uint8": np.dtype("|u1"),
    "int8": np.dtype("|i1"),
    "int16": np.dtype("<i2"),
    "int32": np.dtype("<i4"),
    "int64": np.dtype("<i8"),
    "float16": np.dtype("<f2"),
    "float32": np.dtype("<f4"),
    "float64": np.dtype("<f8"),
}


class Arrays:
    """decode and encode for one table of dtypes. limits are
    lines.tensor_data's keywords (strides_ok, max_elems,
    max_view_elems)."""

    def __init__(self, dtypes, **limits):
        self.dtypes = dtypes
        self.limits = limits
        self.names = {dt.newbyteorder("="): name for name, dt in dtypes.items()}
        self.names.update({dt: name for name, dt in dtypes.items()})

    def name_of(self, a):
        """The protocol's name of a's dtype (NumPy's own name where the
        table lacks it)."""
        return self.names.get(a.dtype.newbyteorder("="), str(a.dtype))

    def decode(self, obj, name):
        """A tensor field as a new array of native byte order. A view (the
        strides extension) is materialised: the ufuncs and the frameworks
        take contiguous arrays alike, and nothing writes into a view whose
        elements share memory."""
        dtn, shape, strides, raw = tensor_data(obj, name, self.dtypes, **self.limits)
        ndt = self.dtypes[dtn]
        arr = np.frombuffer(raw, dtype=ndt).astype(ndt.newbyteorder("="), copy=True)
        if strides is None:
            return arr.reshape(shape)
        view = np.lib.stride_tricks.as_strided(arr, shape=shape, strides=[s * arr.itemsize for s in strides],
                                               writeable=False)
        return np.ascontiguousarray(view)

    def encode(self, a):
        """A result as the protocol writes it."""
        a = np.asarray(a)
        name = self.name_of(a)
        if name not in self.dtypes:
            fail("invalid_argument", "result has dtype %s, which the protocol lacks" % a.dtype)
        raw = np.ascontiguousarray(a).astype(self.dtypes[name], copy=False).tobytes()
        return tensor_object(name, a.shape, raw)
