// parseGoDuration follows Go's time.ParseDuration and reports bad input with a typed error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DurationError, parseGoDuration } from './duration.js';

test('Go duration syntax in milliseconds', () => {
  assert.equal(parseGoDuration('10m'), 600_000);
  assert.equal(parseGoDuration('5m'), 300_000);
  assert.equal(parseGoDuration('1h30m'), 5_400_000);
  assert.equal(parseGoDuration('90s'), 90_000);
  assert.equal(parseGoDuration('500ms'), 500);
  assert.equal(parseGoDuration('1.5h'), 5_400_000);
  assert.equal(parseGoDuration('0'), 0);
  assert.equal(parseGoDuration('1500us'), 1);
  assert.equal(parseGoDuration('-2s'), -2000);
});

test('bad input is a DurationError naming the field and value', () => {
  for (const [input, why] of [
    ['', 'invalid duration'],
    ['10', 'missing unit'],
    ['5x', 'unknown unit'],
    ['m', 'invalid duration'],
    ['5 m', 'unknown unit'],
  ] as const) {
    assert.throws(
      () => parseGoDuration(input, 'spec.policyRefs[0].remoteURL.interval'),
      (e: unknown) => {
        assert.ok(e instanceof DurationError);
        assert.equal(e.code, 'InvalidDuration');
        assert.equal(e.field, 'spec.policyRefs[0].remoteURL.interval');
        assert.ok(e.message.startsWith('spec.policyRefs[0].remoteURL.interval: time: '), e.message);
        assert.ok(e.message.includes(why), e.message);
        return true;
      },
      input,
    );
  }
});
