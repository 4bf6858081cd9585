#!/usr/bin/env bash
# Installs VictoriaMetrics (Debian bookworm's victoria-metrics 1.79.5: the Prometheus query API, imports in the
# Prometheus text format) into the tools folder, unpacked with dpkg -x — nothing on the system changes. The
# Prometheus engine tests run against it too (PROMPT_INSIGHT_PROMETHEUS_BACKEND=victoria-metrics), standing for
# the Prometheus-compatible stores teams move to (Thanos, Mimir and VictoriaMetrics cluster answer the same API).
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOLS="${PROMPT_INSIGHT_TOOLS:-$PWD/.e2e-tools}"
DIR="$TOOLS/victoria-metrics"
VERSION="1.79.5+ds1-2+b5"
if [ -f "$DIR/.install-complete" ]; then
  echo "victoria-metrics ready: $(cat "$DIR/.install-complete")"
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR/debs" "$DIR/root"
if ! apt-cache show "victoria-metrics=$VERSION" >/dev/null 2>&1; then apt-get update -qq; fi
# apt-get download writes into the current folder as _apt when it can; the folder is made readable for that.
chmod 777 "$DIR/debs"
(cd "$DIR/debs" && apt-get download -qq "victoria-metrics=$VERSION" 2>/dev/null)
dpkg -x "$DIR/debs"/victoria-metrics_*.deb "$DIR/root"
test -x "$DIR/root/usr/bin/victoria-metrics"
echo "victoria-metrics $VERSION (Debian bookworm)" > "$DIR/.install-complete"
rm -rf "$DIR/debs"
echo "victoria-metrics ready: $(cat "$DIR/.install-complete")"
