"""graphdr.datasets: registry, checked fetching, every loader, the prepared .npz form.

Reference values are read from the mirror files independently of the loaders (scipy.io, gzip,
plain string parsing, scipy.io.arff) so a loader bug cannot confirm itself. No test uses the
network: pooch.retrieve is replaced by a stub that fails unless a test installs its own.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pooch
import pytest
import scipy.io
import scipy.io.arff
import sklearn.datasets

import graphdr.datasets as gd
from graphdr.datasets import ChecksumError, Dataset, DownloadError, _fetch, fetch, load

ROOT = Path(__file__).resolve().parents[1]
_DEFAULT_MIRROR = ROOT.parent / "shared" / "datasets"

# n / d / classes from the mirror README's table (an independent source for the registry).
KEEL_TABLE = {
    "iris": (150, 4, 3), "wine": (178, 13, 3), "glass": (214, 9, 6), "ionosphere": (351, 33, 2),
    "sonar": (208, 60, 2), "vehicle": (846, 18, 4), "satimage": (6435, 36, 6),
    "heart": (270, 13, 2), "cleveland": (297, 13, 5), "vowel": (990, 13, 11),
    "letter": (20000, 16, 26), "penbased": (10992, 16, 10), "optdigits": (5620, 64, 10),
    "wdbc": (569, 30, 2), "wisconsin": (683, 9, 2), "bupa": (345, 6, 2), "balance": (625, 4, 3),
    "texture": (5500, 40, 11), "twonorm": (7400, 20, 2), "ring": (7400, 20, 2),
    "newthyroid": (215, 5, 3), "ecoli": (336, 7, 8), "yeast": (1484, 8, 10),
    "dermatology": (358, 34, 6), "movement_libras": (360, 90, 15), "spambase": (4597, 57, 2),
    "page-blocks": (5472, 10, 5), "magic": (19020, 10, 2), "australian": (690, 14, 2),
}  # fmt: skip
MNIST_TEST_COUNTS = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
MNIST_TRAIN_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def mirror() -> Path:
    path = Path(os.environ.get("GRAPHDR_DATA_MIRROR") or _DEFAULT_MIRROR)
    if not (path / "SHA256SUMS").is_file():
        pytest.skip(f"no dataset mirror at {path} (set GRAPHDR_DATA_MIRROR)")
    return path


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path, request):
    """Mirror from the environment (or the sibling default), a private download cache, no user
    registry, and no network: pooch.retrieve fails unless a test replaces it."""
    if os.environ.get("GRAPHDR_DATA_MIRROR") is None and _DEFAULT_MIRROR.is_dir():
        monkeypatch.setenv("GRAPHDR_DATA_MIRROR", str(_DEFAULT_MIRROR))
    monkeypatch.setenv("GRAPHDR_DATA_HOME", str(tmp_path / "data_home"))
    monkeypatch.delenv("GRAPHDR_EXTRA_REGISTRY", raising=False)

    def offline(url, *args, **kwargs):
        raise ConnectionError(f"no network in tests ({url})")

    monkeypatch.setattr(pooch, "retrieve", offline)
    monkeypatch.setattr(_fetch, "RETRY_DELAYS", (0.0,))  # network retries without the waits


_LOADED: dict[str, Dataset] = {}


def cached(name: str) -> Dataset:
    """Default load of ``name``, shared by the tests that only read it."""
    if name not in _LOADED:
        _LOADED[name] = load(name)
    return _LOADED[name]


def _sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _keel_rows(path: Path) -> list[list[str]]:
    """Data rows of a KEEL file by plain string handling (independent of the loader)."""
    text = path.read_text().splitlines()
    start = next(i for i, line in enumerate(text) if line.strip().lower() == "@data")
    return [[v.strip() for v in line.split(",")] for line in text[start + 1 :] if line.strip()]


# ----------------------------------------------------------------------------- registry


def test_registry_hashes_are_those_of_the_mirror(mirror):
    sums = {}
    for line in (mirror / "SHA256SUMS").read_text().splitlines():
        digest, rel = line.split()
        sums[rel.removeprefix("./")] = digest
    files = gd.list_files()
    assert set(sums) <= set(files)
    for rel, digest in sums.items():
        assert gd.file_entry(rel)["sha256"] == digest, rel
    # MNIST training images: registered (with the README's hash) although not mirrored.
    extra = set(files) - set(sums)
    assert extra == {"mnist/train-images-idx3-ubyte.gz"}
    assert gd.file_entry("mnist/train-images-idx3-ubyte.gz")["sha256"] == (
        "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"
    )


def test_every_file_has_a_source_and_every_dataset_resolves():
    for rel in gd.list_files():
        entry = gd.file_entry(rel)
        assert entry["urls"] or entry["archives"], rel
        assert entry["licence"], rel
        for arch in entry["archives"]:
            assert arch["url"].endswith(".zip") and arch["member"], rel
    for name in gd.list_datasets():
        entry = gd.dataset_entry(name)
        assert entry["loader"] in gd._load.LOADERS, name
        assert entry["description"] and entry["citation"], name


def test_keel_files_prefer_exact_bytes_and_fall_back_to_the_keel_zip():
    entry = gd.file_entry("uci/keel/iris.dat")
    assert entry["urls"][0].endswith("/iris/iris.dat")
    assert entry["archives"] == [
        {
            "url": "https://sci2s.ugr.es/keel/dataset/data/classification/iris.zip",
            "member": "iris.dat",
        }
    ]


def test_unknown_names_suggest_close_matches():
    with pytest.raises(KeyError, match="Did you mean 'usps'"):
        load("uspss")
    with pytest.raises(TypeError, match=r"unknown options \['colour'\]"):
        load("iris", colour="red")


def test_docs_table_lists_every_dataset():
    text = (ROOT / "docs" / "datasets.md").read_text()
    missing = [n for n in gd.list_datasets() if f"`{n}`" not in text]
    assert not missing


# ----------------------------------------------------------------------------- fetching


def test_fetch_uses_the_mirror_in_place(mirror, tmp_path):
    path = fetch("uci/keel/iris.dat")
    assert path == mirror / "uci/keel/iris.dat"
    assert not (tmp_path / "data_home").exists()  # nothing copied


def test_corrupted_mirror_file_is_refused_and_nothing_is_written(mirror, tmp_path):
    bad_mirror = tmp_path / "bad_mirror"
    target = bad_mirror / "uci/keel/iris.dat"
    target.parent.mkdir(parents=True)
    data = bytearray((mirror / "uci/keel/iris.dat").read_bytes())
    data[200] ^= 0x01
    target.write_bytes(bytes(data))
    expected = gd.file_entry("uci/keel/iris.dat")["sha256"]
    found = hashlib.sha256(bytes(data)).hexdigest()
    home = tmp_path / "out"
    with pytest.raises(ValueError) as err:
        fetch("uci/keel/iris.dat", mirror=bad_mirror, data_home=home)
    message = str(err.value)
    assert isinstance(err.value, ChecksumError)
    assert "uci/keel/iris.dat" in message and expected in message and found in message
    assert "Likely cause" in message
    assert not home.exists()
    with pytest.raises(ChecksumError):  # load() goes through the same check
        load("iris", mirror=bad_mirror, data_home=home)
    assert not home.exists()


def test_corrupted_cache_file_is_refused(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "uci/keel").mkdir(parents=True)
    (home / "uci/keel/iris.dat").write_text("not iris\n")
    with pytest.raises(ChecksumError, match="cached download"):
        fetch("uci/keel/iris.dat", mirror=tmp_path / "empty", data_home=home)


def _fake_retrieve(sources: dict, calls: list):
    """Stand-in for pooch.retrieve serving local files for URLs (same signature subset)."""

    def retrieve(url, known_hash=None, fname=None, path=None, processor=None, **kwargs):
        calls.append(url)
        if url not in sources:
            raise ConnectionError(f"unreachable {url}")
        dest = Path(path) / fname
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sources[url], dest)
        return processor(str(dest), "download", None) if processor else str(dest)

    return retrieve


def test_download_installs_a_verified_file_once(mirror, tmp_path, monkeypatch):
    rel = "uci/keel/wine.dat"
    url = gd.file_entry(rel)["urls"][0]
    calls = []
    monkeypatch.setattr(pooch, "retrieve", _fake_retrieve({url: mirror / rel}, calls))
    home = tmp_path / "home"
    path = fetch(rel, mirror=tmp_path / "no_mirror", data_home=home)
    assert path == home / rel and _sha256(path) == gd.file_entry(rel)["sha256"]
    assert fetch(rel, mirror=tmp_path / "no_mirror", data_home=home) == path
    assert calls == [url]  # second call served from the cache
    assert sorted(p.name for p in (home / "uci/keel").iterdir()) == ["wine.dat"]


def test_download_with_wrong_bytes_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    rel = "uci/keel/wine.dat"
    entry = gd.file_entry(rel)
    wrong = tmp_path / "wrong.dat"
    wrong.write_text("@relation wine\n")
    sources = {entry["urls"][0]: wrong}
    monkeypatch.setattr(pooch, "retrieve", _fake_retrieve(sources, []))
    home = tmp_path / "home"
    with pytest.raises(ChecksumError) as err:
        fetch(rel, mirror=tmp_path / "no_mirror", data_home=home)
    assert entry["sha256"] in str(err.value) and _sha256(wrong) in str(err.value)
    assert not home.exists()


def test_zip_archive_member_is_verified_before_installing(mirror, tmp_path, monkeypatch):
    rel = "uci/keel/glass.dat"
    entry = gd.file_entry(rel)
    archive = tmp_path / "glass.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(mirror / rel, "glass.dat")
        zf.writestr("readme.txt", "other member")
    calls = []
    sources = {entry["archives"][0]["url"]: archive}  # the raw URL is "down"
    monkeypatch.setattr(pooch, "retrieve", _fake_retrieve(sources, calls))
    home = tmp_path / "home"
    path = fetch(rel, mirror=tmp_path / "no_mirror", data_home=home)
    attempts = [entry["urls"][0]] * _fetch.DOWNLOAD_ATTEMPTS  # a network error: tried again
    assert calls == [*attempts, entry["archives"][0]["url"]]
    assert path == home / rel and _sha256(path) == entry["sha256"]
    assert [p.name for p in home.rglob("*") if p.is_file()] == ["glass.dat"]


def test_offline_without_mirror_says_how_to_provide_the_file(tmp_path):
    with pytest.raises(DownloadError, match="GRAPHDR_DATA_MIRROR"):
        fetch("uci/keel/iris.dat", mirror=tmp_path / "none", data_home=tmp_path / "home")


def test_missing_mirror_directory_is_named_as_such(tmp_path):
    with pytest.raises(DownloadError, match=r"the mirror directory .*none does not exist"):
        fetch("uci/keel/iris.dat", mirror=tmp_path / "none", data_home=tmp_path / "home")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DownloadError, match=r"the mirror .*empty has no uci/keel/iris.dat") as err:
        fetch("uci/keel/iris.dat", mirror=tmp_path / "empty", data_home=tmp_path / "home")
    assert "does not exist" not in str(err.value)


def test_network_errors_are_retried_but_wrong_bytes_are_not(mirror, tmp_path, monkeypatch):
    rel = "uci/keel/wine.dat"
    url = gd.file_entry(rel)["urls"][0]
    calls = []
    serve = _fake_retrieve({url: mirror / rel}, calls)

    def flaky(url, *args, **kwargs):  # the network fails twice, then answers
        if len(calls) < 2:
            calls.append(url)
            raise ConnectionError("connection reset")
        return serve(url, *args, **kwargs)

    monkeypatch.setattr(pooch, "retrieve", flaky)
    path = fetch(rel, mirror=tmp_path / "no_mirror", data_home=tmp_path / "home")
    assert calls == [url] * 3 and _sha256(path) == gd.file_entry(rel)["sha256"]

    wrong = tmp_path / "wrong.dat"
    wrong.write_text("@relation wine\n")
    calls.clear()
    monkeypatch.setattr(pooch, "retrieve", _fake_retrieve({url: wrong}, calls))
    with pytest.raises(ChecksumError):
        fetch(rel, mirror=tmp_path / "no_mirror", data_home=tmp_path / "home2")
    assert calls.count(url) == 1  # the same URL would send the same wrong bytes


def test_mnist_train_images_need_a_download(mirror, tmp_path):
    with pytest.raises(DownloadError, match="train-images-idx3-ubyte.gz"):
        load("mnist_train", data_home=tmp_path / "home")


def test_hash_is_computed_once_per_file(mirror, monkeypatch):
    fetch("uci/keel/bupa.dat")
    calls = []
    real = hashlib.sha256
    monkeypatch.setattr(hashlib, "sha256", lambda *a: calls.append(1) or real(*a))
    fetch("uci/keel/bupa.dat")
    assert calls == []


# ----------------------------------------------------------------------------- image loaders


def _mean_image(ds, cls):
    return ds.images()[ds.y == cls].mean(axis=0)


def _is_upright_one(image) -> bool:
    """A handwritten 1 is a vertical stroke: ink varies across columns far more than across
    rows. A transposed image shows the opposite."""
    return image.sum(axis=0).std() > 2 * image.sum(axis=1).std()


def test_coil20(mirror):
    ds = load("coil20")
    ref = scipy.io.loadmat(mirror / "COIL20.mat")
    assert ds.X.shape == (1440, 1024) and ds.X.dtype == np.float64 and ds.image_shape == (32, 32)
    assert np.bincount(ds.y).tolist() == [72] * 20
    assert ds.class_names[:2] == ["obj1", "obj2"] and ds.split is None
    # pixel (row 5, column 20) of image 100 sits at 5 + 20 * 32 in the column-major file row
    assert ds.images()[100, 5, 20] == ref["fea"][100, 5 + 20 * 32]
    np.testing.assert_array_equal(ds.y, ref["gnd"].ravel() - 1)
    assert 0.0 <= ds.X.min() and ds.X.max() <= 1.0


@pytest.mark.parametrize(("name", "fname", "n_people", "per_person"), [
    ("orl", "ORL_32x32.mat", 40, 10), ("yale", "Yale_32x32.mat", 15, 11),
])  # fmt: skip
def test_faces(mirror, name, fname, n_people, per_person):
    ds = cached(name)
    ref = scipy.io.loadmat(mirror / fname)
    assert ds.X.shape == (n_people * per_person, 1024)
    assert np.bincount(ds.y).tolist() == [per_person] * n_people
    assert ds.images()[7, 3, 30] == ref["fea"][7, 3 + 30 * 32] / 255.0
    raw = load(name, scale=False)
    assert raw.X.max() == ref["fea"].max()
    # faces are left-right symmetric: upright images match their mirror image better than
    # their upside-down flip (a transposed image would not).
    mean = ds.images().mean(axis=0)
    lr = np.corrcoef(mean.ravel(), mean[:, ::-1].ravel())[0, 1]
    ud = np.corrcoef(mean.ravel(), mean[::-1, :].ravel())[0, 1]
    assert lr > ud + 0.2


def test_usps_standard_split(mirror):
    ds = cached("usps")
    ref = scipy.io.loadmat(mirror / "usps/usps_7291_2007.mat")
    assert ds.X.shape == (9298, 256) and ds.image_shape == (16, 16)
    assert ds.split["train"].tolist() == list(range(7291))
    assert ds.split["test"].tolist() == list(range(7291, 9298))
    raw = np.concatenate([ref["trainlabel"].ravel(), ref["testlabel"].ravel()])
    np.testing.assert_array_equal(ds.y, raw % 10)  # 10 means digit 0
    assert ds.class_names == [str(d) for d in range(10)]
    k = 3000
    assert ds.images()[k, 4, 11] == ref["traindata"][4 + 11 * 16, k]
    assert ds.images()[7291 + 5, 9, 2] == ref["testdata"][9 + 2 * 16, 5]
    assert _is_upright_one(_mean_image(ds, 1))


def test_usps_roweis(mirror):
    ds = load("usps_roweis")
    ref = scipy.io.loadmat(mirror / "usps/usps_roweis_11000.mat")
    assert ds.X.shape == (11000, 256)
    assert np.bincount(ds.y).tolist() == [1100] * 10
    np.testing.assert_array_equal(ds.y, ref["gnd"].ravel() - 1)
    assert ds.images()[1234, 6, 13] == ref["fea"][1234, 6 * 16 + 13] / 255.0  # row-major
    assert _is_upright_one(_mean_image(ds, 1))


def _mnist_reference(mirror):
    images = np.frombuffer(
        gzip.open(mirror / "mnist/t10k-images-idx3-ubyte.gz").read(), np.uint8, offset=16
    ).reshape(10000, 28, 28)
    labels = np.frombuffer(
        gzip.open(mirror / "mnist/t10k-labels-idx1-ubyte.gz").read(), np.uint8, offset=8
    )
    return images, labels


def test_mnist_test_set(mirror):
    ds = cached("mnist")
    images, labels = _mnist_reference(mirror)
    assert ds.X.shape == (10000, 784) and ds.image_shape == (28, 28)
    assert np.bincount(ds.y).tolist() == MNIST_TEST_COUNTS
    np.testing.assert_array_equal(ds.y, labels)
    assert ds.images()[0, 14, 10] == images[0, 14, 10] / 255.0
    assert _is_upright_one(_mean_image(ds, 1))


def test_mnist_train_labels(mirror):
    labels = gd.mnist_train_labels()
    assert labels.shape == (60000,) and np.bincount(labels).tolist() == MNIST_TRAIN_COUNTS


def test_mnist_subset_is_stratified_and_seeded(mirror):
    a = gd.mnist_subset(2000, random_state=3)
    b = gd.mnist_subset(2000, random_state=3)
    c = gd.mnist_subset(2000, random_state=4)
    assert a.X.shape == (2000, 784)
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.array_equal(a.X, c.X)
    expected = np.array(MNIST_TEST_COUNTS) * 0.2
    assert np.all(np.abs(np.bincount(a.y) - expected) <= 1)


# ----------------------------------------------------------------------------- AWGN-MNIST


def test_awgn_mnist_generated_has_the_requested_snr(mirror):
    ds = load("awgn_mnist", random_state=1)
    images, _ = _mnist_reference(mirror)
    clean = images.reshape(10000, -1) / 255.0
    noise = ds.X - clean
    snr_db = 10 * np.log10(np.mean(clean**2, axis=1) / np.mean(noise**2, axis=1))
    assert abs(np.median(snr_db) - 9.5) < 0.05  # per-image SNR, up to sampling error
    assert abs(noise.mean()) < 1e-3
    assert ds.sample_variance is None and ds.info["snr_db"] == 9.5
    # seeded: the loader is add_awgn on the clean test set with that seed
    np.testing.assert_array_equal(ds.X, gd.add_awgn(clean, 9.5, 1)[0])
    clipped, variance = gd.add_awgn(clean[:500], 9.5, 1, clip=True)
    assert clipped.min() == 0.0 and clipped.max() == 1.0
    np.testing.assert_allclose(variance, np.mean(clean[:500] ** 2, axis=1) / 10**0.95)


def test_awgn_mnist_options_reach_the_generator(mirror):
    ds = load("awgn_mnist", snr_db=20.0, clip=True, noise_variance=True)
    assert ds.X.min() >= 0.0 and ds.X.max() <= 1.0
    np.testing.assert_allclose(ds.sample_variance, gd.awgn_variance(cached("mnist").X, 20.0))


def _lsu_archive(path: Path, rng) -> dict:
    arrays = {
        "train_x": rng.uniform(size=(5, 784)),
        "train_y": np.eye(10)[[3, 1, 4, 1, 5]],
        "test_x": rng.uniform(size=(3, 784)),
        "test_y": np.eye(10)[[9, 2, 6]],
    }
    buf = io.BytesIO()
    scipy.io.savemat(buf, arrays)
    data = buf.getvalue()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("mnist-with-awgn.mat")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return arrays


def test_awgn_mnist_reads_the_lsu_file(tmp_path):
    arrays = _lsu_archive(tmp_path / "mnist-with-awgn.gz", np.random.default_rng(0))
    for name in ("awgn_mnist", "nmnist"):
        ds = load(name, path=tmp_path / "mnist-with-awgn.gz")
        assert ds.X.shape == (8, 784) and ds.image_shape == (28, 28)
        np.testing.assert_array_equal(ds.X[:5], arrays["train_x"])
        assert ds.split["train"].tolist() == [0, 1, 2, 3, 4]
        assert ds.split["test"].tolist() == [5, 6, 7]
        assert [ds.class_names[k] for k in ds.y] == ["3", "1", "4", "1", "5", "9", "2", "6"]


def test_nmnist_without_path_says_how_to_give_it():
    with pytest.raises(ValueError, match=r"path=.*options: \{path: "):
        load("nmnist")


# ----------------------------------------------------------------------------- UCI tables


@pytest.mark.parametrize("name", sorted(KEEL_TABLE))
def test_keel_dataset(mirror, name):
    ds = cached(name)
    n, d, c = KEEL_TABLE[name]
    assert (ds.n_samples, ds.n_features, ds.n_classes) == (n, d, c)
    assert gd.dataset_entry(name)["shape"] == [n, d, c]
    assert np.bincount(ds.y, minlength=c).min() > 0 and ds.y.max() == c - 1
    rows = _keel_rows(mirror / f"uci/keel/{name}.dat")
    for k in (0, n - 1):
        np.testing.assert_array_equal(ds.X[k], [float(v) for v in rows[k][:-1]])
        assert ds.class_names[ds.y[k]] == rows[k][-1]
    raw = [r[-1] for r in rows]
    assert [int(np.sum(ds.y == j)) for j in range(c)] == [raw.count(cl) for cl in ds.class_names]


def test_keel_class_order_rule(mirror):
    # numeric classes sorted by value, although the header declares {3, 2, 1}
    assert cached("newthyroid").class_names == ["1", "2", "3"]
    # text classes in declared order
    assert cached("letter").class_names == [chr(ord("A") + k) for k in range(26)]
    # satimage declares 7 classes, class 6 never occurs: codes stay 0..5
    assert cached("satimage").class_names == ["1", "2", "3", "4", "5", "7"]


def test_segment_predefined_split(mirror):
    ds = cached("segment")
    assert ds.X.shape == (2310, 19) and ds.n_classes == 7
    assert len(ds.split["train"]) == 1500 and len(ds.split["test"]) == 810
    for part, fname in (("train", "segment-challenge.arff"), ("test", "segment-test.arff")):
        data, meta = scipy.io.arff.loadarff(mirror / "uci" / fname)
        ref = np.column_stack([data[f].astype(float) for f in meta.names()[:-1]])
        np.testing.assert_array_equal(ds.X[ds.split[part]], ref)
        labels = [v.decode() for v in data["class"]]
        assert [ds.class_names[k] for k in ds.y[ds.split[part]]] == labels


def test_pima(mirror):
    ds = load("pima")
    ref = np.loadtxt(mirror / "uci/pima-indians-diabetes.csv", delimiter=",")
    np.testing.assert_array_equal(ds.X, ref[:, :8])
    np.testing.assert_array_equal(ds.y, ref[:, 8].astype(int))
    assert np.bincount(ds.y).tolist() == [500, 268]
    assert ds.class_names == ["tested_negative", "tested_positive"]


_TINY_KEEL = """@relation tiny
@attribute size real [0.0, 9.0]
@attribute colour {red, green, blue}
@attribute flag {0, 1}
@attribute Class {yes, no}
@inputs size, colour, flag
@outputs Class
@data
1.5, green, 1, no
2.0, blue, 0, yes
 3.25 ,red,1,yes
"""


def test_keel_nominal_features_and_missing_values(tmp_path):
    path = tmp_path / "tiny.dat"
    path.write_text(_TINY_KEEL)
    table = gd.read_attribute_file(path)
    X, raw, declared = gd._tabular.table_features(table, path)
    # text nominal -> position in the declared list; numeric nominal keeps its value
    np.testing.assert_array_equal(X, [[1.5, 1, 1], [2.0, 2, 0], [3.25, 0, 1]])
    assert raw.tolist() == ["no", "yes", "yes"] and declared == ["yes", "no"]
    path.write_text(_TINY_KEEL + "4.0, ?, 1, no\n")
    with pytest.raises(ValueError, match=r"1 rows have missing values.*line 12.*missing='drop'"):
        gd.read_attribute_file(path)
    assert gd.read_attribute_file(path, missing="drop").rows.shape == (3, 4)


def test_user_registry_adds_a_uci_style_dataset(tmp_path, monkeypatch):
    user_mirror = tmp_path / "my_mirror"
    (user_mirror / "mine").mkdir(parents=True)
    (user_mirror / "mine/tiny.dat").write_text(_TINY_KEEL)
    registry = tmp_path / "my_registry.toml"
    registry.write_text(
        f"""
[files."mine/tiny.dat"]
sha256 = "{_sha256(user_mirror / "mine/tiny.dat")}"
urls = ["https://example.org/tiny.dat"]
format = "KEEL"
licence = "made up for a test"

[datasets.tiny]
loader = "keel"
files = ["mine/tiny.dat"]
description = "three rows"
citation = "none"
"""
    )
    ds = load("tiny", mirror=user_mirror, registry=registry)
    assert ds.X.shape == (3, 3) and ds.class_names == ["yes", "no"]
    assert ds.y.tolist() == [1, 0, 0]
    assert ds.info["files"] == {"mine/tiny.dat": _sha256(user_mirror / "mine/tiny.dat")}
    monkeypatch.setenv("GRAPHDR_EXTRA_REGISTRY", str(registry))
    monkeypatch.setenv("GRAPHDR_DATA_MIRROR", str(user_mirror))
    assert "tiny" in gd.list_datasets()
    np.testing.assert_array_equal(load("tiny").X, ds.X)


# ----------------------------------------------------------------------------- user files


def test_licence_restricted_sets_need_a_path():
    for name in ("jaffe", "cohn_kanade"):
        with pytest.raises(ValueError, match=rf"never downloaded.*path=.*source: {name}, options"):
            load(name)


def test_user_file_npz_and_mat(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(6, 12))
    np.savez(tmp_path / "j.npz", X=X, y=np.array([2, 0, 2, 1, 0, 1]), image_shape=[3, 4])
    ds = load("jaffe", path=tmp_path / "j.npz")
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == [2, 0, 2, 1, 0, 1] and ds.image_shape == (3, 4)
    # .mat: MATLAB stores images column-major, as Deng Cai's files do
    images = rng.uniform(size=(4, 3, 5))
    fea = images.transpose(0, 2, 1).reshape(4, -1)  # column-major flattening
    scipy.io.savemat(tmp_path / "ck.mat", {"fea": fea, "gnd": np.array([[1], [2], [2], [7]])})
    ck = load("cohn_kanade", path=tmp_path / "ck.mat", image_shape=(3, 5))
    np.testing.assert_array_equal(ck.images(), images)
    assert ck.class_names == ["1", "2", "7"] and ck.y.tolist() == [0, 1, 1, 2]
    with pytest.raises(FileNotFoundError):
        load("jaffe", path=tmp_path / "absent.npz")


# ----------------------------------------------------------------------------- synthetic


def test_swiss_roll_classes_are_consecutive_pieces_of_the_roll():
    X, y, t = gd.make_swiss_roll_classes(600, 5, random_state=2)
    X_ref, t_ref = sklearn.datasets.make_swiss_roll(600, random_state=2)
    np.testing.assert_array_equal(X, X_ref)
    assert np.bincount(y).tolist() == [120] * 5
    order = np.argsort(t_ref)
    assert np.all(np.diff(y[order]) >= 0)  # classes increase along t
    ds = load("swiss_roll", n_samples=600, n_classes=5, random_state=2)
    np.testing.assert_array_equal(ds.y, y)


@pytest.mark.parametrize(("covariance", "shape"), [
    ("isotropic", (400,)), ("diagonal", (400, 2)), ("full", (400, 2, 2)),
])  # fmt: skip
def test_uncertain_toy_shapes(covariance, shape):
    ds = load("toy_uncertain", n_per_class=200, covariance=covariance, random_state=0)
    assert ds.X.shape == (400, 2) and ds.sample_variance.shape == shape
    S = ds.sample_variance
    full = (
        S[:, None, None] * np.eye(2)
        if S.ndim == 1
        else S
        if S.ndim == 3
        else S[:, :, None] * np.eye(2)
    )
    assert np.all(np.linalg.eigvalsh(full) > 0)


def test_uncertain_toy_law_of_total_covariance():
    # Cov(x | class) = class covariance + E[S_i]; checked on a large sample.
    X, y, S = gd.make_uncertain_toy(40000, covariance="full", random_state=5)
    for c in (0, 1):
        expected = gd.synthetic._TOY_CLASS_COV + S[y == c].mean(axis=0)
        np.testing.assert_allclose(np.cov(X[y == c].T), expected, atol=0.03)
        np.testing.assert_allclose(X[y == c].mean(axis=0), gd.synthetic._TOY_MEANS[c], atol=0.03)


def test_gaussian_mixture_is_seeded_per_class_and_has_the_stated_moments():
    X, y = gd.make_gaussian_mixture(6, 400, 256, random_state=0)
    X_small, _ = gd.make_gaussian_mixture(4, 400, 256, random_state=0)
    np.testing.assert_array_equal(X[:1600], X_small)  # class streams do not depend on n_classes
    assert np.bincount(y).tolist() == [400] * 6 and X.dtype == np.float64
    # within-class variance per coordinate: shared_scale^2 + noise^2 = 1.25 (defaults)
    within = np.mean([X[y == c].var(axis=0).mean() for c in range(6)])
    assert abs(within - 1.25) < 0.05
    X32, _ = gd.make_gaussian_mixture(6, 400, 256, random_state=0, dtype=np.float32)
    assert X32.dtype == np.float32
    ds = load("decaf_standin", n_classes=3, n_per_class=5, dim=32, dtype="float32")
    assert ds.X.shape == (15, 32) and ds.X.dtype == np.float32


@pytest.mark.parametrize("name", ["digits", "wine", "iris", "breast_cancer"])
def test_sklearn_bundled(name):
    ds = load(f"sklearn_{name}")
    ref = getattr(sklearn.datasets, f"load_{name}")()
    np.testing.assert_array_equal(ds.X, ref.data)
    np.testing.assert_array_equal(ds.y, ref.target)
    assert ds.class_names == [str(c) for c in ref.target_names]


# ----------------------------------------------------------------------------- prepared form


def test_npz_round_trip_and_identical_bytes(tmp_path, monkeypatch):
    ds = load("toy_uncertain", n_per_class=10)
    ds.split = {"train": np.arange(15), "test": np.arange(15, 20)}
    ds.info["note"] = "round trip"
    gd.save_npz(ds, tmp_path / "a.npz")
    back = gd.load_npz(tmp_path / "a.npz")
    for field in ("X", "y", "sample_variance"):
        np.testing.assert_array_equal(getattr(back, field), getattr(ds, field))
    assert back.class_names == ds.class_names and back.image_shape is None
    assert {k: v.tolist() for k, v in back.split.items()} == {
        k: v.tolist() for k, v in ds.split.items()
    }
    assert (back.name, back.description, back.source, back.info) == (
        ds.name, ds.description, ds.source, json.loads(json.dumps(ds.info))
    )  # fmt: skip
    # the bytes do not depend on the clock (zip members carry a fixed date)
    monkeypatch.setattr(time, "time", lambda: 2.0e9)
    gd.save_npz(ds, tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    with zipfile.ZipFile(tmp_path / "b.npz") as zf:
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_npz_keeps_images_and_split(mirror, tmp_path):
    ds = cached("segment")
    gd.save_npz(ds, tmp_path / "segment.npz", compress=True)
    back = gd.load_npz(tmp_path / "segment.npz")
    assert sorted(back.split) == ["test", "train"] and back.image_shape is None
    np.testing.assert_array_equal(back.X, ds.X)
    np.testing.assert_array_equal(back.split["test"], ds.split["test"])
    rel = "uci/segment-test.arff"
    assert back.info["files"][rel] == gd.file_entry(rel)["sha256"]
    yale = cached("yale")
    gd.save_npz(yale, tmp_path / "yale.npz")
    back = gd.load_npz(tmp_path / "yale.npz")
    assert back.image_shape == (32, 32) and back.split is None
    np.testing.assert_array_equal(back.images(), yale.images())


def test_dataset_validation_messages():
    X = np.zeros((4, 6))
    with pytest.raises(ValueError, match=r"class codes must lie in 0..1"):
        Dataset("d", X, np.array([0, 1, 2, 0]), ["a", "b"])
    with pytest.raises(ValueError, match=r"image_shape \(2, 2\) holds 4 pixels, but X has 6"):
        Dataset("d", X, np.array([0, 1, 1, 0]), ["a", "b"], image_shape=(2, 2))
    with pytest.raises(ValueError, match="sample_variance must have shape"):
        Dataset("d", X, np.array([0, 1, 1, 0]), ["a", "b"], sample_variance=np.ones(3))
    sub = Dataset("d", X, np.array([0, 1, 1, 0]), ["a", "b"]).subset([1, 2])
    assert sub.y.tolist() == [1, 1] and sub.n_classes == 2


_WITH_CLASS_SIZES = sorted(n for n in gd.list_datasets() if "class_sizes" in gd.dataset_entry(n))


@pytest.mark.parametrize("name", _WITH_CLASS_SIZES)
def test_registry_class_sizes_match_the_data(mirror, name):
    """The workflow's config checks trust these numbers (per-class split counts)."""
    ds = cached(name)
    counts = np.bincount(ds.y, minlength=ds.n_classes)
    entry = gd.dataset_entry(name)
    assert entry["class_sizes"] == [int(counts.min()), int(counts.max())]
    assert entry["shape"] == [ds.n_samples, ds.n_features, ds.n_classes]
