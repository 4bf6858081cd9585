/**
 * The two questions the grounded evaluators ask a judge: "which claims does this text make?" and
 * "is each claim supported, contradicted or not mentioned by these passages?" (or "relevant?"). Every
 * reply is read strictly: a reply that is not the JSON asked for — a claim without a verdict, a
 * supported/contradicted verdict that cites no passage, an unknown verdict word — is OFF-FORMAT, and
 * the caller leaves the run undetermined rather than guessing. Replies are capped before reading.
 */
import { quote } from './checkText';
import type { Judge } from './judgeChecks';
import { searchJson } from './jsonInText';
import { CLAIMS_SYSTEM, claimsUser, RELEVANCE_SYSTEM, relevanceUser, VERDICTS_SYSTEM, verdictsUser } from './judgePrompts';

const MAX_REPLY_CHARS = 50_000;
/** A judge that lists more claims than this is not believed (a looping model, an essay split per word). */
export const MAX_CLAIMS = 60;

export type ClaimVerdictKind = 'supported' | 'contradicted' | 'not mentioned';

export interface ClaimVerdict {
  claim: string;
  verdict: ClaimVerdictKind;
  /** 1-based passage the verdict rests on (always for supported/contradicted). */
  passage: number | null;
  reason: string;
}

/** A question the judge could not answer usably: why, in words. */
export interface JudgeProblem {
  problem: string;
}

async function ask(judge: Judge, system: string, user: string): Promise<{ reply: string } | JudgeProblem> {
  try {
    const reply = await judge([
      { role: 'system', content: system },
      { role: 'user', content: user },
    ]);
    return { reply: reply.length > MAX_REPLY_CHARS ? reply.slice(0, MAX_REPLY_CHARS) : reply };
  } catch (error) {
    return { problem: `the judge failed: ${(error as Error).message}` };
  }
}

function jsonObject(reply: string): Record<string, unknown> | undefined {
  const search = searchJson(reply);
  const value = search.found ? search.value : undefined;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const offFormat = (what: string, reply: string): JudgeProblem => ({ problem: `the judge answered off-format (${what}): ${quote(reply.trim(), 120)}` });

/** The claims a text makes, or that it refuses, or why the judge's answer is unusable. */
export async function extractClaims(judge: Judge, text: string, question?: string): Promise<{ claims: string[]; refusal: boolean } | JudgeProblem> {
  const asked = await ask(judge, CLAIMS_SYSTEM, claimsUser(text, question));
  if ('problem' in asked) return asked;
  const json = jsonObject(asked.reply);
  if (!json || !Array.isArray(json.claims) || !json.claims.every((c) => typeof c === 'string')) return offFormat('expected {"claims": [...]}', asked.reply);
  const claims = (json.claims as string[]).map((c) => c.trim()).filter((c) => c.length > 0);
  if (claims.length > MAX_CLAIMS) return { problem: `the judge listed ${claims.length} claims (more than ${MAX_CLAIMS} are not judged)` };
  return { claims, refusal: json.refusal === true };
}

const VERDICT_WORDS: Record<string, ClaimVerdictKind> = {
  supported: 'supported', yes: 'supported', contradicted: 'contradicted', no: 'contradicted',
  'not mentioned': 'not mentioned', idk: 'not mentioned', unknown: 'not mentioned', 'not supported': 'not mentioned',
};

/** One verdict per claim against the passages, each supported/contradicted one citing its passage. */
export async function judgeClaims(judge: Judge, claims: readonly string[], passages: readonly string[]): Promise<ClaimVerdict[] | JudgeProblem> {
  const asked = await ask(judge, VERDICTS_SYSTEM, verdictsUser(claims, passages));
  if ('problem' in asked) return asked;
  const json = jsonObject(asked.reply);
  if (!json || !Array.isArray(json.verdicts)) return offFormat('expected {"verdicts": [...]}', asked.reply);
  if (json.verdicts.length !== claims.length) return offFormat(`${json.verdicts.length} verdicts for ${claims.length} claims`, asked.reply);
  const verdicts: ClaimVerdict[] = [];
  for (const [i, raw] of json.verdicts.entries()) {
    const v = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const word = typeof v.verdict === 'string' ? VERDICT_WORDS[v.verdict.trim().toLowerCase().replace(/[_-]+/g, ' ')] : undefined;
    if (!word) return offFormat(`claim ${i + 1} has no verdict of supported, contradicted or not mentioned`, asked.reply);
    const passage = typeof v.passage === 'number' && Number.isInteger(v.passage) && v.passage >= 1 && v.passage <= passages.length ? v.passage : null;
    if (word !== 'not mentioned' && passage === null) return offFormat(`claim ${i + 1} is ${word} but cites no passage between 1 and ${passages.length}`, asked.reply);
    verdicts.push({ claim: claims[i]!, verdict: word, passage, reason: typeof v.reason === 'string' ? v.reason.slice(0, 300) : '' });
  }
  return verdicts;
}

/** Whether each item is relevant to the question. */
export async function judgeRelevance(judge: Judge, question: string, items: readonly string[]): Promise<{ item: string; relevant: boolean; reason: string }[] | JudgeProblem> {
  const asked = await ask(judge, RELEVANCE_SYSTEM, relevanceUser(question, items));
  if ('problem' in asked) return asked;
  const json = jsonObject(asked.reply);
  if (!json || !Array.isArray(json.verdicts)) return offFormat('expected {"verdicts": [...]}', asked.reply);
  if (json.verdicts.length !== items.length) return offFormat(`${json.verdicts.length} verdicts for ${items.length} items`, asked.reply);
  const out: { item: string; relevant: boolean; reason: string }[] = [];
  for (const [i, raw] of json.verdicts.entries()) {
    const v = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    if (typeof v.relevant !== 'boolean') return offFormat(`item ${i + 1} has no "relevant": true or false`, asked.reply);
    out.push({ item: items[i]!, relevant: v.relevant, reason: typeof v.reason === 'string' ? v.reason.slice(0, 300) : '' });
  }
  return out;
}
