"""Command line: `python -m simpler_jax.assets {download,verify}`."""

from __future__ import annotations

import argparse
import os
import sys

from simpler_jax.assets.download import (
    DEFAULT_ARCHIVE_SHA256,
    DEFAULT_ARCHIVE_URL,
    MANIFEST_NAME,
    PINNED_COMMIT,
    REPOSITORY,
    ChecksumError,
    DownloadError,
    default_dest,
    download_assets,
    verify_assets,
)
from simpler_jax.assets.paths import ENV_ASSETS, ENV_CACHE, MissingAssetError

_DESCRIPTION = f"""\
Fetch and check the original SIMPLER asset files (robot URDFs and meshes,
object models, real background photos) from {REPOSITORY}
at commit {PINNED_COMMIT}.

simpler_jax looks for the assets in: the --assets flag of its tools, else
${ENV_ASSETS}, else ${ENV_CACHE}/assets (default
~/.cache/simpler_jax/assets), which is where `download` puts them unless
you pass --dest."""

_EPILOG = f"""\
examples:
  python -m simpler_jax.assets download
  python -m simpler_jax.assets download --dest /data/simpler_assets && export {ENV_ASSETS}=/data/simpler_assets
  python -m simpler_jax.assets download --url ./ManiSkill2_real2sim-{PINNED_COMMIT[:7]}.tar.gz   # offline copy
  python -m simpler_jax.assets verify"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m simpler_jax.assets",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{download,verify}")
    dest_help = f"asset root (default: {default_dest()}, i.e. ${ENV_CACHE}/assets)"

    download = commands.add_parser(
        "download",
        help="download the source archive and extract the asset folders",
        description=(
            "Download GitHub's source archive of the pinned commit, check its SHA-256 if "
            "given, and extract only data/custom, data/real_inpainting, "
            "mani_skill2_real2sim/assets/descriptions (and data/hab2_bench_assets if "
            f"present) into DIR, with {MANIFEST_NAME} and SOURCE.json. DIR appears only "
            "once everything is extracted."
        ),
    )
    download.add_argument("--dest", metavar="DIR", help=dest_help)
    download.add_argument(
        "--url", default=DEFAULT_ARCHIVE_URL,
        help="archive to fetch: http(s)/file URL or local path of a .tar.gz or .zip "
        "(default: %(default)s)",
    )
    download.add_argument(
        "--sha256", metavar="HEX", default=DEFAULT_ARCHIVE_SHA256,
        help="expected SHA-256 of the archive; on mismatch nothing is kept "
        "(default: not checked; the commit in the URL pins the content)",
    )
    download.add_argument("--force", action="store_true", help="replace DIR if it already holds files")
    download.add_argument("--no-progress", action="store_true", help="no progress bars")

    verify = commands.add_parser(
        "verify",
        help=f"re-hash an asset root against its {MANIFEST_NAME}",
        description=(
            f"Re-hash every file listed in DIR/{MANIFEST_NAME} and list the ones missing "
            "or changed. Exit status 0: all match; 1: some differ; 2: no manifest."
        ),
    )
    verify.add_argument("--dest", metavar="DIR", help=dest_help)
    verify.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    progress = not args.no_progress
    if args.command == "download":
        try:
            root = download_assets(
                args.dest, url=args.url, sha256=args.sha256, progress=progress, overwrite=args.force
            )
        except (ChecksumError, DownloadError, OSError, ValueError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        print(f"SIMPLER assets are in {root}")
        env_root = os.environ.get(ENV_ASSETS)
        if env_root and os.path.abspath(os.path.expanduser(env_root)) != str(root):
            print(f"note: ${ENV_ASSETS}={env_root} is set and takes precedence over this folder.")
        elif root != default_dest().absolute():
            print(f"use it with: export {ENV_ASSETS}={root}  (or --assets {root})")
        return 0

    root = args.dest if args.dest is not None else default_dest()
    try:
        bad = verify_assets(root, progress=progress)
    except (MissingAssetError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if bad:
        print(f"{len(bad)} file(s) missing or changed in {root}:")
        for rel in bad:
            print(f"  {rel}")
        return 1
    print(f"OK: every file in {root}/{MANIFEST_NAME} matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
