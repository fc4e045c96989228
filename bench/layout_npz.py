"""Shared by the Python controls in bench/ (alexnet_*.py): reading one layout .npz file of a
`graphcost split` folder and one-hot encoding its configurations. Needs numpy."""
import glob
import os
import sys

import numpy as np


def one_file(folder, tool):
    """The only .npz file in folder; exits with `TOOL: error: FOLDER: ...` otherwise."""
    files = sorted(glob.glob(os.path.join(folder, "*.npz")))
    if len(files) != 1:
        sys.exit(f"{tool}: error: {folder}: expected one .npz file, found {len(files)}")
    return np.load(files[0])


def layout_one_hot(values, path, tool, dtype=np.float32):
    """node_config_feat [C, N, F] with integer values -1..5 -> [C, N * F * 7] of 0/1 in dtype;
    exits naming path when the values are empty or not such integers."""
    codes = np.rint(values).astype(np.int64) + 1
    if codes.size == 0 or codes.min() < 0 or codes.max() > 6 or not np.allclose(values, codes - 1):
        sys.exit(f"{tool}: error: {path}: node_config_feat is empty or holds values outside the "
                 "integers -1..5 (not a layout file?)")
    out = np.zeros(codes.shape + (7,), dtype)
    np.put_along_axis(out, codes[..., None], 1.0, axis=-1)
    return out.reshape(len(values), -1)
