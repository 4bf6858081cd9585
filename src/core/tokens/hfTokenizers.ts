/**
 * Bundle entry (dist/hfTokenizers.js): Hugging Face's tokenizer library once, required from beside
 * them by the language server, the CLI and the tokenizer worker (esbuild.mjs), so the worker that
 * runs a tokenizer off-thread adds no second copy of it to the extension's package.
 */
export * from '@huggingface/tokenizers';
