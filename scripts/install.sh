#!/usr/bin/env bash
# Installs agent-conform: the prebuilt release archive for this OS and
# architecture when the release has one (its SHA256SUMS verified), else a build
# from source. action.yml runs it; so can anyone:
#
#   scripts/install.sh --release https://github.com/entireio/agent-conform/releases/download/v0.1.0 \
#                      --root ~/.agent-conform [--source DIR | --git URL --rev REV]
#
#   --release URL|DIR  where the release assets are: a download base URL, or a
#                      local directory laid out the same way (the tests use one).
#                      Empty: no download, build from source.
#   --root DIR         install into DIR/bin/agent-conform (as `cargo install --root`).
#   --source DIR       fallback: `cargo install --locked --path DIR`
#   --git URL --rev R  fallback: `cargo install --locked --git URL --rev R agent-conform`
#
# Environment (for tests): AGENT_CONFORM_OS and AGENT_CONFORM_ARCH replace
# `uname -s` and `uname -m`; AGENT_CONFORM_FALLBACK replaces the fallback
# build command (run with `sh -c`, with AGENT_CONFORM_ROOT set).
#
# Exit codes: 0 installed; 1 a checksum did not match, a listed asset could
# not be fetched, or the build failed; 2 bad arguments.
set -euo pipefail

release="" root="" source_dir="" git_url="" rev=""
while [ $# -gt 0 ]; do
  case "$1" in
    --release) release=${2-}; shift 2 ;;
    --root) root=${2-}; shift 2 ;;
    --source) source_dir=${2-}; shift 2 ;;
    --git) git_url=${2-}; shift 2 ;;
    --rev) rev=${2-}; shift 2 ;;
    *) echo "install.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$root" ] || { echo "install.sh: --root DIR is required" >&2; exit 2; }

say() { echo "agent-conform install: $*" >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The Rust target triple of the release asset for an OS and architecture, as
# release.yml names them; nothing when the release has no such asset.
target_for() {
  local os=$1 arch=$2
  case "$arch" in
    x86_64 | amd64 | AMD64 | X64) arch=x86_64 ;;
    aarch64 | arm64 | ARM64) arch=aarch64 ;;
    *) return 0 ;;
  esac
  case "$os" in
    Linux) echo "$arch-unknown-linux-musl" ;;
    Darwin) echo "$arch-apple-darwin" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT | Windows)
      [ "$arch" = x86_64 ] && echo "x86_64-pc-windows-msvc" ;;
  esac
  return 0
}

# Copies one release asset (URL or local directory) to a file; fails when
# it does not exist.
fetch() {
  local name=$1 dest=$2
  case "$release" in
    http://* | https://*)
      curl --proto '=https' --tlsv1.2 -fsSL --retry 3 -o "$dest" "$release/$name" 2>/dev/null ;;
    *) [ -f "$release/$name" ] && cp "$release/$name" "$dest" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | awk '{print $1}'
  else
    shasum -a 256 "$1" | awk '{print $1}'
  fi
}

# Downloads, verifies and unpacks the asset; returns 3 when the release has
# no asset for this machine (the caller then builds from source).
install_asset() {
  local os arch target asset expected actual bin
  os=${AGENT_CONFORM_OS:-$(uname -s)}
  arch=${AGENT_CONFORM_ARCH:-$(uname -m)}
  target=$(target_for "$os" "$arch")
  if [ -z "$target" ]; then
    say "no prebuilt agent-conform for $os $arch"
    return 3
  fi
  case "$target" in
    *windows*) asset="agent-conform-$target.zip" bin=agent-conform.exe ;;
    *) asset="agent-conform-$target.tar.gz" bin=agent-conform ;;
  esac
  if ! fetch SHA256SUMS "$work/SHA256SUMS"; then
    say "no release at $release (no SHA256SUMS there)"
    return 3
  fi
  expected=$(awk -v a="$asset" '$2 == a || $2 == "*" a {print $1; exit}' "$work/SHA256SUMS")
  if [ -z "$expected" ]; then
    say "the release at $release has no $asset"
    return 3
  fi
  if ! fetch "$asset" "$work/$asset"; then
    say "error: SHA256SUMS lists $asset but it cannot be fetched from $release"
    return 1
  fi
  actual=$(sha256 "$work/$asset")
  if [ "$actual" != "$expected" ]; then
    say "error: checksum mismatch for $asset: SHA256SUMS says $expected, the download is $actual; refusing to install it"
    return 1
  fi
  mkdir -p "$work/unpacked" "$root/bin" || return 1
  case "$asset" in
    *.zip) unzip -q "$work/$asset" -d "$work/unpacked" || return 1 ;;
    *) tar -xzf "$work/$asset" -C "$work/unpacked" || return 1 ;;
  esac
  local found
  found=$(find "$work/unpacked" -type f -name "$bin" | head -n 1)
  if [ -z "$found" ]; then
    say "error: $asset holds no $bin"
    return 1
  fi
  cp "$found" "$root/bin/$bin" && chmod +x "$root/bin/$bin" || return 1
  say "installed $asset (sha256 $actual) as $root/bin/$bin"
}

build_from_source() {
  export AGENT_CONFORM_ROOT=$root
  if [ -n "${AGENT_CONFORM_FALLBACK:-}" ]; then
    say "building from source: $AGENT_CONFORM_FALLBACK"
    sh -c "$AGENT_CONFORM_FALLBACK"
  elif [ -n "$git_url" ]; then
    say "building from source: $git_url at ${rev:-its default branch}"
    cargo install --locked --force --root "$root" --git "$git_url" ${rev:+--rev "$rev"} agent-conform
  elif [ -n "$source_dir" ]; then
    say "building from source: $source_dir"
    cargo install --locked --force --root "$root" --path "$source_dir"
  else
    say "error: no prebuilt asset and no source to build from (pass --source or --git)"
    return 1
  fi
}

status=3
if [ -n "$release" ]; then
  install_asset && status=0 || status=$?
fi
case "$status" in
  0) ;;
  3) build_from_source ;;
  *) exit "$status" ;;
esac
