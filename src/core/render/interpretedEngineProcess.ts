/**
 * Entry of dist/renderInterpreted.js: Jinja2 and Mustache, which interpret templates, in a process
 * started without code generation from strings (renderer.ts).
 */
import { serveEngineProcess } from './engineProcess';
import type { InterpretedRequest } from './engineRequest';
import { runInterpretedEngine } from './interpretedEngines';

void serveEngineProcess(
  (request) => runInterpretedEngine(request as InterpretedRequest),
  () => {
    runInterpretedEngine({ engine: 'jinja2', template: '{% for x in xs %}{{ x.name | upper }}{% endfor %}{{ missing }}', data: { xs: [{ name: 'a' }] } });
    runInterpretedEngine({ engine: 'mustache', template: '{{#xs}}{{name}}{{/xs}}{{missing}}', data: { xs: [{ name: 'a' }] } });
  },
);
