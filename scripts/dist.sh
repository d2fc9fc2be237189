#!/usr/bin/env bash
# `make dist`: builds every installable artifact of this platform (x86_64 Linux, glibc) into
# dist/, from one release build of the core in one target directory:
#   - Python: an abi3 wheel for CPython >= 3.9 whose manylinux tag maturin's policy check
#     confirms (and `auditwheel show` agrees), and an sdist that builds from source;
#   - Node (napi-rs's layout): `leaseq` (JavaScript and types, no install script) and
#     `leaseq-linux-x64-gnu` (the prebuilt addon), which the first lists as an optional dependency;
#   - C: libleaseq-<version>-x86_64-linux-gnu.tar.gz: lib/libleaseq.so.<version> (soname
#     libleaseq.so.<major>) with its symlinks, lib/libleaseq.a, include/leaseq.h, a
#     relocatable lib/pkgconfig/leaseq.pc and share/leaseq/valgrind.supp;
#   - the CLI: not yet (see below);
#   - SHA256SUMS.
# Other platforms come from the release workflow (.github/workflows/release.yml).
#
# Needs Rust, Python 3 and Node with npm; installs its Python build tools (maturin, auditwheel and
# ziglang, pinned) into target/dist-tools. Environment: LEASEQ_MANYLINUX (default manylinux_2_17)
# is the wheel's glibc floor, LEASEQ_DIST (default dist/) the output directory.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
CARGO=${CARGO:-cargo}
dist="${LEASEQ_DIST:-$root/dist}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
manylinux="${LEASEQ_MANYLINUX:-manylinux_2_17}"
say() { echo "dist: $*" >&2; }
die() { say "error: $*"; exit 1; }

triple="$(rustc -vV | sed -n 's/^host: //p')"
[ "$triple" = x86_64-unknown-linux-gnu ] ||
  die "this script packages x86_64-unknown-linux-gnu; $triple comes from the release workflow"
# One explicit --target for every build (maturin, the addon, the C library), so that all three
# share compiled dependencies in target/<triple>/release.
built="$target_dir/$triple/release"

version="$(scripts/version.sh)"
scripts/version.sh check >&2
major="${version%%.*}"
soname="libleaseq.so.$major"

# ---- tools -----------------------------------------------------------------------------------
# maturin builds the wheel and the sdist; auditwheel checks the tag a second time; zig (from
# PyPI's ziglang) links against glibc $manylinux's symbols instead of this machine's newer ones.
tools="$target_dir/dist-tools"
if [ ! -x "$tools/bin/python" ] || ! "$tools/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$tools"
  python3 -m venv "$tools" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
fi
"$tools/bin/python" -m pip install -q --disable-pip-version-check \
  maturin==1.16.0 auditwheel==6.8.2 ziglang==0.17.0
export PATH="$tools/bin:$PATH"

rm -rf "$dist"
mkdir -p "$dist"
work="$(mktemp -d "${TMPDIR:-/tmp}/leaseq-dist.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# A linker for the C library and the Node addon that targets the same glibc as the wheel: zig cc
# for x86_64-linux-gnu.<glibc version>, through maturin's wrapper (which drops the gcc-only flags
# rustc passes), as `maturin build --zig` does for the wheel.
glibc="$(sed -n 's/^manylinux_\([0-9]*\)_\([0-9]*\)$/\1.\2/p' <<<"$manylinux")"
[ -n "$glibc" ] || die "LEASEQ_MANYLINUX must look like manylinux_2_17, not $manylinux"
zigcc="$tools/zigcc-$glibc"
cat >"$zigcc" <<EOF
#!/bin/sh
# rustc's linker: zig cc for x86_64 Linux with glibc $glibc (written by scripts/dist.sh).
export CARGO_ZIGBUILD_ZIG_COMMAND="$tools/bin/python" CARGO_ZIGBUILD_ZIG_COMMAND_ARGS="-m ziglang"
exec "$tools/bin/maturin" zig cc -- -fno-sanitize=all -target x86_64-linux-gnu.$glibc "\$@"
EOF
chmod +x "$zigcc"

# ---- Rust: the C library and the Node addon, in one release build ---------------------------
say "C library and Node addon (release; soname $soname; glibc $glibc)"
LEASEQ_SONAME="$soname" "$CARGO" build -q --release --target "$triple" -p leaseq-ffi -p leaseq-node --lib \
  --config "target.$triple.linker='$zigcc'" --config 'profile.release.strip="symbols"'
readelf -d "$built/libleaseq.so" | grep -q "(SONAME).*\[$soname\]" ||
  die "libleaseq.so was linked without the soname $soname"

# ---- C: libleaseq-<version>-x86_64-linux-gnu.tar.gz -------------------------------------------
c_name="libleaseq-$version-x86_64-linux-gnu"
c_stage="$work/$c_name"
mkdir -p "$c_stage/lib/pkgconfig" "$c_stage/include" "$c_stage/share/leaseq"
cp "$built/libleaseq.so" "$c_stage/lib/libleaseq.so.$version"
ln -s "libleaseq.so.$version" "$c_stage/lib/$soname"
ln -s "$soname" "$c_stage/lib/libleaseq.so"
cp "$built/libleaseq.a" "$c_stage/lib/libleaseq.a"
# The standard library inside it comes with debug information: a quarter of its size.
strip --strip-debug "$c_stage/lib/libleaseq.a"
cp ffi-c/include/leaseq.h "$c_stage/include/leaseq.h"
cp ffi-c/valgrind.supp "$c_stage/share/leaseq/valgrind.supp"
# Relocatable: the prefix is where the .pc file lies (pkg-config's ${pcfiledir}), so the
# tarball works wherever it is unpacked. The static link's system libraries come from the
# Makefile that installs from source, so the two cannot drift.
native_libs="$(sed -n 's/^NATIVE_LIBS := //p' ffi-c/Makefile)"
sed -e 's|@PREFIX@|${pcfiledir}/../..|' -e 's|@LIBDIR@|${prefix}/lib|' \
  -e 's|@INCLUDEDIR@|${prefix}/include|' -e 's|@DATADIR@|${prefix}/share|' -e "s|@VERSION@|$version|" \
  -e "s|@NATIVE_LIBS@|$native_libs|" ffi-c/leaseq.pc.in >"$c_stage/lib/pkgconfig/leaseq.pc"
# ffi-c/README.md (a first example, and where the documentation is), then this build's platform.
{
  cat ffi-c/README.md
  cat <<EOF

## This build

libleaseq $version for x86_64 Linux with glibc $glibc or later.
EOF
} >"$c_stage/README.md"
tar -czf "$dist/$c_name.tar.gz" -C "$work" --owner=0 --group=0 --numeric-owner "$c_name"

# ---- Node: leaseq and leaseq-linux-x64-gnu ----------------------------------------------------
node node/scripts/package.js --addon "$built/libleaseq_node.so" --out "$dist" --platform linux-x64-gnu >/dev/null

# ---- Python: wheel and sdist -----------------------------------------------------------------
say "Python wheel (release, abi3, $manylinux checked by maturin's auditwheel policy)"
# --auditwheel check: maturin fails the build when a symbol needs a newer glibc than the tag says.
maturin build -q --release --target "$triple" --zig -m py/Cargo.toml --compatibility "$manylinux" \
  --auditwheel check --strip -i python3 -o "$dist" >&2
wheel="$(ls "$dist"/leaseq-"$version"-cp39-abi3-*.whl)"
case "$wheel" in *[-.]"${manylinux}_x86_64.whl") ;; *) die "unexpected wheel name: $wheel" ;; esac
# A second opinion: auditwheel's own policy check names the most compatible tag.
auditwheel show "$wheel" >"$work/auditwheel.txt"
tr -s ' \n' ' ' <"$work/auditwheel.txt" | grep -q "consistent with the following platform tag: \"${manylinux}_x86_64\"" ||
  { cat "$work/auditwheel.txt" >&2; die "auditwheel does not confirm ${manylinux}_x86_64"; }

say "Python sdist"
maturin sdist -m py/Cargo.toml -o "$dist" >/dev/null 2>"$work/sdist.log" || { cat "$work/sdist.log" >&2; exit 1; }
# The core includes spec/scripts/*.lua from outside its crate, where maturin's sdist cannot
# reach (it refuses `..` in `include`): add them at the same place relative to core/.
"$tools/bin/python" - "$dist/leaseq-$version.tar.gz" "leaseq-$version" spec/scripts <<'EOF'
import gzip, io, sys, tarfile
from pathlib import Path

path, top, scripts = sys.argv[1], sys.argv[2], Path(sys.argv[3])
with tarfile.open(path, "r:gz") as old:
    members = [(m, old.extractfile(m).read() if m.isfile() else None) for m in old.getmembers()]
buffer = io.BytesIO()
with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as new:
    for member, data in members:
        new.addfile(member, io.BytesIO(data) if data is not None else None)
    for file in sorted(scripts.glob("*.lua")):
        info = tarfile.TarInfo(f"{top}/{file.as_posix()}")
        info.size, info.mode, info.mtime = file.stat().st_size, 0o644, members[0][0].mtime
        new.addfile(info, io.BytesIO(file.read_bytes()))
with gzip.GzipFile(path, "wb", mtime=0) as out:
    out.write(buffer.getvalue())
EOF

# ---- CLI ------------------------------------------------------------------------------------
# The `leaseq` command (cli/) has no artifact of its own: the wheel carries it (a console script
# calling leaseq._native.cli_main) and so does the npm package (bin/leaseq.js), both built above;
# integration-tests/dist/test.sh runs it from each.

# ---- checksums -------------------------------------------------------------------------------
(cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort |
  xargs sha256sum >SHA256SUMS)
say "wrote $dist:"
(cd "$dist" && ls -l --time-style=+ | tail -n +2 | awk '{ printf "  %10d  %s\n", $5, $NF }') >&2
