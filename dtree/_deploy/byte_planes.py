"""A forest file's members as byte planes (format version 8), and back.

Deflate finds the repeats in a column of numbers far better when each number's
first bytes come together, then its second bytes, and so on (a float's sign and
exponent bytes repeat; a small integer's high bytes are zero): the file stores
each member of numbers wider than a byte as a ``(itemsize, size)`` uint8 array
(``_model.narrow.byte_planes``), and its header's ``"byte_planes"`` says, per
member, the dtype and shape it stands for.
"""
import math

import numpy as np

from .._model.narrow import byte_planes, from_byte_planes
from .file_checks import ModelFileError

# a member's dimensions at most (a forest file's members are 1- to 3-D)
MAX_DIMS = 3
# the dtypes a plane member may stand for (either byte order; read back as native)
PLANE_DTYPES = {np.dtype(f"{order}{kind}").str for order in "<>"
                for kind in ("i2", "i4", "i8", "u2", "u4", "u8", "f4", "f8")}


def to_planes(members, keep):
    """(members, header entry): each member wider than a byte, but those in
    ``keep``, as its byte planes."""
    out, spec = {}, {}
    for name, array in members.items():
        array = np.asarray(array)
        if name in keep or array.dtype.itemsize == 1 or array.dtype.str not in PLANE_DTYPES:
            out[name] = array
            continue
        out[name] = byte_planes(array)
        spec[name] = [array.dtype.str, list(array.shape)]
    return out, spec


def from_planes(members, spec):
    """The members ``to_planes`` wrote, each back in its dtype (native byte order)
    and shape; ModelFileError for a header entry or member that does not fit."""
    if not isinstance(spec, dict):
        raise ModelFileError("'byte_planes' must map members to [dtype, shape]")
    members = dict(members)
    for name, entry in spec.items():
        if name not in members:
            raise ModelFileError(f"'byte_planes' names {name!r}, which the file lacks")
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and entry[0] in PLANE_DTYPES and isinstance(entry[1], list) and
                1 <= len(entry[1]) <= MAX_DIMS and
                all(type(n) is int and n >= 0 for n in entry[1])):
            raise ModelFileError(f"'byte_planes' of {name!r} must be [a dtype of "
                                 f"2 to 8 bytes, a shape of 1 to {MAX_DIMS} sizes]")
        dtype, shape = np.dtype(entry[0]), tuple(entry[1])
        planes = members[name]
        if planes.dtype != np.uint8 or planes.shape != (dtype.itemsize, math.prod(shape)):
            raise ModelFileError(f"member {name!r} is not the byte planes of a {dtype} "
                                 f"array of shape {shape}")
        members[name] = from_byte_planes(planes, dtype).reshape(shape).astype(
            dtype.newbyteorder("="))
    return members
