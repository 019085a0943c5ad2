# Sourced (POSIX sh) by `make install` and scripts/bench.sh before a release build: when
# scripts/pgo.sh left a profile, the build uses it (RUSTFLAGS=-Cprofile-use=...) in its own
# target directory, target/pgo-use, so that a build without the profile is not overwritten;
# without one (PGO=0, or no llvm-profdata) nothing is set and the build goes as it is.
#   usage: . scripts/pgo_env.sh        (from the repository's root)
if [ -f target/pgo/rexmit.profdata ]; then
  CARGO_TARGET_DIR=$PWD/target/pgo-use
  RUSTFLAGS="-Cprofile-use=$PWD/target/pgo/rexmit.profdata"
  export CARGO_TARGET_DIR RUSTFLAGS
  echo "pgo: building with profile-guided optimisation ($RUSTFLAGS)" >&2
fi
