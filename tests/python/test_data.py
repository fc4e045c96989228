"""graphcost.open over the CLI's sources, graphs' arrays as numpy (views, no copy), graphs built
from numpy arrays with the readers' checks and messages."""
import gc

import numpy as np
import pytest

import graphcost
from conftest import cli, cli_error, shared


def npz_of(graph_obj):
    return {k: np.asarray(v) for k, v in graph_obj.arrays().items()}


def test_open_dataset_root_names_collection_and_split(root):
    c = graphcost.open(root, "layout:xla:random", "valid")
    assert (c.id, c.split, c.kind) == ("layout:xla:random", "valid", "layout")
    files = sorted((root / "npz/layout/xla/random/valid").glob("*.npz"))
    assert [g.name for g in c] == [f.stem for f in files]


def test_open_collection_folder_takes_its_id(root):
    c = graphcost.open(root / "npz/tile/xla")
    assert (c.id, c.split) == ("tile:xla", "train")


def test_arrays_match_the_npz_file(root):
    path = sorted((root / "npz/layout/xla/random/train").glob("*.npz"))[0]
    g = graphcost.open(path)[0]
    with np.load(path) as f:
        np.testing.assert_array_equal(g.node_feat, f["node_feat"])
        np.testing.assert_array_equal(g.node_opcode, f["node_opcode"])
        np.testing.assert_array_equal(g.edge_index, f["edge_index"])
        np.testing.assert_array_equal(g.node_config_ids, f["node_config_ids"])
        np.testing.assert_array_equal(g.node_config_feat, f["node_config_feat"])
        np.testing.assert_array_equal(g.runtimes, f["config_runtime"].astype(np.float64))
    assert g.node_feat.dtype == np.float32 and g.node_config_feat.dtype == np.int8
    assert g.config_feat is None and g.kind == "layout"


def test_graph_round_trip_through_arrays(root):
    for collection in ("tile:xla", "layout:xla:random"):
        g = graphcost.open(root, collection, "valid")[0]
        again = graphcost.graph(g.name, **npz_of(g))
        for key, value in npz_of(g).items():
            np.testing.assert_array_equal(npz_of(again)[key], value, err_msg=key)
        assert again.name == g.name and again.kind == g.kind


def test_arrays_are_read_only_views_that_keep_the_collection_alive(root, tmp_path):
    pack = tmp_path / "tile.pack"
    cli("pack", root, "--collection", "tile:xla", "--split", "valid", "--out", pack)
    c = graphcost.open(pack)
    g = c[1]
    feat = g.config_feat
    # No copy: every read is the same memory, owned by the collection (the graph is its base).
    assert feat.__array_interface__["data"][0] == g.config_feat.__array_interface__["data"][0]
    assert not feat.flags.owndata and not feat.flags.writeable
    assert feat.base is g
    with pytest.raises(ValueError):
        feat[0, 0] = 1
    expected = feat.copy()
    runtimes = g.runtimes
    del c, g
    gc.collect()
    np.testing.assert_array_equal(feat, expected)  # the pack is still mapped
    assert runtimes.shape == (expected.shape[0],)


def test_open_kernel_tuner_cache_and_pb():
    c = graphcost.open(shared("kernel_tuner", "convolution", "A100.json.gz"))
    assert c.kind == "tile" and len(c) == 1
    g = c[0]
    assert g.config_feat.shape[0] == g.num_configs == len(g.runtimes)
    assert g.failed is not None and g.failed.dtype == np.bool_ and g.failed.any()
    pb = graphcost.open(shared("tpugraphs", "op_tuning_data.pb"))
    assert len(pb) == 15


def test_open_errors_match_the_cli(root, tmp_path):
    missing = tmp_path / "nothing.npz"
    with pytest.raises(graphcost.Error) as e:
        graphcost.open(missing)
    assert str(e.value) == cli_error("inspect", missing)
    with pytest.raises(graphcost.Error, match="unknown collection|valid"):
        graphcost.open(root, "layout:bogus")
    assert issubclass(graphcost.Error, ValueError)


def tile_arrays():
    rng = np.random.default_rng(0)
    return dict(node_feat=rng.random((4, 3), dtype=np.float32),
                node_opcode=np.array([1, 2, 3, 4], np.uint8),
                edge_index=np.array([[1, 0], [2, 1], [3, 2]], np.int64),
                config_feat=rng.random((5, 2), dtype=np.float32),
                config_runtime=np.array([5, 4, 3, 2, 1], np.int64))


@pytest.mark.parametrize("change", [
    {"node_opcode": np.array([1.5, 2, 3, 4])},                 # float where integers belong
    {"edge_index": np.array([[1, 0], [2, 9]], np.int64)},      # an edge to a node not there
    {"edge_index": np.array([1, 0, 2], np.int64)},             # wrong rank
    {"node_opcode": np.array([1, 2, 3], np.uint8)},            # one short
    {"config_runtime": np.array([5, 4, 0, 2, 1], np.int64)},   # a zero runtime (validation)
    {"node_feat": np.array([[1, 2, 3]] * 3 + [[np.nan, 0, 0]], np.float32)},
])
def test_bad_arrays_refused_as_the_npz_reader_refuses_them(tmp_path, change):
    arrays = tile_arrays()
    arrays.update(change)
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(graphcost.Error) as e:
        graphcost.graph(str(path), **arrays)
    assert str(e.value) == cli_error("inspect", path)


def test_missing_key_and_unsupported_dtype_name_the_array():
    arrays = tile_arrays()
    del arrays["edge_index"]
    with pytest.raises(graphcost.Error, match=r"^g: edge_index: missing key$"):
        graphcost.graph("g", **arrays)
    arrays = tile_arrays()
    arrays["config_feat"] = arrays["config_feat"].astype(np.complex64)
    with pytest.raises(graphcost.Error, match=r"^g: config_feat: unsupported dtype complex64"):
        graphcost.graph("g", **arrays)
    with pytest.raises(graphcost.Error, match=r"^g: bogus: unknown array"):
        graphcost.graph("g", bogus=np.zeros(3), **tile_arrays())


def test_user_graph_keeps_values_and_order():
    arrays = tile_arrays()
    arrays["config_feat"] = np.asfortranarray(np.arange(10, dtype=np.float64).reshape(5, 2))
    g = graphcost.graph("mine", **arrays)
    assert g.config_feat.dtype == np.float32
    np.testing.assert_array_equal(g.config_feat, np.arange(10).reshape(5, 2))
    np.testing.assert_array_equal(g.runtimes, [5, 4, 3, 2, 1])
    np.testing.assert_array_equal(g.edge_index, [[1, 0], [2, 1], [3, 2]])
