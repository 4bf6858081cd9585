// Runs an app's `answer` N times against the server and prints what the app itself measured, one JSON line per
// call: the ground truth the traces are checked against. Usage: node harness.mjs APP N
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [appFile, count = '6'] = process.argv.slice(2);
const loaded = await import(pathToFileURL(resolve(appFile)).href);
// A CommonJS app's exports are its default export.
const app = typeof loaded.shutdown === 'function' ? loaded : loaded.default;
const cities = ['Bellevue, WA', 'Lyon', 'Osaka'];
for (let i = 0; i < Number(count); i++) {
  const city = cities[i % cities.length];
  const started = performance.now();
  let ttftMs = null;
  let answer = '';
  try {
    for await (const piece of app.answer(city, `Find homes nearby, request ${i}.`)) {
      if (ttftMs === null && piece) ttftMs = performance.now() - started;
      answer += piece ?? '';
    }
    console.log(JSON.stringify({ city, ok: true, ttftMs, e2eMs: performance.now() - started, answer }));
  } catch (error) {
    console.log(JSON.stringify({ city, ok: false, error: String(error?.status ?? error?.statusCode ?? error?.message ?? error).slice(0, 200) }));
  }
}
await app.shutdown();
