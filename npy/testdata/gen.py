# Generates the golden .npy files of package npy with numpy (1.24.2 made the
# committed ones): python3 gen.py, in this directory.
import numpy as np

np.save("bool_2x2.npy", np.array([[True, False], [False, True]]))
np.save("uint8_3.npy", np.array([0, 7, 255], dtype="|u1"))
np.save("int8_3.npy", np.array([-128, 0, 127], dtype="|i1"))
np.save("int16_2x2.npy", np.array([[-32768, 1], [2, 32767]], dtype="<i2"))
np.save("int32_2x3.npy", np.arange(-3, 3, dtype="<i4").reshape(2, 3))
np.save("int64_3.npy", np.array([-(2**63), 1, 2**63 - 1], dtype="<i8"))
np.save("float16_0d.npy", np.array(1.5, dtype="<f2"))
np.save("float16_4.npy", np.array([1, -2, np.inf, 65504], dtype="<f2"))
np.save("float32_2x3.npy", np.arange(6, dtype="<f4").reshape(2, 3) / 4)
np.save("float64_0d.npy", np.array(2.5, dtype="<f8"))
np.save("float64_2x0x3.npy", np.zeros((2, 0, 3), dtype="<f8"))
# bfloat16 has no numpy dtype: its bit patterns as uint16 (1, -2, nan, inf).
np.save("bfloat16_as_uint16_4.npy", np.array([0x3F80, 0xC000, 0x7FC0, 0x7F80], dtype="<u2"))
# Read also takes Fortran order and big-endian data, which it never writes.
np.save("int64_2x3_fortran.npy", np.asfortranarray(np.arange(6, dtype="<i8").reshape(2, 3)))
np.save("int32_2x2_bigendian.npy", np.array([[1, -2], [3, 65536]], dtype=">i4"))
