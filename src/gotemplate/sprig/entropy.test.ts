// The entropy seam: sprig's random and clock functions read the current source, a seeded source
// repeats itself, the system source does not, and a render's source never leaks past it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTemplate } from '../template.js';
import { sprigFunctions } from './index.js';
import { randomBelow, seededEntropy, withEntropy } from './entropy.js';

const TEXT = '{{ randAlphaNum 16 }} {{ uuidv4 }} {{ randInt 0 100000 }} {{ now | date "2006-01-02" }}';
const render = (): string => parseTemplate('t', TEXT, { funcs: sprigFunctions() }).execute('t', {});

test('a seeded source repeats; the system source does not', () => {
  const a = withEntropy(seededEntropy('k', Date.UTC(2030, 0, 2)), render);
  const b = withEntropy(seededEntropy('k', Date.UTC(2030, 0, 2)), render);
  assert.equal(a, b);
  assert.match(a, / 2030-01-02$/);
  assert.notEqual(a, withEntropy(seededEntropy('other', Date.UTC(2030, 0, 2)), render));
  assert.notEqual(render(), render());
});

test('the source is restored after a render, even a failing one', () => {
  assert.throws(() =>
    withEntropy(seededEntropy('k', 0), () => {
      throw new Error('boom');
    }),
  );
  assert.doesNotMatch(render(), / 1970-01-01$/);
});

test('randomBelow stays in range for small and large bounds', () => {
  withEntropy(seededEntropy('r', 0), () => {
    for (let i = 0; i < 1000; i++) {
      const x = randomBelow(7);
      assert.ok(x >= 0 && x < 7 && Number.isInteger(x));
    }
    const big = randomBelow(2 ** 40);
    assert.ok(big >= 0 && big < 2 ** 40);
  });
});
