/** Why a line or a span of a trace file was left out (counted and said, never silently dropped). */
import type { JsonLineRefusal } from './importLines';

export type SkipReason =
  | JsonLineRefusal
  | 'not-traces-data'
  | 'corrupt-gzip'
  | 'bad-span'
  | 'bad-id'
  | 'bad-timestamps'
  | 'absurd-duration'
  | 'identity-too-long'
  | 'no-prompt-version'
  | 'absurd-ttft'
  | 'absurd-tokens';
