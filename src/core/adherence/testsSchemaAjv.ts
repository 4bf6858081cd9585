/**
 * The Ajv that compiles the tests-file schema, in one place for both of its uses: the build turns the
 * schema into Ajv's standalone validation code once (testsSchemaStandalone.ts, esbuild.mjs), so the
 * tools never compile it as they start; tests from source compile it at first use (testsSchema.ts).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import schemaJson from '../../../schemas/tests.schema.json';

export function testsSchemaAjv(options: { standalone?: boolean } = {}): { ajv: Ajv; validate: ValidateFunction } {
  // verbose: each error carries its schema node, whose `errorMessage` words the finding.
  const ajv = new Ajv({ allErrors: true, verbose: true, logger: false, strict: true, strictTypes: false, strictRequired: false, ...(options.standalone ? { code: { source: true } } : {}) });
  // Annotations: the wording of findings (errorMessage) and the editor's hover of each value (enumDescriptions, as VS Code's JSON schemas have it).
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  return { ajv, validate: ajv.compile(schemaJson) };
}
