"""Tests for simpler_jax.data: TFRecord/Example decoding, Bridge + fractal loaders, rotations."""

from __future__ import annotations

import os
import pathlib
import shutil
import struct

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from simpler_jax.data import (
    DataFormatError,
    Episode,
    crc32c,
    encode_example,
    iter_tfrecord,
    load_bridge,
    load_episodes,
    load_fractal_npz,
    load_fractal_rlds,
    masked_crc32c,
    parse_example,
    write_tfrecord,
)
from simpler_jax.data import rotations as rot
from simpler_jax.data.tfrecord import _advance_scalar

SHARED_DATA = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data"
BRIDGE_DIR = SHARED_DATA / "bridge_dataset" / "1.0.0"
BRIDGE_TRAIN = BRIDGE_DIR / "bridge_dataset-train.tfrecord-00000-of-00001"
FRACTAL_DIR = SHARED_DATA / "fractal_sysid"

needs_bridge = pytest.mark.skipif(not BRIDGE_TRAIN.exists(), reason="shared Bridge sample missing")
needs_fractal = pytest.mark.skipif(not (FRACTAL_DIR / "with_contact_100.npz").exists(),
                                   reason="shared fractal sample missing")


@pytest.fixture(scope="module")
def bridge_train():
    return load_bridge(BRIDGE_DIR, split="train")


@pytest.fixture(scope="module")
def fractal_with_contact():
    return load_fractal_npz(FRACTAL_DIR / "with_contact_100.npz")


def _corr_and_sign(eps, lag=0):
    """Per-axis correlation of reached displacement vs command, and sign agreement."""
    dp, cmd, dr, cmdr = [], [], [], []
    for e in eps:
        n = len(e)
        if n < 2 + lag:
            continue
        dp.append(e.position[1 + lag:] - e.position[:n - 1 - lag])
        cmd.append(e.delta_translation[:n - 1 - lag])
        rel = e.rotation[1 + lag:] @ np.swapaxes(e.rotation[:n - 1 - lag], -1, -2)
        dr.append(rot.matrix_to_axis_angle(rel))
        cmdr.append(e.delta_rotation[:n - 1 - lag])
    dp, cmd, dr, cmdr = map(np.concatenate, (dp, cmd, dr, cmdr))
    corr_p = [np.corrcoef(dp[:, i], cmd[:, i])[0, 1] for i in range(3)]
    corr_r = [np.corrcoef(dr[:, i], cmdr[:, i])[0, 1] for i in range(3)]
    big = np.abs(cmd) > 2e-3  # ignore near-zero commands for the sign test
    sign = np.mean(np.sign(dp[big]) == np.sign(cmd[big]))
    return np.array(corr_p), np.array(corr_r), sign


def _check_episode_arrays(e: Episode):
    T = len(e)
    assert T >= 1
    assert e.position.shape == (T, 3) and e.rotation.shape == (T, 3, 3)
    assert e.quaternion.shape == (T, 4)
    assert e.delta_translation.shape == (T, 3) and e.delta_rotation.shape == (T, 3)
    assert e.gripper.shape == (T,)
    for a in (e.position, e.rotation, e.quaternion, e.delta_translation, e.delta_rotation):
        assert a.dtype == np.float64 and np.all(np.isfinite(a))
    eye = np.broadcast_to(np.eye(3), (T, 3, 3))
    np.testing.assert_allclose(e.rotation @ np.swapaxes(e.rotation, -1, -2), eye, atol=1e-9)
    np.testing.assert_allclose(np.linalg.det(e.rotation), 1.0, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(e.quaternion, axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(rot.quat_wxyz_to_matrix(e.quaternion), e.rotation, atol=1e-9)
    assert e.pose7.shape == (T, 7)


# --------------------------------------------------------------------------- rotations


def test_rotations_against_scipy():
    rng = np.random.default_rng(0)
    rpy = rng.uniform(-np.pi, np.pi, (500, 3))
    rpy[:, 1] *= 0.49
    R = rot.euler_sxyz_to_matrix(rpy)
    # transforms3d 'sxyz' == scipy extrinsic 'xyz' == Rz(yaw) Ry(pitch) Rx(roll)
    ref = Rotation.from_euler("xyz", rpy)
    np.testing.assert_allclose(R, ref.as_matrix(), atol=1e-12)
    np.testing.assert_allclose(rot.matrix_to_euler_sxyz(R), rpy, atol=1e-9)
    q = rot.matrix_to_quat_wxyz(R)
    q_ref = ref.as_quat(scalar_first=True)
    q_ref *= np.where(q_ref[:, :1] < 0, -1.0, 1.0)
    np.testing.assert_allclose(q, q_ref, atol=1e-12)
    assert np.all(q[:, 0] >= 0)
    np.testing.assert_allclose(rot.quat_wxyz_to_matrix(q), R, atol=1e-12)
    np.testing.assert_allclose(rot.matrix_to_axis_angle(R), ref.as_rotvec(), atol=1e-9)
    np.testing.assert_allclose(rot.euler_sxyz_to_axis_angle(rpy), ref.as_rotvec(), atol=1e-9)
    np.testing.assert_allclose(rot.quat_wxyz_to_xyzw(q), q_ref[:, [1, 2, 3, 0]], atol=1e-12)
    np.testing.assert_allclose(rot.quat_xyzw_to_wxyz(rot.quat_wxyz_to_xyzw(q)), q)


def test_axis_angle_round_trips_including_edge_cases():
    rng = np.random.default_rng(1)
    v = rng.normal(size=(500, 3))
    v *= rng.uniform(0, np.pi - 1e-6, (500, 1)) / np.linalg.norm(v, axis=1, keepdims=True)
    v = np.concatenate([v, [[0, 0, 0], [1e-10, -2e-10, 0], [1e-5, 0, 0]]])
    np.testing.assert_allclose(rot.axis_angle_to_matrix(v), Rotation.from_rotvec(v).as_matrix(),
                               atol=1e-12)
    np.testing.assert_allclose(rot.matrix_to_axis_angle(rot.axis_angle_to_matrix(v)), v, atol=1e-9)
    np.testing.assert_allclose(rot.quat_wxyz_to_axis_angle(rot.axis_angle_to_quat_wxyz(v)), v,
                               atol=1e-9)
    # angle pi: the axis is recovered up to sign
    for axis in np.eye(3):
        w = rot.matrix_to_axis_angle(rot.axis_angle_to_matrix(np.pi * axis))
        np.testing.assert_allclose(np.abs(w), np.pi * axis, atol=1e-9)
    # batched leading dims are kept
    assert rot.axis_angle_to_matrix(np.zeros((2, 5, 3))).shape == (2, 5, 3, 3)
    assert rot.euler_sxyz_to_matrix(np.zeros((3,))).shape == (3, 3)


def test_bridge_rpy_zero_points_gripper_down():
    R = rot.bridge_rpy_to_matrix(np.zeros(3))
    np.testing.assert_array_equal(R, [[0, 0, 1], [0, 1, 0], [-1, 0, 0]])
    # the EE x axis (the gripper's approach direction) points straight down
    np.testing.assert_allclose(R[:, 0], [0, 0, -1])
    np.testing.assert_allclose(R, Rotation.from_euler("y", 90, degrees=True).as_matrix(),
                               atol=1e-12)


# --------------------------------------------------------------------------- framing / protobuf


def test_crc32c_vectors_and_chunked_path():
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(b"\x00" * 32) == 0x8A9136AA  # RFC 3720 B.4
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E
    assert crc32c(b"") == 0
    rng = np.random.default_rng(2)
    for n in (4095, 4096, 4097, 70001, 262144 + 3):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert crc32c(data) == _advance_scalar(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    assert masked_crc32c(b"") == 0xA282EAD8


def test_example_proto_round_trip_and_wire_variants(tmp_path):
    feats = {
        "steps/action": np.arange(14, dtype=np.float32) / 7,
        "steps/is_first": np.array([1, 0], dtype=bool),
        "neg": np.array([-1, 2**40, -(2**63)], dtype=np.int64),
        "steps/language_instruction": ["pick the can", "pick the can"],
        "empty_floats": np.zeros(0, np.float32),
        "utf8": ["héllo".encode("utf-8")],
    }
    buf = encode_example(feats)
    out = parse_example(buf)
    np.testing.assert_array_equal(out["steps/action"], feats["steps/action"])
    np.testing.assert_array_equal(out["steps/is_first"], [1, 0])
    np.testing.assert_array_equal(out["neg"], feats["neg"])
    assert out["steps/language_instruction"] == [b"pick the can"] * 2
    assert out["empty_floats"].shape == (0,)
    assert parse_example(buf, keys=["neg"]).keys() == {"neg"}

    # unpacked repeated scalars + an unknown field are accepted as a protobuf parser would
    def ld(field, payload):
        return bytes([field << 3 | 2, len(payload)]) + payload
    floats = b"".join(bytes([0x0D]) + struct.pack("<f", v) for v in (1.5, -2.0))
    ints = bytes([0x08, 0x05, 0x08, 0x07])
    unknown = bytes([0x78, 0x01])  # field 15 varint
    entry_f = ld(1, b"f") + ld(2, ld(2, floats) + unknown)
    entry_i = ld(1, b"i") + ld(2, ld(3, ints))
    out = parse_example(ld(1, ld(1, entry_f) + ld(1, entry_i)) + unknown)
    np.testing.assert_array_equal(out["f"], [1.5, -2.0])
    np.testing.assert_array_equal(out["i"], [5, 7])

    with pytest.raises(DataFormatError, match="malformed"):
        parse_example(buf[:-3], path="x.tfrecord", record=4)

    path = tmp_path / "t.tfrecord"
    assert write_tfrecord(path, [b"", buf, b"abc"]) == 3
    assert list(iter_tfrecord(path)) == [b"", buf, b"abc"]


# --------------------------------------------------------------------------- real Bridge sample


@needs_bridge
def test_bridge_real_sample_counts_shapes_and_metadata(bridge_train):
    eps = bridge_train
    assert len(eps) == 25
    for i, e in enumerate(eps):
        assert len(e) == 10
        _check_episode_arrays(e)
        assert e.dataset == "bridge_dataset" and e.control_freq == 5.0
        assert e.source == str(BRIDGE_TRAIN) and e.index == i
        assert isinstance(e.instruction, str) and e.instruction.strip()
        assert np.all((e.gripper >= 0) & (e.gripper <= 1))
        assert e.extras["is_first"][0] and not e.extras["is_first"][1:].any()
        assert not e.extras["is_last"].any()  # the sample is cut to its first 10 steps
        assert e.extras["episode_file_path"].endswith("out.npy")
        g = e.extras["gripper_state"]
        assert g.shape == (10,) and np.all((g > 0) & (g < 1.2))
    assert {e.instruction for e in eps} >= {"put carrot on plate", "turn lever vertical to front"}
    # the commanded gripper is mostly binary (1 = open), with a few in-between values
    g = np.concatenate([e.gripper for e in eps])
    assert np.mean((g == 0) | (g == 1)) > 0.9 and np.mean(g == 1) > 0.5


@needs_bridge
def test_bridge_orientation_convention(bridge_train):
    for e in bridge_train:
        rpy = e.extras["rpy"]
        M = np.array([[0, 0, 1], [0, 1, 0], [-1, 0, 0]])
        np.testing.assert_allclose(e.rotation, Rotation.from_euler("xyz", rpy).as_matrix() @ M,
                                   atol=1e-12)
        np.testing.assert_allclose(
            e.delta_rotation, Rotation.from_euler("xyz", e.extras["rotation_delta_rpy"]).as_rotvec(),
            atol=1e-9)
        assert np.all(e.quaternion[:, 0] >= 0)
        # the real WidowX works top-down: the approach axis points mostly down
        assert np.all(e.rotation[:, 2, 0] < -0.5)


@needs_bridge
def test_bridge_state_follows_commanded_deltas(bridge_train):
    corr_p, corr_r, sign = _corr_and_sign(bridge_train)
    # the real arm tracks the commands only partially (gain ~0.8, ~1 step lag)
    assert np.all(corr_p > 0.6), corr_p
    assert np.all(corr_r > 0.6), corr_r  # base-frame axis-angle convention is right
    assert sign > 0.75, sign
    dp = np.concatenate([e.position[1:] - e.position[:-1] for e in bridge_train])
    cmd = np.concatenate([e.delta_translation[:-1] for e in bridge_train])
    gain = np.sum(dp * cmd) / np.sum(cmd * cmd)
    assert 0.3 < gain < 1.3, gain


@needs_bridge
def test_bridge_val_split_holds_same_episodes(bridge_train):
    val = load_bridge(BRIDGE_DIR, split="val")
    assert len(val) == 25
    key = lambda e: (e.extras["episode_file_path"], e.extras["episode_id"])  # noqa: E731
    by_key = {key(e): e for e in bridge_train}
    assert len(by_key) == 25 and {key(e) for e in val} == set(by_key)
    for e in val:
        np.testing.assert_array_equal(e.position, by_key[key(e)].position)
    # load_episodes dispatches on content
    assert len(load_episodes(BRIDGE_TRAIN)) == 25


# --------------------------------------------------------------------------- OXE bridge 0.1.0 layout


def _to_oxe_bridge_record(feats: dict) -> bytes:
    """Re-express a bridge_dataset 1.0.0 record in the OXE bridge 0.1.0 feature layout."""
    action = feats["steps/action"].reshape(-1, 7)
    T = action.shape[0]
    return encode_example({
        "episode_id": [b"oxe-ep"],
        "steps/action/world_vector": action[:, :3],
        "steps/action/rotation_delta": action[:, 3:6],
        "steps/action/open_gripper": action[:, 6] > 0.5,
        "steps/action/terminate_episode": np.zeros(T, np.float32),
        "steps/observation/state": feats["steps/observation/state"],
        "steps/observation/image": feats["steps/observation/image_0"],
        "steps/observation/natural_language_instruction": feats["steps/language_instruction"],
        "steps/observation/natural_language_embedding": np.zeros(T * 512, np.float32),
        "steps/is_first": feats["steps/is_first"],
        "steps/is_last": feats["steps/is_last"],
        "steps/is_terminal": feats["steps/is_terminal"],
        "steps/reward": feats["steps/reward"],
    })


@needs_bridge
def test_oxe_bridge_layout_matches_bridge_dataset(tmp_path, bridge_train):
    recs = [parse_example(p) for p in list(iter_tfrecord(BRIDGE_TRAIN))[:5]]
    d = tmp_path / "bridge" / "0.1.0"
    d.mkdir(parents=True)
    write_tfrecord(d / "bridge-train.tfrecord-00000-of-00002", map(_to_oxe_bridge_record, recs[:3]))
    write_tfrecord(d / "bridge-train.tfrecord-00001-of-00002", map(_to_oxe_bridge_record, recs[3:]))
    eps = load_bridge(d)
    assert [(pathlib.Path(e.source).name[-14:], e.index) for e in eps] == [
        ("00000-of-00002", 0), ("00000-of-00002", 1), ("00000-of-00002", 2),
        ("00001-of-00002", 0), ("00001-of-00002", 1)]
    for e, ref in zip(eps, bridge_train[:5]):
        assert e.dataset == "bridge_oxe" and e.extras["episode_id"] == "oxe-ep"
        assert e.instruction == ref.instruction
        for f in ("position", "rotation", "quaternion", "delta_translation", "delta_rotation"):
            np.testing.assert_array_equal(getattr(e, f), getattr(ref, f))
        np.testing.assert_array_equal(e.gripper, ref.gripper > 0.5)  # open_gripper is a bool
    with pytest.raises(ValueError, match="unknown Bridge schema"):
        load_bridge(d, schema="nope")
    # forcing the wrong schema names the missing key
    with pytest.raises(DataFormatError, match="steps/action'"):
        load_bridge(d, schema="bridge_dataset")


# --------------------------------------------------------------------------- fractal npz


@needs_fractal
@pytest.mark.parametrize("name, n_eps, n_steps", [("with_contact_100", 100, 3745),
                                                  ("no_contact_100", 100, 1305)])
def test_fractal_npz_real(name, n_eps, n_steps):
    path = FRACTAL_DIR / f"{name}.npz"
    eps = load_fractal_npz(path)
    raw = np.load(path)
    assert len(eps) == n_eps and sum(len(e) for e in eps) == n_steps
    lengths = np.array([len(e) for e in eps])
    np.testing.assert_array_equal(lengths, raw["episode_length"])
    starts = np.array([e.extras["step_offset"] for e in eps])
    np.testing.assert_array_equal(starts, raw["episode_start"])
    np.testing.assert_array_equal(starts, np.concatenate([[0], np.cumsum(lengths)[:-1]]))
    np.testing.assert_array_equal(np.concatenate([e.position for e in eps]), raw["pose"][:, :3])
    np.testing.assert_array_equal(np.concatenate([e.delta_rotation for e in eps]),
                                  raw["rotation_delta"])
    np.testing.assert_array_equal(np.concatenate([e.delta_translation for e in eps]),
                                  raw["world_vector"])
    np.testing.assert_allclose(np.linalg.norm(raw["pose"][:, 3:], axis=1), 1.0, atol=1e-6)
    q = np.concatenate([e.quaternion for e in eps])
    np.testing.assert_allclose(q, raw["pose"][:, 3:], atol=1e-6)  # wxyz, sign as stored
    R = np.concatenate([e.rotation for e in eps])
    np.testing.assert_allclose(R, Rotation.from_quat(raw["pose"][:, 3:], scalar_first=True)
                               .as_matrix(), atol=1e-9)
    for i, e in enumerate(eps):
        _check_episode_arrays(e)
        assert e.index == i and e.source == str(path) and e.dataset == "fractal_npz"
        assert not e.has_gripper and e.instruction == "" and e.control_freq == 3.0


@needs_fractal
def test_fractal_npz_tracks_commands_with_lag(fractal_with_contact):
    c0, r0, _ = _corr_and_sign(fractal_with_contact, lag=0)
    c1, r1, _ = _corr_and_sign(fractal_with_contact, lag=1)
    assert np.all(c0 > 0.5) and np.all(r0 > 0.5), (c0, r0)  # rotvec-in-base-frame convention
    assert c1.mean() > c0.mean() and r1.mean() > r0.mean()  # ~one step of actuation lag


# --------------------------------------------------------------------------- fractal RLDS layout


def _fractal_record(e: Episode, instruction: str) -> bytes:
    """An RT-1 fractal RLDS record (xyzw quaternions) with a dummy step 0 prepended."""
    pose = np.concatenate([e.position, rot.quat_wxyz_to_xyzw(e.quaternion)], axis=1)
    pose = np.concatenate([pose[:1] + 0.01, pose])
    T = pose.shape[0]
    world = np.concatenate([np.full((1, 3), 9.0), e.delta_translation])
    rvec = np.concatenate([np.full((1, 3), 9.0), e.delta_rotation])
    grip = np.where(np.arange(T) % 2, 1.0, -1.0)
    return encode_example({
        "aspects/success": np.array([1]),
        "steps/observation/base_pose_tool_reached": pose,
        "steps/observation/gripper_closed": np.zeros(T),
        "steps/observation/natural_language_instruction": [instruction] * T,
        "steps/observation/image": [b"\xff\xd8jpeg"] * T,
        "steps/action/world_vector": world,
        "steps/action/rotation_delta": rvec,
        "steps/action/gripper_closedness_action": grip,
        "steps/action/terminate_episode": np.zeros((T, 3), np.int32),
        "steps/is_first": np.arange(T) == 0,
        "steps/is_last": np.arange(T) == T - 1,
        "steps/is_terminal": np.arange(T) == T - 1,
        "steps/reward": np.zeros(T, np.float32),
    })


@needs_fractal
def test_fractal_rlds_layout_drops_step0_and_reorders_quaternions(tmp_path, fractal_with_contact):
    src = fractal_with_contact[:4]
    d = tmp_path / "fractal20220817_data" / "0.1.0"
    d.mkdir(parents=True)
    write_tfrecord(d / "fractal20220817_data-train.tfrecord-00000-of-00001",
                   [_fractal_record(e, f"pick object {i}") for i, e in enumerate(src)])
    eps = load_fractal_rlds(d)
    assert len(eps) == 4
    for i, (e, ref) in enumerate(zip(eps, src)):
        _check_episode_arrays(e)
        assert len(e) == len(ref) and e.index == i and e.dataset == "fractal_rlds"
        assert e.instruction == f"pick object {i}"
        np.testing.assert_allclose(e.position, ref.position, atol=1e-6)  # float32 storage
        np.testing.assert_allclose(e.quaternion, ref.quaternion, atol=1e-6)
        np.testing.assert_allclose(e.delta_translation, ref.delta_translation, atol=1e-6)
        np.testing.assert_allclose(e.delta_rotation, ref.delta_rotation, atol=1e-6)
        np.testing.assert_array_equal(e.gripper, np.where(np.arange(1, len(e) + 1) % 2, 1.0, -1.0))
        assert not e.extras["is_first"].any() and e.extras["is_last"][-1]
    kept = load_fractal_rlds(d, drop_first_step=False)
    assert [len(e) for e in kept] == [len(e) + 1 for e in eps]
    assert kept[0].extras["is_first"][0]
    assert len(load_episodes(d)) == 4 and load_episodes(d)[0].dataset == "fractal_rlds"


# --------------------------------------------------------------------------- corruption


def _copy(src: pathlib.Path, dst: pathlib.Path) -> pathlib.Path:
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o644)
    return dst


def _record_offsets(path):
    """(header offset, payload length) of every record."""
    data = pathlib.Path(path).read_bytes()
    out, off = [], 0
    while off < len(data):
        (n,) = struct.unpack("<Q", data[off:off + 8])
        out.append((off, n))
        off += 16 + n
    return out


@needs_bridge
def test_flipped_payload_byte_is_a_crc_error_naming_file_and_record(tmp_path):
    bad = _copy(BRIDGE_TRAIN, tmp_path / "bridge_dataset-train.tfrecord-00000-of-00001")
    off, n = _record_offsets(bad)[3]
    data = bytearray(bad.read_bytes())
    payload = bytes(data[off + 12:off + 12 + n])
    pos = off + 12 + payload.index(b"\xff\xd8\xff") + 200  # inside a JPEG: protobuf stays valid
    data[pos] ^= 0x5A
    bad.write_bytes(bytes(data))
    with pytest.raises(DataFormatError) as ei:
        load_bridge(bad)
    err = ei.value
    assert isinstance(err, ValueError)
    assert str(bad) in str(err) and "record 3" in str(err) and "CRC" in str(err)
    assert err.path == str(bad) and err.record == 3
    # without CRC checks the (undecoded) image corruption goes unnoticed
    assert len(load_bridge(bad, verify_crc=False)) == 25


@needs_bridge
def test_flipped_length_byte_and_truncation_raise(tmp_path):
    recs = _record_offsets(BRIDGE_TRAIN)
    bad = _copy(BRIDGE_TRAIN, tmp_path / "len.tfrecord")
    data = bytearray(bad.read_bytes())
    data[recs[2][0] + 1] ^= 0x01
    bad.write_bytes(bytes(data))
    with pytest.raises(DataFormatError, match=r"len\.tfrecord: record 2: corrupt.*length"):
        load_bridge(bad)

    size = BRIDGE_TRAIN.stat().st_size
    for cut, rec in ((size - 1, 24), (recs[10][0] + 5, 10), (recs[10][0] + 100, 10)):
        short = tmp_path / f"cut{cut}.tfrecord"
        short.write_bytes(BRIDGE_TRAIN.read_bytes()[:cut])
        with pytest.raises(DataFormatError, match="truncated") as ei:
            load_bridge(short)
        assert str(short) in str(ei.value) and ei.value.record == rec
        # also caught without CRC checks
        with pytest.raises(DataFormatError, match="truncated"):
            load_bridge(short, verify_crc=False)
    # a file cut exactly at a record boundary is a valid shorter file
    whole = tmp_path / "boundary.tfrecord"
    whole.write_bytes(BRIDGE_TRAIN.read_bytes()[:recs[10][0]])
    assert len(load_bridge(whole)) == 10


def test_missing_feature_and_wrong_shape_in_tfrecord(tmp_path):
    T = 4
    good = {
        "steps/observation/state": np.zeros((T, 7), np.float32),
        "steps/action/world_vector": np.zeros((T, 3), np.float32),
        "steps/action/rotation_delta": np.zeros((T, 3), np.float32),
        "steps/action/open_gripper": np.ones(T, bool),
        "steps/observation/natural_language_instruction": ["x"] * T,
    }
    missing = {k: v for k, v in good.items() if k != "steps/action/rotation_delta"}
    wrong = dict(good, **{"steps/observation/state": np.zeros(T * 7 - 1, np.float32)})
    wrong_T = dict(good, **{"steps/action/world_vector": np.zeros((T + 1, 3), np.float32)})
    path = tmp_path / "bridge-train.tfrecord-00000-of-00001"
    cases = [(missing, "steps/action/rotation_delta"), (wrong, "multiple"),
             (wrong_T, "expected 4 steps")]
    for feats, msg in cases:
        write_tfrecord(path, [encode_example(good), encode_example(feats)])
        with pytest.raises(DataFormatError, match=msg) as ei:
            load_bridge(path)
        assert ei.value.record == 1 and str(path) in str(ei.value)
    # not a Bridge record at all
    write_tfrecord(path, [encode_example({"foo": np.zeros(2, np.float32)})])
    with pytest.raises(DataFormatError, match="not a Bridge RLDS record"):
        load_bridge(path)
    # fractal: quaternions that are not unit -> wrong layout / corrupt
    def fractal(n, qw):
        return encode_example({
            "steps/observation/base_pose_tool_reached": np.tile([0, 0, 0, 0, 0, 0, qw], (n, 1)),
            "steps/action/world_vector": np.zeros((n, 3)),
            "steps/action/rotation_delta": np.zeros((n, 3)),
            "steps/action/gripper_closedness_action": np.zeros((n, 1)),
            "steps/observation/natural_language_instruction": [""] * n,
        })
    write_tfrecord(path, [fractal(T, 1.0), fractal(T, 3.0)])
    with pytest.raises(DataFormatError, match="record 1: quaternion at step 0 has norm 3"):
        load_fractal_rlds(path)
    write_tfrecord(path, [fractal(1, 1.0)])
    with pytest.raises(DataFormatError, match="none left"):
        load_fractal_rlds(path)
    assert len(load_fractal_rlds(path, drop_first_step=False)) == 1
    with pytest.raises(FileNotFoundError, match="split 'test'"):
        load_bridge(tmp_path, split="test")


@needs_fractal
def test_npz_missing_key_wrong_shape_and_corrupt(tmp_path):
    raw = dict(np.load(FRACTAL_DIR / "no_contact_100.npz"))
    p = tmp_path / "missing.npz"
    np.savez(p, **{k: v for k, v in raw.items() if k != "rotation_delta"})
    with pytest.raises(DataFormatError) as ei:
        load_fractal_npz(p)
    assert "'rotation_delta'" in str(ei.value) and str(p) in str(ei.value)
    assert ei.value.key == "rotation_delta" and isinstance(ei.value, ValueError)

    p = tmp_path / "shape.npz"
    np.savez(p, **dict(raw, world_vector=raw["world_vector"][:, :2]))
    with pytest.raises(DataFormatError, match=r"shape.npz: key 'world_vector'.*shape"):
        load_fractal_npz(p)

    p = tmp_path / "bounds.npz"
    length = raw["episode_length"].copy()
    length[7] += 10_000
    np.savez(p, **dict(raw, episode_length=length))
    with pytest.raises(DataFormatError, match="episode 7"):
        load_fractal_npz(p)

    p = tmp_path / "cut.npz"
    p.write_bytes((FRACTAL_DIR / "no_contact_100.npz").read_bytes()[:5000])
    with pytest.raises(DataFormatError, match="cut.npz"):
        load_fractal_npz(p)
