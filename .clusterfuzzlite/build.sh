#!/bin/bash -eu
# Builds every cargo-fuzz target of mcpspec into $OUT with its seed corpus and dictionary, as
# ClusterFuzzLite / OSS-Fuzz expect ($SRC, $OUT and the sanitizer flags come from the builder
# image). Locally, without Docker (see fuzz/README.md):
#   SRC=/tmp/src OUT=/tmp/out CFL_CARGO_FUZZ_FLAGS="-s none" bash .clusterfuzzlite/build.sh
# with the checkout at $SRC/mcpspec.
cd "$SRC/mcpspec/fuzz"
# The builder image passes the sanitizer through RUSTFLAGS and cargo-fuzz's defaults (-s address);
# CFL_CARGO_FUZZ_FLAGS lets a local check build without a nightly toolchain.
# shellcheck disable=SC2086
cargo fuzz build -O ${CFL_CARGO_FUZZ_FLAGS:-}
target_dir="${CARGO_TARGET_DIR:-target}"
for target in $(cargo fuzz list); do
  cp "$target_dir/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
  # Seed corpus: $OUT/<target>_seed_corpus.zip (flat, one file per input).
  if [ -d "corpus/$target" ]; then
    (cd "corpus/$target" && zip -q -j -r "$OUT/${target}_seed_corpus.zip" .)
  fi
  cp mcp.dict "$OUT/$target.dict"
done
# framing's cost grows with the input (every line is decoded twice and every JSON line re-encoded)
# while its bugs need only a few lines; 1 KiB keeps it fast (fuzz/README.md, "Measured here").
printf '[libfuzzer]\nmax_len = 1024\n' >"$OUT/framing.options"
