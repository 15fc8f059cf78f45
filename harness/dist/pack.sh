#!/usr/bin/env bash
# Packs one release build of mcpspec for every channel, into OUT (default target/dist):
#   - the release archive   mcpspec-VERSION-TRIPLE.tar.gz (the binary, README.md)
#   - the Python wheel      mcpspec-VERSION-py3-none-PLATFORM.whl (maturin's `bin` bindings:
#                           `pip install`, `pipx run` and `uvx` put `mcpspec` on the PATH)
#   - the npm packages      mcpspec-VERSION.tgz (the launcher) and mcpspec-PLATFORM-VERSION.tgz
#                           (the binary; the launcher's optional dependency)
# The binary is built once (cargo build --profile dist -p mcpspec: release, stripped); maturin's
# build of the same crate, profile and target finds it fresh and only packs it.
#
# Usage: harness/dist/pack.sh [OUT]. Needs cargo, npm, and maturin (pip install maturin; the
# MATURIN variable may name it). PROFILE names another cargo profile (release, say). CHANNELS
# names the channels to pack (default: archive wheel npm); the release workflow
# (.github/workflows/release.yml) packs `archive` on each platform, Windows included, whose
# binary is mcpspec.exe. cargo-binstall finds the archives by the same name (harness/Cargo.toml,
# [package.metadata.binstall]); harness/tests/suite/dist.rs holds the three to one name.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/dist}
maturin=${MATURIN:-maturin}
mkdir -p "$out"
out=$(cd "$out" && pwd)

profile=${PROFILE:-dist}
cargo build --profile "$profile" -p mcpspec --manifest-path "$root/Cargo.toml"
# cargo's `dev` profile builds into target/debug.
channels=" ${CHANNELS:-archive wheel npm} "
triple=$(rustc -vV | sed -n 's/^host: //p')
exe=""
case "$triple" in *-windows-*) exe=.exe ;; esac
bin="$root/target/$([ "$profile" = dev ] && echo debug || echo "$profile")/mcpspec$exe"
version=$("$bin" --version | awk '{print $2}')
if [[ $channels == *" npm "* ]]; then
  case "$triple" in
    x86_64-unknown-linux-gnu) npm_platform=linux-x64 os=linux cpu=x64 ;;
    aarch64-unknown-linux-gnu) npm_platform=linux-arm64 os=linux cpu=arm64 ;;
    x86_64-apple-darwin) npm_platform=darwin-x64 os=darwin cpu=x64 ;;
    aarch64-apple-darwin) npm_platform=darwin-arm64 os=darwin cpu=arm64 ;;
    *) echo "pack.sh: no npm platform for $triple (CHANNELS='archive wheel' leaves npm out)" >&2; exit 1 ;;
  esac
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# The release archive.
if [[ $channels == *" archive "* ]]; then
  mkdir "$stage/mcpspec-$version-$triple"
  cp "$bin" "$root/README.md" "$stage/mcpspec-$version-$triple/"
  tar -czf "$out/mcpspec-$version-$triple.tar.gz" -C "$stage" "mcpspec-$version-$triple"
  rm -rf "${stage:?}/mcpspec-$version-$triple"   # each staged copy goes once packed: a dev binary is large
fi

# The wheel.
if [[ $channels == *" wheel "* ]]; then
  "$maturin" build --profile "$profile" --bindings bin --manifest-path "$root/harness/Cargo.toml" --out "$out" --quiet
fi

# The npm packages: the platform's binary, then the launcher naming it.
if [[ $channels != *" npm "* ]]; then
  ls -1 "$out"
  exit 0
fi
cp -r "$root/harness/dist/npm/platform" "$stage/platform"
mkdir -p "$stage/platform/bin"
cp "$bin" "$stage/platform/bin/mcpspec"
(cd "$stage/platform" && npm pkg set "name=@mcpspec/$npm_platform" "version=$version" "os[0]=$os" "cpu[0]=$cpu" \
  "description=The mcpspec binary for $npm_platform (installed by the mcpspec package)")
cp -r "$root/harness/dist/npm/mcpspec" "$stage/launcher"
(cd "$stage/launcher" && npm pkg delete optionalDependencies \
  && npm pkg set "version=$version" "optionalDependencies.@mcpspec/$npm_platform=$version")
(cd "$stage/platform" && npm pack --silent --pack-destination "$out" >/dev/null)
rm -rf "${stage:?}/platform"
(cd "$stage/launcher" && npm pack --silent --pack-destination "$out" >/dev/null)
ls -1 "$out"
