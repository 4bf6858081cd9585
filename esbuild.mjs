// One build script, four entry points. `--production` minifies and drops source maps; `--watch` rebuilds.
// Type-checking is separate (`npm run typecheck`), as esbuild only strips types.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import * as esbuild from 'esbuild';
import asc from 'assemblyscript/asc';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const shared = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'warning',
  legalComments: 'none',
};

// The BPE rank tables are most of every Node bundle's size, and parsing them as JavaScript most of a
// cold start. They are written once as compact binary files (dist/NAME.ranks, core/tokens/rankFile.ts)
// that the extension, server and CLI read from beside themselves; the bundles never include the lists.
const RANK_TABLES = ['o200k_base', 'cl100k_base'];
const sharedRankTables = {
  name: 'shared-rank-tables',
  setup(build) {
    build.onResolve({ filter: /^gpt-tokenizer\/bpeRanks\/[\w]+$/ }, (args) => ({ path: `./missing-${args.path.split('/').pop()}.ranks.mjs`, external: true }));
  },
};

// The language server on stdio never spawns a process or opens a socket, and needs crypto only to
// run or store prompts; `prompt-insight tokens` needs no crypto either. The eager requires of those
// builtins (the LSP libraries', the run and store modules') are served by lazy stand-ins
// (src/core/lazyBuiltins/): −3 ms (child_process, net) and ~−6 ms (crypto) of the server's start,
// ~−9 ms (crypto) of a `tokens` call.
/**
 * Libraries several bundles use, each in one file beside them (its own entry below) that they require:
 * the package holds one copy. Hugging Face's tokenizers: the server, the CLI and the tokenizer worker;
 * RE2JS: the server, the CLI and the scoring worker; YAML and Ajv: the server, its production worker, the
 * scoring worker, the extension's features and the CLI (together ~220 KB a copy before compression).
 */
const SHARED_LIBRARIES = { '@huggingface/tokenizers': 'hfTokenizers', re2js: 're2js', yaml: 'yaml', ajv: 'ajv' };
const sharedLibraries = {
  name: 'shared-libraries',
  setup(build) {
    build.onResolve({ filter: /^(@huggingface\/tokenizers|re2js|yaml|ajv)$/ }, (args) => ({ path: `./${SHARED_LIBRARIES[args.path]}.js`, external: true }));
  },
};

/**
 * The tests-file schema and its findings (core/adherence/testsSchema.ts, the schema JSON inlined) are one
 * file too, dist/testsSchema.js: the server, its production worker, the extension's features and the CLI
 * require it instead of carrying a copy each (~6 KB compressed a copy).
 */
const sharedTestsSchema = {
  name: 'shared-tests-schema',
  setup(build) {
    build.onResolve({ filter: /(^|\/)testsSchema$/ }, () => ({ path: './testsSchema.js', external: true }));
  },
};

/**
 * Into that file goes the schema's validator as Ajv's standalone code, generated here once
 * (core/adherence/testsSchemaStandalone.ts, bundled on the fly as rankFile.ts is): the tools load it in
 * ~10 ms instead of compiling the schema as they start (~100 ms).
 */
const testsSchemaValidator = {
  name: 'tests-schema-validator',
  setup(build) {
    build.onResolve({ filter: /^\.\/testsSchemaValidator\.js$/ }, () => ({ path: 'testsSchemaValidator', namespace: 'tests-schema-validator' }));
    // The compile-at-first-use path is for tests from source: the bundle does not load Ajv for it (~15 ms).
    build.onResolve({ filter: /^\.\/testsSchemaAjv$/ }, () => ({ path: 'testsSchemaAjv', namespace: 'tests-schema-compile' }));
    build.onLoad({ filter: /.*/, namespace: 'tests-schema-compile' }, () => ({ contents: "export function testsSchemaAjv() { throw new Error('the tests-file schema is compiled at build time'); }", loader: 'js' }));
    build.onLoad({ filter: /.*/, namespace: 'tests-schema-validator' }, async () => {
      const { outputFiles } = await esbuild.build({ entryPoints: ['src/core/adherence/testsSchemaStandalone.ts'], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'warning' });
      const { testsValidatorSource } = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
      return { contents: testsValidatorSource(), loader: 'js', resolveDir: process.cwd() };
    });
  },
};

const LAZY_BUILTIN_FILES = { child_process: 'childProcess', net: 'net', crypto: 'crypto' };
function lazyBuiltins(names) {
  return {
    name: 'lazy-builtins',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^(node:)?(${names.join('|')})$`) }, (args) =>
        // The stand-ins themselves load the real builtin.
        args.importer.includes('lazyBuiltins') ? undefined : { path: new URL(`./src/core/lazyBuiltins/${LAZY_BUILTIN_FILES[args.path.replace(/^node:/, '')]}.ts`, import.meta.url).pathname });
    },
  };
}

/** Writes dist/NAME.ranks with the project's own encoder (rankFile.ts, bundled on the fly). */
async function writeRankFiles() {
  const { outputFiles } = await esbuild.build({ entryPoints: ['src/core/tokens/rankFile.ts'], bundle: true, format: 'esm', platform: 'neutral', write: false });
  const { encodeRankFile } = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
  mkdirSync('dist', { recursive: true });
  for (const table of RANK_TABLES) {
    const { default: list } = await import(`gpt-tokenizer/bpeRanks/${table}`);
    writeFileSync(`dist/${table}.ranks`, encodeRankFile(list));
  }
}

/**
 * dist/bpe.wasm, the byte-pair merge (src/core/tokens/assembly/, entry bpe.ts): compiled before it runs, so
 * a one-shot count does not wait for V8 to optimise it (README: cold start). Stub runtime: the
 * module allocates its regions itself and never frees them.
 */
async function writeBpeWasm() {
  const { error, stderr } = await asc.main(['src/core/tokens/assembly/bpe.ts', '--outFile', 'dist/bpe.wasm', '-O3', '--runtime', 'stub', '--noAssert']);
  if (error) throw new Error(`asc: ${error.message}\n${stderr.toString()}`);
}

// Data kept in its upstream TOML (sample's secret rules: gitleaks' own config file) becomes JSON in the bundle.
const tomlAsJson = {
  name: 'toml-as-json',
  setup(build) {
    build.onLoad({ filter: /\.toml$/ }, (args) => ({ contents: JSON.stringify(parseToml(readFileSync(args.path, 'utf8'))), loader: 'json' }));
    // `FILE?raw`: the file's text (its licence beside such data), as Vite reads the same import in tests.
    build.onResolve({ filter: /\?raw$/ }, (args) => ({ path: new URL(args.path.replace(/\?raw$/, ''), `file://${args.resolveDir}/`).pathname, namespace: 'raw-text' }));
    build.onLoad({ filter: /.*/, namespace: 'raw-text' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'text' }));
  },
};

// Bundles run template engines only in dist/renderInterpreted.js and dist/renderHandlebars.js; from source (tests) in-thread.
const node = { ...shared, platform: 'node', format: 'cjs', target: 'node20', plugins: [sharedRankTables, sharedLibraries, sharedTestsSchema, tomlAsJson], define: { 'process.env.PROMPT_INSIGHT_BUNDLED': '"1"' } };

const renderPlugins = node.plugins.filter((plugin) => plugin !== sharedLibraries);

const builds = [
  // Banner and footer stamp the bundle's evaluation, so activation can report it beside activate().
  { ...node, entryPoints: { extension: 'src/extension/main.ts' }, outdir: 'dist', external: ['vscode'], banner: { js: 'globalThis.__promptInsightLoadStart = performance.now();' }, footer: { js: 'globalThis.__promptInsightLoadEnd = performance.now();' } },
  // Loaded by the extension on first use (language client; runs and comparisons), not at activation.
  { ...node, entryPoints: { 'extension-client': 'src/extension/languageClient.ts', 'extension-features': 'src/extension/features.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...node, entryPoints: { server: 'src/server/main.ts' }, outdir: 'dist', plugins: [...node.plugins, lazyBuiltins(['child_process', 'net', 'crypto'])] },
  // The language server reads production sources in this worker thread (server/productionReader.ts).
  { ...node, entryPoints: { productionWorker: 'src/server/productionWorker.ts' }, outdir: 'dist' },
  // The sockets of HTTP runs live in this worker thread (core/endpoint/workerWire.ts); found beside the bundles.
  { ...node, entryPoints: { socketWorker: 'src/core/endpoint/socketWorker.ts' }, outdir: 'dist' },
  // Large answers are counted in this worker, stopped at the run's deadline (core/tokens/boundedCount.ts).
  { ...node, entryPoints: { countWorker: 'src/core/tokens/countWorker.ts' }, outdir: 'dist' },
  // A tokenizer.json whose patterns need the backtracking engine counts in this worker, stopped at a deadline (core/tokens/offThreadTokenizer.ts).
  { ...node, entryPoints: { tokenizerWorker: 'src/core/tokens/tokenizerWorker.ts' }, outdir: 'dist' },
  // The libraries the bundles above and the CLI share (sharedLibraries).
  { ...node, plugins: [tomlAsJson], entryPoints: { hfTokenizers: 'src/core/tokens/hfTokenizers.ts', re2js: 'src/core/tokens/re2js.ts', yaml: 'src/core/sharedLibraries/yaml.ts', ajv: 'src/core/sharedLibraries/ajv.ts' }, outdir: 'dist' },
  // The tests-file schema, shared as those are (sharedTestsSchema); it requires Ajv from beside it.
  { ...node, plugins: [sharedLibraries, testsSchemaValidator], entryPoints: { testsSchema: 'src/core/adherence/testsSchema.ts' }, outdir: 'dist' },
  // Answers are checked against their assertions in this worker, stopped at a deadline (core/adherence/scoreWorkerClient.ts).
  { ...node, entryPoints: { scoreWorker: 'src/core/adherence/scoreWorker.ts' }, outdir: 'dist' },
  // Template engines run in separate, locked-down processes (core/render/renderer.ts, isolatedProcess.ts); they are not
  // in the server or CLI bundles. Strict mode throughout: no function of theirs is reachable from a stack trace.
  // Each is one self-contained file: the permission model lets the process read its own script only, so
  // a shared library beside it (dist/yaml.js, which dotprompt loads) would make the runtime refuse the flag.
  // Jinja2 and Mustache interpret templates (their process runs without code generation from strings).
  { ...node, plugins: renderPlugins, entryPoints: { renderInterpreted: 'src/core/render/interpretedEngineProcess.ts' }, outdir: 'dist', banner: { js: '"use strict";' } },
  // Dotprompt (Handlebars compiles templates to JavaScript), started only for Dotprompt files.
  // handlebars loads source-map only for precompiled source maps, and falls back without it.
  { ...node, plugins: renderPlugins, entryPoints: { renderHandlebars: 'src/core/render/handlebarsEngineProcess.ts' }, outdir: 'dist', external: ['source-map'], banner: { js: '"use strict";' } },
  // The OpenTelemetry SDK (core/telemetry/otelExport.ts), loaded by the CLI and the extension only when telemetry is on (loadTelemetry.ts).
  { ...node, entryPoints: { telemetry: 'src/core/telemetry/otelExport.ts' }, outdir: 'dist' },
  // The simulator alone for the extension's bundled endpoint (the .vsix does not carry the whole CLI).
  { ...node, entryPoints: { simulator: 'src/cli/simMain.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' }, plugins: [...node.plugins, lazyBuiltins(['crypto'])] },
  { ...shared, entryPoints: { webview: 'webview/main.ts' }, outdir: 'dist', platform: 'browser', format: 'iife', target: 'chrome120' },
];

if (process.argv.includes('--bpe-wasm')) {
  mkdirSync('dist', { recursive: true });
  await writeBpeWasm();
} else if (watch) {
  await Promise.all([writeRankFiles(), writeBpeWasm()]);
  const contexts = await Promise.all(builds.map((options) => esbuild.context(options)));
  await Promise.all(contexts.map((context) => context.watch()));
  console.log('esbuild: watching for changes');
} else {
  mkdirSync('dist', { recursive: true });
  await Promise.all([writeRankFiles(), writeBpeWasm(), ...builds.map((options) => esbuild.build(options))]);
}
