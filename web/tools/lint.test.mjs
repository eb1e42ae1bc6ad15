// node --test tools/ (scripts/web-test.sh): the web linter refuses planted violations of the
// module boundaries, linted as if they were files of the workspace (nothing is written).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const cwd = fileURLToPath(new URL('..', import.meta.url));
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';

// The rule reads Nx's cached project graph and skips itself without one (a fresh checkout,
// before any nx command ran): compute it first.
before(() => {
  execFileSync(fileURLToPath(new URL('../node_modules/.bin/nx', import.meta.url)), ['show', 'projects'], { cwd, stdio: 'ignore' });
});

async function problems(filePath, code, ruleId = '@nx/enforce-module-boundaries') {
  const eslint = new ESLint({ cwd });
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message);
}

test('a remote importing another remote is refused', async () => {
  const found = await problems('apps/gift/src/planted.tsx', "import { BuyPage } from '../../buy/src/BuyPage';\nexport const x = BuyPage;\n");
  assert.equal(found.length, 1, `expected one module-boundary error, got ${JSON.stringify(found)}`);
});

test('a library importing an app is refused', async () => {
  const found = await problems('libs/ui/src/planted.ts', "import { apiClient } from '../../../apps/buy/src/api';\nexport const x = apiClient;\n");
  assert.equal(found.length, 1, `expected one module-boundary error, got ${JSON.stringify(found)}`);
});

test('a remote importing a library through its alias passes', async () => {
  assert.deepEqual(await problems('apps/gift/src/planted.tsx', "import { Button } from '@hangar/ui';\nexport const x = Button;\n"), []);
});

test("an app's file over 400 lines is refused", async () => {
  const long = Array.from({ length: 401 }, (_, i) => `export const x${i} = ${i};`).join('\n') + '\n';
  assert.equal((await problems('apps/buy/src/planted.tsx', long, 'max-lines')).length, 1);
  assert.deepEqual(await problems('apps/buy/src/planted.tsx', long.split('\n').slice(-400).join('\n'), 'max-lines'), []);
});
