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


def pack(parts, compression=zipfile.ZIP_STORED):
    """A readable model-file stream from archive members."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as archive:
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
