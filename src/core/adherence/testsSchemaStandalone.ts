/** Build time only (esbuild.mjs): the tests-file schema's validator as Ajv's standalone code, bundled into dist/testsSchema.js. */
import standaloneCode from 'ajv/dist/standalone';
import { testsSchemaAjv } from './testsSchemaAjv';

export function testsValidatorSource(): string {
  const { ajv, validate } = testsSchemaAjv({ standalone: true });
  return standaloneCode(ajv, validate);
}
