/**
 * A scripted judge: a real HTTP server on 127.0.0.1 speaking OpenAI chat completions (SSE), which
 * replays the claims and verdicts of a worked example. Each rule matches the judge prompt's user
 * message by a substring and answers with its reply (or an HTTP status). Requests are kept.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { transportJudge } from '../../../src/core/run/transportJudge';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { Judge } from '../../../src/core/adherence/score';
import { CLAIMS_SYSTEM, VERDICTS_SYSTEM, RELEVANCE_SYSTEM } from '../../../src/core/adherence/judgePrompts';

export type JudgeStep = 'claims' | 'verdicts' | 'relevance';
export interface JudgeRule {
  step: JudgeStep;
  /** A substring of the user message (the text, or the claims listed). */
  when: string;
  reply?: unknown;
  status?: number;
}

export interface ScriptedJudge {
  judge: Judge;
  /** Its OpenAI-compatible base URL (…/v1), for the CLI's --judge-endpoint. */
  url: string;
  requests: { system: string; user: string; temperature: unknown }[];
  close(): Promise<void>;
}

const SYSTEMS: Record<JudgeStep, string> = { claims: CLAIMS_SYSTEM, verdicts: VERDICTS_SYSTEM, relevance: RELEVANCE_SYSTEM };

export async function startScriptedJudge(rules: readonly JudgeRule[]): Promise<ScriptedJudge> {
  const requests: ScriptedJudge['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url!.endsWith('/chat/completions')) return void res.writeHead(404).end();
      const parsed = JSON.parse(body) as { messages: { role: string; content: string }[]; temperature?: unknown };
      const system = parsed.messages.find((m) => m.role === 'system')?.content ?? '';
      const user = parsed.messages.find((m) => m.role === 'user')?.content ?? '';
      requests.push({ system, user, temperature: parsed.temperature });
      const rule = rules.find((r) => SYSTEMS[r.step] === system && user.includes(r.when));
      if (!rule || rule.status) {
        res.writeHead(rule?.status ?? 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: rule ? 'scripted failure' : `no scripted reply for: ${user.slice(0, 80)}` } }));
        return;
      }
      const content = typeof rule.reply === 'string' ? rule.reply : JSON.stringify(rule.reply);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const transport = httpTransport({ name: 'judge', provider: 'openai', baseUrl: `http://127.0.0.1:${port}/v1` }, undefined);
  return { judge: transportJudge(transport, 'judge-model', 5000), url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(() => r())) };
}
