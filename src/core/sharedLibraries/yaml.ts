/**
 * Bundle entry (dist/yaml.js): the YAML library once, required from beside them by the language
 * server, its production worker, the extension's features and the CLI (esbuild.mjs), so the package
 * holds one copy of it instead of four.
 */
export * from 'yaml';
