/**
 * What a gray-release decision (`prod --decide`, the editor's *Decide Gray Release*) reads from the base's side, never from the working copy (in CD the working copy is
 * the change being rolled out, and could otherwise pick its own baseline): the version table that says which
 * revision the base is — at --registry-rev, else the branch being released into — and that revision's policy
 * and checks; the head's only when asked (`--policy head`), applied deliberately and listed, as compare does.
 */
import type { LabelsAt } from '../compare/revisionDeclarations';
import { basename } from 'node:path';
import type { TestSuite } from '../adherence/testCases';
import { loadGatePolicy, type PolicyOrigin } from '../compare/gatePolicy';
import { loadRevisionSources } from '../compare/revisionSources';
import { WORKING_REVISION } from '../history/fileHistory';
import { GitError } from '../history/git';
import { namedRevision, releaseBranch, type NamedRevision } from '../history/releaseBranch';
import { policyText, type RolloutPolicy } from '../rollout/scenario';
import { SloError } from '../rollout/slo';
import { findVersion } from '../telemetry/prodFromTraces';
import type { ProdReport } from '../telemetry/prodReport';
import type { FileVersions, RegistryReading, VersionTable } from '../telemetry/prodVersions';
import { registryPathFor } from '../telemetry/versionResolver';
import { versionTableAt } from '../telemetry/versionTableAt';

/**
 * Why the base's side cannot be read: no branch being released into, a named revision that is none, or a
 * policy (SLOs) that does not parse. Each face words it for its own controls (the CLI names its flags).
 */
export class ReleaseError extends Error {
  constructor(
    message: string,
    readonly kind: 'no-release-branch' | 'bad-registry-revision' | 'bad-policy',
  ) {
    super(message);
  }
}

export interface DecideFlags {
  base: string;
  head: string;
  failOnRegression: boolean;
  policyFrom: PolicyOrigin;
  registryRev?: string;
}

/** The version table at --registry-rev, else the branch being released into; undefined outside a repository (no label maps through a table there). */
export async function baseVersionTable(file: string, registryRev: string | undefined, versions: FileVersions, signal?: AbortSignal): Promise<VersionTable | undefined> {
  if (!versions.repoRoot) return undefined;
  const at = await registryRevision(file, registryRev, versions.repoRoot, signal);
  return versionTableAt(file, versions, at, signal);
}

async function registryRevision(file: string, registryRev: string | undefined, repoRoot: string, signal?: AbortSignal): Promise<NamedRevision> {
  const call = signal ? { signal } : {};
  if (registryRev !== undefined) {
    try {
      return await namedRevision(repoRoot, registryRev, call);
    } catch (error) {
      if (error instanceof GitError && error.kind === 'bad-revision') throw new ReleaseError(`'${registryRev}' is not a commit in this repository: name the branch being released into (for example origin/main) or a commit`, 'bad-registry-revision');
      throw error;
    }
  }
  const branch = await releaseBranch(repoRoot, call);
  if (!branch) throw new ReleaseError(`the decision reads ${basename(registryPathFor(file))} from the branch being released into, and HEAD has no upstream branch and there is no origin/HEAD`, 'no-release-branch');
  return branch;
}

/** The judging policy and checks with what was said about them, or why they cannot be read. */
export type DecisionGate = { suite: TestSuite; policy: RolloutPolicy; notes: string[]; labels?: LabelsAt } | { unreadable: string };

export async function decisionGate(file: string, decide: DecideFlags, report: ProdReport, fileVersions: FileVersions, promptName: string | undefined, signal?: AbortSignal): Promise<DecisionGate> {
  const baseRev = findVersion(report.versions, decide.base)?.revision ?? null;
  const headRev = findVersion(report.versions, decide.head)?.revision ?? null;
  if (baseRev === null) return { unreadable: `version ${decide.base} is not in ${file}'s git history: its policy cannot be read` };
  // The working copy is the change's side: a base matched to it has no policy of the base's side.
  if (baseRev === WORKING_REVISION) return { unreadable: `version ${decide.base} is the working copy's text, not a commit: its policy cannot be read from the base's side` };
  if (decide.policyFrom === 'head' && headRev === null) return { unreadable: `version ${decide.head} is not in ${file}'s git history: its policy cannot be read (judging with the head's tests)` };
  // With the head's revision too, the head's stricter SLOs tighten the gate and what it relaxes is listed.
  const revs = headRev !== null && headRev !== baseRev ? [baseRev, headRev] : [baseRev];
  const { sources, history } = await loadRevisionSources(file, revs, signal ? { signal } : {});
  const repoRoot = history?.repoRoot ?? fileVersions.repoRoot;
  try {
    const gate = await loadGatePolicy(sources, { file, ...(promptName ? { promptName } : {}), ...(repoRoot ? { repoRoot } : {}), ...(signal ? { signal } : {}) }, { from: decide.policyFrom });
    const judge = decide.policyFrom === 'head' ? `${decide.head}'s policy (judged with the head's tests, as asked)` : `${decide.base}'s policy`;
    return { suite: gate.suite, policy: gate.policy, ...(gate.labels ? { labels: gate.labels } : {}), notes: [...gate.changes.map((c) => `policy change: ${c.text} (${c.why})`), `decided under ${judge}: ${policyText(gate.policy)}`] };
  } catch (error) {
    if (error instanceof SloError) throw new ReleaseError(error.message, 'bad-policy');
    throw error;
  }
}

/** `version table: homes.versions.yaml at origin/main (1a2b3c4d5e), not the working copy`. */
export function registryLine(r: RegistryReading): string {
  const at = `${r.revision} (${r.commit.slice(0, 10)})`;
  return r.found ? `version table: ${r.file} at ${at}, not the working copy` : `version table: none, ${r.file} is not at ${at}: labels map to commits and content only (the working copy's is not read)`;
}
