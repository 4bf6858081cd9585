/**
 * Entry of dist/renderHandlebars.js: Dotprompt (Handlebars compiles templates to JavaScript with
 * `new Function`), in a process of its own, started only when a Dotprompt file is rendered (renderer.ts).
 */
import type { DotpromptRequest } from './engineRequest';
import { serveEngineProcess } from './engineProcess';
import { runHandlebarsEngine } from './handlebarsEngine';

void serveEngineProcess(
  (request) => runHandlebarsEngine(request as DotpromptRequest),
  () => runHandlebarsEngine({ engine: 'dotprompt', source: '---\ninput:\n  default:\n    xs: [{name: a}]\n---\n{{role "system"}}{{#each xs}}{{name}}{{/each}}{{json xs}}{{missing}}', input: {}, partials: {} }),
);
