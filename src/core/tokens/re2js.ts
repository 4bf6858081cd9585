/**
 * Bundle entry (dist/re2js.js): RE2JS once, required from beside them by the language server and
 * the CLI (tokenizer.json patterns: linearPattern.ts) and the scoring worker (regex assertions), so
 * the package holds one copy of it (esbuild.mjs).
 */
export * from 're2js';
