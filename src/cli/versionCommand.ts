/**
 * `prompt-insight version FILE`: the id an application embeds at build time as `gen_ai.prompt.version`
 * (or its platform's version attribute), so production maps back to this text: the last commit that
 * touched the file when it is committed and unchanged; otherwise the content hash of each prompt as it
 * renders (`sha256:` + 16 hex digits), which production matches to whichever revision has that text.
 */
import { readFileSync } from 'node:fs';
import { committedRevisionOf } from '../core/telemetry/promptRevision';
import { contentLabels } from '../core/telemetry/prodVersions';
import { parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';
import { promptsOf } from '../core/formats/promptFile';
import { VERSION_USAGE } from './help/usage';

export async function versionCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prompt'], boolean: ['json'] });
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one prompt file\nusage: ${VERSION_USAGE}`);
  const file = args.positionals[0]!;
  const found = await promptsOf(file, stringFlag(args, 'prompt'));
  if ('error' in found) {
    io.stderr(`prompt-insight version: ${found.error}\n`);
    return 1;
  }
  const commit = await committedRevisionOf(file);
  const hashes = commit ? new Map<string, string>() : await contentLabels(file, readFileSync(file, 'utf8'));
  const versions = found.prompts.map((p) => ({ prompt: p.name, version: commit ?? hashes.get(p.name) ?? null }));
  if (args.flags.get('json')) {
    io.stdout(`${terminalJson({ file, kind: commit ? 'commit' : 'content-hash', versions })}\n`);
    return versions.every((v) => v.version !== null) ? 0 : 1;
  }
  for (const v of versions) io.stdout(versions.length > 1 ? `${v.prompt}\t${v.version ?? '(cannot be rendered)'}\n` : `${v.version ?? '(cannot be rendered)'}\n`);
  io.stderr(commit ? `The last commit of ${file}; the file is unchanged since. Set it as gen_ai.prompt.version.\n` : `${file} has changes that are not committed: its content hash instead (it matches the revision with this text once committed).\n`);
  return versions.every((v) => v.version !== null) ? 0 : 1;
}
