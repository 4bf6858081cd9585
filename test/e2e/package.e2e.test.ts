import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// `npm run package` runs before this suite (test:e2e:only).
describe('the packaged .vsix', () => {
  it('stays under 2.5 MB and holds only the allowlisted files', () => {
    // Issue 12's bar: the rank files, the render worker and everything else stay under 2.5 MB.
    expect(statSync('prompt-insight.vsix').size).toBeLessThan(2_500_000);
    const listing = execFileSync('unzip', ['-Z1', 'prompt-insight.vsix'], { encoding: 'utf8' }).trim().split('\n');
    const payload = listing.filter((f) => f.startsWith('extension/')).map((f) => f.slice('extension/'.length));
    expect(payload.sort()).toEqual(
      ['LICENSE.txt', 'dist/extension.js', 'dist/extension-client.js', 'dist/extension-features.js', 'dist/server.js', 'dist/simulator.js', 'dist/socketWorker.js', 'dist/countWorker.js', 'dist/tokenizerWorker.js', 'dist/hfTokenizers.js', 'dist/re2js.js', 'dist/yaml.js', 'dist/ajv.js', 'dist/testsSchema.js', 'dist/scoreWorker.js', 'dist/productionWorker.js', 'dist/renderInterpreted.js', 'dist/renderHandlebars.js', 'dist/telemetry.js', 'dist/o200k_base.ranks', 'dist/cl100k_base.ranks', 'dist/bpe.wasm', 'dist/webview.js', 'media/icon.png', 'media/panel.css', 'media/walkthrough/endpoint.md', 'media/walkthrough/run.md', 'media/walkthrough/tests.md', 'media/walkthrough/compare.md', 'media/walkthrough/production.md', 'media/walkthrough/review.md', 'package.json', 'readme.md', 'syntaxes/prompty.tmLanguage.json', 'syntaxes/prompty.language-configuration.json', 'syntaxes/dotprompt.tmLanguage.json', 'syntaxes/dotprompt.language-configuration.json', 'syntaxes/prompt-md.injection.tmLanguage.json', 'schemas/tests.schema.json'].sort(),
    );
  });
});
