"""Test helpers for model files: take a saved model apart and put it back together."""
import io
import json
import zipfile

import numpy as np


def members(estimator):
    """The archive members (name -> bytes) of ``estimator.save``."""
    buffer = io.BytesIO()
    estimator.save(buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        return {i.filename: archive.read(i) for i in archive.infolist()}


def pack(parts, compression=zipfile.ZIP_STORED, compresslevel=None):
    """A readable model-file stream from archive members."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression,
                         compresslevel=compresslevel) as archive:
        for name, raw in parts.items():
            archive.writestr(name, raw)
    out.seek(0)
    return out


def npy(array):
    """The .npy bytes of an array (never pickled)."""
    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    return out.getvalue()


def with_header(estimator, change):
    """The model file of ``estimator`` with ``change`` applied to its JSON header."""
    parts = members(estimator)
    header = json.loads(np.load(io.BytesIO(parts["header.npy"])).tobytes())
    change(header)
    parts["header.npy"] = npy(np.frombuffer(json.dumps(header).encode(), np.uint8))
    return pack(parts)


def file_bytes(estimator):
    """The bytes of ``estimator.save``."""
    buffer = io.BytesIO()
    estimator.save(buffer)
    return buffer.getvalue()


def arrays(raw):
    """A model file's members as arrays (name without ``.npy`` -> array)."""
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        return {i.filename[:-4]: np.load(io.BytesIO(archive.read(i)))
                for i in archive.infolist()}


def header_of(parts):
    """The JSON header of a file's arrays."""
    return json.loads(parts["header"].tobytes())


def with_header_dict(parts, header):
    """A file's arrays with ``header`` as their JSON header."""
    return dict(parts, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))


def plain_arrays(raw):
    """A forest file's arrays with its byte planes put back and the header's
    ``byte_planes`` dropped (a file without planes is as valid): tests edit the
    numbers themselves."""
    from dtree._deploy.byte_planes import from_planes
    parts = arrays(raw)
    header = header_of(parts)
    planes = header.pop("byte_planes", None)
    if planes is None:
        return parts
    return with_header_dict(from_planes(parts, planes), header)


def deflated(parts):
    """A forest file's bytes from its arrays, deflated at the level ``save`` uses."""
    return pack({f"{name}.npy": npy(array) for name, array in parts.items()},
                zipfile.ZIP_DEFLATED, 1).getvalue()
