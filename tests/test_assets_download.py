"""Asset downloader: a synthetic SIMPLER source archive served from 127.0.0.1."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import threading
import zipfile

import pytest

from simpler_jax.assets import download as dl
from simpler_jax.assets.__main__ import main

COMMIT = dl.PINNED_COMMIT
WRAPPER = f"ManiSkill2_real2sim-{COMMIT}"

# Files a real source archive has under the folders the project needs ...
WANTED = {
    "LICENSE": b"MIT License\n",
    "data/custom/info_pick_custom_v0.json": b'{"opened_coke_can": {"bbox": [0.066, 0.066, 0.12]}}\n',
    "data/custom/mk_station.urdf": b"<robot name='mk_station'/>\n",
    "data/custom/models/opened_coke_can/collision.obj": b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    "data/custom/models/opened_coke_can/textured.obj": b"v 0 0 0\n",
    "data/real_inpainting/google_coke_can_real_eval_1.png": bytes(range(256)) * 8,
    "data/real_inpainting/bridge/bridge_real_eval_1.png": b"\x89PNG fake",
    "data/hab2_bench_assets/stages/Baked_sc1_staging_00.glb": b"glTF fake",
    "mani_skill2_real2sim/assets/descriptions/widowx_description/wx250s.urdf": b"<robot name='wx250s'/>\n",
    "mani_skill2_real2sim/assets/descriptions/googlerobot_description/"
    "google_robot_meta_sim_fix_wheel_fix_fingertip.urdf": b"<robot name='google'/>\n",
}
# ... and files it has elsewhere, which must not be extracted.
UNWANTED = {
    "README.md": b"# ManiSkill2_real2sim\n",
    "setup.py": b"print('no')\n",
    "data/other/big.bin": b"x" * 1000,
    "mani_skill2_real2sim/envs/sapien_env.py": b"import sapien\n",
    "mani_skill2_real2sim/assets/other.txt": b"not a description\n",
}
# Members that must never be written: (name, kind).
DECOYS = [
    ("../evil_parent", "file"),
    (f"{WRAPPER}/data/custom/../../../evil_dotdot", "file"),
    ("/tmp/simpler_jax_test_evil_absolute", "file"),
    (f"{WRAPPER}/data/custom/evil_symlink", "symlink"),
]


def _make_tar(path: pathlib.Path, files: dict[str, bytes], wrapper: str | None = WRAPPER, decoys=True) -> None:
    """Like GitHub's: one `<repo>-<commit>/` folder, the commit in a pax global header."""
    headers = {"comment": COMMIT} if wrapper else {}
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT, pax_headers=headers) as tf:
        names = sorted(files)
        if wrapper:
            info = tarfile.TarInfo(wrapper)
            info.type = tarfile.DIRTYPE
            tf.addfile(info)
        for rel in names:
            info = tarfile.TarInfo(f"{wrapper}/{rel}" if wrapper else rel)
            info.size = len(files[rel])
            tf.addfile(info, io.BytesIO(files[rel]))
        for name, kind in DECOYS if decoys else []:
            info = tarfile.TarInfo(name)
            if kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                tf.addfile(info)
            else:
                info.size = 5
                tf.addfile(info, io.BytesIO(b"evil\n"))


def _make_zip(path: pathlib.Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.comment = COMMIT.encode()
        zf.writestr(f"{WRAPPER}/", b"")
        for rel in sorted(files):
            zf.writestr(f"{WRAPPER}/{rel}", files[rel])
        zf.writestr("../evil_zip", b"evil\n")
        link = zipfile.ZipInfo(f"{WRAPPER}/data/custom/evil_zip_symlink")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, "/etc/passwd")


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves files; `/nolength/X` omits Content-Length, `/truncated/X` promises too much."""

    requests: list[str] = []

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        type(self).requests.append(self.path)
        mode, _, name = self.path.lstrip("/").partition("/")
        if mode in ("nolength", "truncated"):
            body = (pathlib.Path(self.directory) / name).read_bytes()
            self.send_response(200)
            if mode == "truncated":
                self.send_header("Content-Length", str(len(body) + 1000))
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(base URL, folder served, archive digests) for the synthetic archives."""
    root = tmp_path_factory.mktemp("served")
    _make_tar(root / f"{COMMIT}.tar.gz", WANTED | UNWANTED)
    _make_tar(root / "no_commit_in_name.tar.gz", WANTED)
    _make_zip(root / f"{COMMIT}.zip", WANTED | UNWANTED)
    _make_tar(root / "flat.tar.gz", WANTED, wrapper=None, decoys=False)
    _make_tar(root / "wrong.tar.gz", UNWANTED)
    (root / "garbage.tar.gz").write_bytes(b"<html>rate limited</html>")
    whole = (root / f"{COMMIT}.tar.gz").read_bytes()
    (root / "cut.tar.gz").write_bytes(whole[: len(whole) // 2])
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.iterdir()}
    handler = functools.partial(_Handler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root, digests
    httpd.shutdown()
    httpd.server_close()


def _files_under(root: pathlib.Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def _assert_no_leftovers(parent: pathlib.Path) -> None:
    """No temporary archive or extraction folder left next to the destination."""
    assert [p.name for p in parent.iterdir() if p.name.startswith(".")] == []


def _assert_no_evil(tmp_path: pathlib.Path) -> None:
    assert not [p for p in tmp_path.parent.rglob("evil*")]
    assert not os.path.exists("/tmp/simpler_jax_test_evil_absolute")


def test_download_extracts_only_needed_subtrees(server, tmp_path, caplog):
    base, _, digests = server
    dest = tmp_path / "cache" / "assets"
    url = f"{base}/{COMMIT}.tar.gz"
    with caplog.at_level("WARNING", logger=dl.__name__):
        root = dl.download_assets(dest, url=url, progress=False)
    assert root == dest
    assert _files_under(dest) == set(WANTED) | {dl.MANIFEST_NAME, dl.SOURCE_NAME}
    for rel, data in WANTED.items():
        assert (dest / rel).read_bytes() == data
    _assert_no_evil(tmp_path)
    _assert_no_leftovers(dest.parent)
    assert not any(p.is_symlink() for p in dest.rglob("*"))

    manifest = dl.read_manifest(dest)
    assert manifest == {rel: hashlib.sha256(data).hexdigest() for rel, data in WANTED.items()}
    lines = (dest / dl.MANIFEST_NAME).read_text().splitlines()
    assert lines == sorted(lines, key=lambda line: line.split("  ", 1)[1])  # sha256sum -c format

    source = json.loads((dest / dl.SOURCE_NAME).read_text())
    assert source["url"] == url and source["commit"] == COMMIT
    assert source["archive_sha256"] == digests[f"{COMMIT}.tar.gz"]
    assert source["file_count"] == len(WANTED) and source["downloaded_at"]
    assert "data/hab2_bench_assets" in source["subtrees"]
    assert sorted(source["skipped_members"]) == sorted(name for name, _ in DECOYS)
    assert "evil_parent" in caplog.text and "symlink" in caplog.text
    assert dl.verify_assets(dest) == []


def test_zip_unwrapped_and_renamed_archives(server, tmp_path):
    base, _, _ = server
    zipped = dl.download_assets(tmp_path / "z", url=f"{base}/{COMMIT}.zip", progress=False)
    assert json.loads((zipped / dl.SOURCE_NAME).read_text())["commit"] == COMMIT
    assert _files_under(zipped) == set(WANTED) | {dl.MANIFEST_NAME, dl.SOURCE_NAME}
    assert json.loads((zipped / dl.SOURCE_NAME).read_text())["skipped_members"] == [
        "../evil_zip", f"{WRAPPER}/data/custom/evil_zip_symlink"]
    flat = dl.download_assets(tmp_path / "f", url=f"{base}/flat.tar.gz", progress=False)
    assert dl.read_manifest(flat) == dl.read_manifest(zipped)
    assert json.loads((flat / dl.SOURCE_NAME).read_text())["commit"] is None
    renamed = dl.download_assets(tmp_path / "r", url=f"{base}/no_commit_in_name.tar.gz", progress=False)
    assert json.loads((renamed / dl.SOURCE_NAME).read_text())["commit"] == COMMIT  # from the tar header
    _assert_no_evil(tmp_path)


def test_checksum_match_and_mismatch(server, tmp_path):
    base, _, digests = server
    url = f"{base}/{COMMIT}.tar.gz"
    good = digests[f"{COMMIT}.tar.gz"]
    dest = dl.download_assets(tmp_path / "ok", url=url, sha256=good.upper(), progress=False)
    assert dl.verify_assets(dest) == []

    bad = "0" * 64
    with pytest.raises(dl.ChecksumError) as err:
        dl.download_assets(tmp_path / "bad", url=url, sha256=bad, progress=False)
    assert bad in str(err.value) and good in str(err.value)
    assert not (tmp_path / "bad").exists()
    _assert_no_leftovers(tmp_path)


def test_bad_digest_string_fails_before_downloading(server, tmp_path):
    base, _, _ = server
    _Handler.requests.clear()
    with pytest.raises(ValueError, match="64 hex"):
        dl.download_assets(tmp_path / "a", url=f"{base}/{COMMIT}.tar.gz", sha256="abc", progress=False)
    assert _Handler.requests == [] and list(tmp_path.iterdir()) == []


def test_verify_detects_changed_and_missing_files(server, tmp_path):
    base, _, _ = server
    dest = dl.download_assets(tmp_path / "a", url=f"{base}/{COMMIT}.tar.gz", progress=False)
    changed = "data/custom/models/opened_coke_can/collision.obj"
    removed = "data/real_inpainting/google_coke_can_real_eval_1.png"
    (dest / changed).write_bytes(b"v 9 9 9\n")
    (dest / removed).unlink()
    (dest / "data/custom/new_file.txt").write_text("not in the manifest")
    assert dl.verify_assets(dest) == sorted([changed, removed])
    (dest / dl.MANIFEST_NAME).unlink()
    with pytest.raises(FileNotFoundError, match="MANIFEST.sha256"):
        dl.verify_assets(dest)


def test_existing_destination_needs_overwrite(server, tmp_path):
    base, _, _ = server
    url = f"{base}/{COMMIT}.tar.gz"
    dest = tmp_path / "assets"
    dest.mkdir()  # an empty folder is fine
    dl.download_assets(dest, url=url, progress=False)
    (dest / "stale.txt").write_text("old copy")
    with pytest.raises(FileExistsError, match="overwrite"):
        dl.download_assets(dest, url=url, progress=False)
    assert (dest / "stale.txt").exists()
    dl.download_assets(dest, url=url, progress=False, overwrite=True)
    assert not (dest / "stale.txt").exists() and dl.verify_assets(dest) == []
    _assert_no_leftovers(tmp_path)


@pytest.mark.parametrize(
    "path, message",
    [
        ("wrong.tar.gz", "has no files under"),
        ("garbage.tar.gz", "neither a tar nor a zip"),
        ("cut.tar.gz", "damaged"),
        ("missing.tar.gz", "HTTP 404"),
        (f"truncated/{COMMIT}.tar.gz", "bytes"),
    ],
)
def test_failures_leave_nothing_behind(server, tmp_path, path, message):
    base, _, _ = server
    with pytest.raises(dl.DownloadError, match=message):
        dl.download_assets(tmp_path / "assets", url=f"{base}/{path}", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_no_content_length_and_local_path(server, tmp_path):
    base, served, _ = server
    a = dl.download_assets(tmp_path / "a", url=f"{base}/nolength/{COMMIT}.tar.gz", progress=False)
    b = dl.download_assets(tmp_path / "b", url=str(served / f"{COMMIT}.tar.gz"), progress=False)
    assert dl.read_manifest(a) == dl.read_manifest(b)
    assert len(dl.read_manifest(a)) == len(WANTED)


def test_default_destination_is_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SIMPLER_JAX_CACHE", str(tmp_path / "c"))
    assert dl.default_dest() == tmp_path / "c" / "assets"


@pytest.mark.parametrize(
    "name, parts",
    [
        ("a/b/c.txt", ("a", "b", "c.txt")),
        ("./a//b/", ("a", "b")),
        ("../evil", None),
        ("a/../../evil", None),
        ("a/..\\evil", None),
        ("/etc/passwd", None),
        ("\\\\server\\share", None),
        ("C:/evil", None),
        ("a\0b", None),
    ],
)
def test_safe_member_parts(name, parts):
    assert dl.safe_member_parts(name) == parts


def test_cli_download_and_verify(server, tmp_path, capsys):
    base, _, digests = server
    dest = tmp_path / "assets"
    url = f"{base}/{COMMIT}.tar.gz"
    argv = ["download", "--dest", str(dest), "--url", url, "--no-progress"]
    assert main([*argv, "--sha256", digests[f"{COMMIT}.tar.gz"]]) == 0
    assert str(dest) in capsys.readouterr().out
    assert main(["verify", "--dest", str(dest), "--no-progress"]) == 0
    assert "OK" in capsys.readouterr().out

    assert main(argv) == 1  # destination exists
    assert "--force" in capsys.readouterr().err
    assert main([*argv, "--force", "--sha256", "f" * 64]) == 1
    assert "f" * 64 in capsys.readouterr().err
    assert dl.verify_assets(dest) == []  # the failed --force left the old copy alone

    (dest / "mani_skill2_real2sim/assets/descriptions/widowx_description/wx250s.urdf").write_text("x")
    assert main(["verify", "--dest", str(dest), "--no-progress"]) == 1
    assert "wx250s.urdf" in capsys.readouterr().out
    assert main(["verify", "--dest", str(tmp_path / "nowhere"), "--no-progress"]) == 2


def test_cli_as_module(server, tmp_path):
    base, _, _ = server
    env = dict(os.environ, SIMPLER_JAX_CACHE=str(tmp_path / "cache"))
    run = functools.partial(subprocess.run, capture_output=True, text=True, env=env, timeout=60)
    help_text = run([sys.executable, "-m", "simpler_jax.assets", "download", "--help"]).stdout
    for option in ("--dest", "--url", "--sha256", "--no-progress", "--force"):
        assert option in help_text
    done = run([sys.executable, "-m", "simpler_jax.assets", "download", "--url",
                f"{base}/{COMMIT}.tar.gz", "--no-progress"])
    assert done.returncode == 0, done.stderr
    assert "downloading" not in done.stderr and "it/s" not in done.stderr  # no progress bars
    assert dl.verify_assets(tmp_path / "cache" / "assets") == []
    checked = run([sys.executable, "-m", "simpler_jax.assets", "verify", "--no-progress"])
    assert checked.returncode == 0 and "OK" in checked.stdout
