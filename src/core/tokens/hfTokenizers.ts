/**
 * Bundle entry (dist/hfTokenizers.js): Hugging Face's tokenizer library once, required from beside
 * them by the language server, the CLI and the tokenizer worker (esbuild.mjs), so the worker that
 * runs a tokenizer off-thread adds no second copy of it to the extension's package.
 */
// What the bundles use, no more (the package is near its 2.5 MB cap): a new import from the library is added here too.
export { ReplaceNormalizer, ReplacePreTokenizer, SplitPreTokenizer, Tokenizer } from '@huggingface/tokenizers';
