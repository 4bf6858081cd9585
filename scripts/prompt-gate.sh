#!/usr/bin/env bash
# The gate step of action.yml: `prompt-insight compare` for each prompt file, base against head, run
# until the decision is known, failing on hold or insufficient evidence. Inputs arrive as INPUT_*
# variables (never spliced into the script, so a file name cannot inject shell). The decision goes
# to the job summary ($GITHUB_STEP_SUMMARY, appended by compare itself); JUnit XML, the HTML report,
# the text output and the stored runs go to $REPORT_DIR.
set -uo pipefail
cli="$GITHUB_ACTION_PATH/dist/cli.js"
endpoint="${INPUT_ENDPOINT:-${PROMPT_GATE_ENDPOINT:-}}"
if [ -z "$endpoint" ]; then
  echo "::error::prompt-gate: give 'endpoint' (your model server) or 'simulator' (a scenario for the bundled simulated endpoint)"
  exit 2
fi
if [ -z "${INPUT_BASE:-}" ]; then
  echo "::error::prompt-gate: no base revision (not a pull_request event): give 'base'"
  exit 2
fi
mkdir -p "$REPORT_DIR"
read -ra extra <<< "${INPUT_ARGS:-}"
status=0
gated=0
while IFS= read -r prompt || [ -n "$prompt" ]; do
  prompt="${prompt#"${prompt%%[![:space:]]*}"}"
  prompt="${prompt%"${prompt##*[![:space:]]}"}"
  [ -z "$prompt" ] && continue
  name="$(printf '%s' "$prompt" | tr -c 'A-Za-z0-9._-' '_')"
  args=(compare "$prompt" --base "$INPUT_BASE" --head "${INPUT_HEAD:-HEAD}" --endpoint "$endpoint"
    --runs "${INPUT_RUNS:-10}" --until-decided --max-runs "${INPUT_MAX_RUNS:-200}" --fail-on-regression
    --store "$REPORT_DIR/runs.jsonl" --junit "$REPORT_DIR/$name.junit.xml" --report "$REPORT_DIR/$name.html")
  [ "${INPUT_FETCH:-true}" = true ] && args+=(--fetch)
  [ -n "${INPUT_MODEL:-}" ] && args+=(--model "$INPUT_MODEL")
  [ -n "${INPUT_PROVIDER:-}" ] && args+=(--provider "$INPUT_PROVIDER")
  [ -n "${INPUT_API_KEY_ENV:-}" ] && args+=(--api-key-env "$INPUT_API_KEY_ENV")
  args+=("${extra[@]}")
  echo "::group::prompt-insight compare $prompt"
  # Output quotes model answers and commit subjects: no line of it may be taken for a workflow command.
  token="prompt-gate-$RANDOM$RANDOM$RANDOM"
  echo "::stop-commands::$token"
  # --out, not `| tee`: the file is written by the CLI's write rules (no link at the name is followed).
  node "$cli" "${args[@]}" --out "$REPORT_DIR/$name.txt"
  code=$?
  [ -f "$REPORT_DIR/$name.txt" ] && cat "$REPORT_DIR/$name.txt"
  echo "::$token::"
  echo "::endgroup::"
  if [ "$code" -ne 0 ]; then
    echo "::error file=$prompt::prompt gate: $prompt did not pass (exit $code; see the job summary)"
    [ "$code" -gt "$status" ] && status=$code
  fi
  gated=$((gated + 1))
done <<< "${INPUT_PROMPTS:-}"
if [ "$gated" -eq 0 ]; then
  echo "::error::prompt-gate: 'prompts' names no file"
  exit 2
fi
exit "$status"
