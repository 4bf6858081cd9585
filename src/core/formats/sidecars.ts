/**
 * Files that sit beside prompts but are not prompts: a prompt's test cases (`NAME.tests.yaml`,
 * core/adherence/testCases.ts) and a simulator scenario (`NAME.sim.yaml`, core/sim/scenario.ts).
 * `tokens examples/homes/*` names them too; counting them as prompts would report YAML as a message.
 */
export type SidecarKind = 'tests' | 'simulator scenario';

export function sidecarKind(fileName: string): SidecarKind | undefined {
  const lower = fileName.toLowerCase();
  if (/\.tests\.ya?ml$/.test(lower)) return 'tests';
  if (/\.sim\.ya?ml$/.test(lower)) return 'simulator scenario';
  return undefined;
}
