/** `.toml` data files are imported as their parsed value (esbuild.mjs, vitest.config.ts: toml-as-json). */
declare module '*.toml' {
  const value: unknown;
  export default value;
}

/** `FILE?raw` imports are the file's text (esbuild.mjs toml-as-json; Vite natively). */
declare module '*?raw' {
  const text: string;
  export default text;
}
