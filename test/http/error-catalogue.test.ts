import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { Commands } from '../../src/commands.js';
import { ERROR_CATALOGUE, ERROR_CODES, isErrorCode } from '../../src/lib/errors.js';
import { buildOpenApiDocument, said } from '../../src/http/openapi.js';
import { apiRoutes } from '../../src/http/routes.js';
import type { Services } from '../../src/services.js';

const root = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every code the API can answer with, as the code throws it: the literal of each `new AppError(` and
 * of each `super(` in a class extending AppError, and the types the task workflow refuses an update
 * with (task-commands.ts passes them on as the API's answer). Each such call must give its code as a
 * literal, or be one of the few that pass a code on after checking it (`isErrorCode`).
 */
function thrownCodes(): Map<string, string[]> {
  const codes = new Map<string, string[]>();
  const note = (code: string, where: string) => codes.set(code, [...(codes.get(code) ?? []), where]);
  for (const file of [...sources(join(root, 'src')), ...sources(join(root, 'workflows'))]) {
    const text = readFileSync(file, 'utf8');
    const where = relative(root, file);
    const calls = [...text.matchAll(/new AppError\(\s*([^,]+),/g)];
    if (/extends AppError/.test(text)) calls.push(...text.matchAll(/super\(\s*([^,)]+)[,)]/g));
    for (const [, first] of calls) {
      const literal = /^'([A-Z_]+)'$/.exec(first!.trim());
      if (literal) note(literal[1]!, where);
      else
        assert.match(text, /isErrorCode\(/, `${where}: a code that is not a literal must be checked with isErrorCode`);
    }
    if (file.endsWith('task.workflow.ts'))
      for (const [, code] of text.matchAll(/ApplicationFailure\.create\(\{\s*type: '([A-Z_]+)'/g)) note(code!, where);
  }
  return codes;
}

describe('the error catalogue (src/lib/errors.ts)', () => {
  const document = buildOpenApiDocument(apiRoutes({} as Services, {} as Commands)) as any;
  const thrown = thrownCodes();

  it('holds every code thrown', () => {
    assert.ok(thrown.size >= 15, `found ${[...thrown.keys()]}`);
    for (const [code, where] of thrown)
      assert.ok(isErrorCode(code), `${code} (${where.join(', ')}) is not in the catalogue`);
  });

  it("is the OpenAPI document's list of error codes, and every code thrown is an operation's documented answer", () => {
    const listed = document.components.schemas.Error.properties.error.properties.code.enum;
    assert.deepEqual(listed, ERROR_CODES);
    for (const code of thrown.keys()) {
      if (!isErrorCode(code)) continue;
      const { status } = ERROR_CATALOGUE[code];
      const description = said(code);
      const documented = Object.values<Record<string, any>>(document.paths).some((ops) =>
        Object.values<any>(ops).some((op) => op.responses[String(status)]?.description.includes(description)),
      );
      if ('noOperation' in ERROR_CATALOGUE[code])
        assert.ok(
          document.components.schemas.Error.properties.error.properties.code.description.includes(description),
          `${code}: told with the code's values`,
        );
      else assert.ok(documented, `${code}: no operation documents it under HTTP ${status}`);
    }
  });
});
