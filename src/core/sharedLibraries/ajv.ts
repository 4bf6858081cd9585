/**
 * Bundle entry (dist/ajv.js): Ajv once, required from beside them by the language server, its
 * production worker, the scoring worker, the extension's features and the CLI (esbuild.mjs), so the
 * package holds one copy of it instead of four.
 */
export { default } from 'ajv';
export * from 'ajv';
