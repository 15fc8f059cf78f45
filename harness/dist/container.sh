#!/usr/bin/env bash
# Builds the container image (harness/dist/Dockerfile) from pack.sh's output and smoke-tests it:
# `mcpspec server` certifies the reference server inside it, and node, npx, python3 and uv are
# there. Always first, and alone where no container runtime works, it checks the Dockerfile
# statically: its base image is pinned (a version tag or a digest, never latest or a codename),
# and what it ADDs is the archive pack.sh writes, with the binary at the path it links.
#
# Usage: harness/dist/container.sh [OUT]   (OUT: pack.sh's output folder; default target/dist)
# CONTAINER_RUNTIME=docker|podman|none picks the runtime (default: the first that answers);
# CONTAINER_REQUIRED=1 makes a runtime that cannot build (none, or its base image cannot be
# pulled) a failure instead of a note. DOCKERFILE names another file to check (the tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/dist}
dockerfile=${DOCKERFILE:-$root/harness/dist/Dockerfile}
pack=$root/harness/dist/pack.sh
fail() { echo "container.sh: $*" >&2; exit 1; }
note() { echo "container.sh: $*"; }

# The base image: ARG BASE's default, or FROM's own value.
base=$(sed -n 's/^ARG BASE=\(.*\)$/\1/p' "$dockerfile" | head -n 1)
from=$(sed -n 's/^FROM[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$dockerfile")
[ -n "$from" ] || fail "$dockerfile has no FROM"
for image in $from; do
  [ "$image" = '${BASE}' ] && image=$base
  [ -n "$image" ] || fail "$dockerfile: FROM \${BASE} without a default for ARG BASE"
  case "$image" in
    *@sha256:*) ;;
    *:latest|*:latest-*) fail "$dockerfile: the base image $image is not pinned (latest moves): name a version or a digest" ;;
    *:*[0-9]*) ;;
    *) fail "$dockerfile: the base image $image is not pinned: name a version (debian:12.8-slim) or a digest" ;;
  esac
done
note "base image $base: pinned"

# What pack.sh names the archive, and what the Dockerfile ADDs and links, as one template
# (pack.sh's $version/$triple and the Dockerfile's ${VERSION}/${TARGET} both become V and T).
packed=$(sed -n 's/.*tar -czf "$out\/\(mcpspec-$version-$triple\.tar\.gz\)".*/\1/p' "$pack" | sed 's/\$version/V/; s/\$triple/T/')
[ "$packed" = "mcpspec-V-T.tar.gz" ] || fail "pack.sh no longer writes mcpspec-\$version-\$triple.tar.gz (found '$packed'): update $dockerfile with it"
added=$(sed -n 's/^ADD[[:space:]]\{1,\}\([^[:space:]]*\)[[:space:]].*/\1/p' "$dockerfile" | sed 's/\${VERSION}/V/; s/\${TARGET}/T/')
[ "$added" = "$packed" ] || fail "$dockerfile ADDs '$added', but pack.sh writes '$packed'"
inner=$(sed -n 's/.*cp "$bin" "$root\/README.md" "$stage\/\(mcpspec-$version-$triple\)\/".*/\1/p' "$pack" | sed 's/\$version/V/; s/\$triple/T/')
linked=$(sed -n 's/.*ln -s \/opt\/\([^[:space:]]*\)\/mcpspec .*/\1/p' "$dockerfile" | sed 's/\${VERSION}/V/; s/\${TARGET}/T/')
[ -n "$inner" ] && [ "$linked" = "$inner" ] || fail "$dockerfile links /opt/$linked/mcpspec, but pack.sh's archive holds $inner/mcpspec"
note "$dockerfile ADDs pack.sh's archive ($packed) and links the binary it holds"

# The archive itself, when OUT has the Linux one: its name gives VERSION and TARGET.
archive=$(ls "$out"/mcpspec-*-*-unknown-linux-gnu.tar.gz 2>/dev/null | head -n 1 || true)
if [ -z "$archive" ]; then
  [ "${CONTAINER_REQUIRED:-0}" = 1 ] && fail "no Linux archive in $out: run harness/dist/pack.sh $out first"
  note "no Linux archive in $out (harness/dist/pack.sh writes it): nothing to build"
  exit 0
fi
name=$(basename "$archive" .tar.gz)
target=$(echo "$name" | grep -o '[a-z0-9_]*-unknown-linux-gnu$')
version=${name#mcpspec-}
version=${version%-"$target"}
tar -tzf "$archive" | grep -qx "$name/mcpspec" || fail "$archive does not hold $name/mcpspec"
note "$archive holds $name/mcpspec (version $version, $target)"

# A runtime that answers (docker's client alone is not one: it needs its engine).
runtime=${CONTAINER_RUNTIME:-}
if [ -z "$runtime" ]; then
  for candidate in docker podman; do
    if command -v "$candidate" >/dev/null && timeout 20 "$candidate" info >/dev/null 2>&1; then runtime=$candidate; break; fi
  done
fi
if [ -z "$runtime" ] || [ "$runtime" = none ]; then
  why="no container runtime answers (docker info, podman info)"
  [ "$runtime" = none ] && why="CONTAINER_RUNTIME=none"
  [ "${CONTAINER_REQUIRED:-0}" = 1 ] && fail "$why"
  note "$why: checked the Dockerfile statically only"
  exit 0
fi
if ! timeout 300 "$runtime" pull "$base" >/dev/null 2>&1; then
  [ "${CONTAINER_REQUIRED:-0}" = 1 ] && fail "$runtime cannot pull $base"
  note "$runtime cannot pull $base (no registry reachable?): checked the Dockerfile statically only"
  exit 0
fi
image=mcpspec:$version
timeout 1200 "$runtime" build -f "$dockerfile" --build-arg "VERSION=$version" --build-arg "TARGET=$target" -t "$image" "$out"
timeout 60 "$runtime" run --rm --entrypoint sh "$image" -c 'node --version && npx --version && python3 --version && uv --version'
timeout 300 "$runtime" run --rm "$image" server --revision 2025-11-25 --scenario 'lifecycle/*'
note "$image built and smoke-tested with $runtime"
