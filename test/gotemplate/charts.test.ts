// Whole charts against helm: every CHART_RENDERS entry rendered in-process by `renderChartCommand` must
// print exactly what `helm template` (4.1.4) printed, or fail where helm failed, with helm's key message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderChartCommand } from '../../src/cli/template.js';
import { CHART_RENDERS, chartArgs, loadChartExpectation } from './corpus.js';

for (const r of CHART_RENDERS) {
  test(r.name, async () => {
    const expected = loadChartExpectation(r);
    const args = chartArgs(r.args);
    if ('output' in expected) {
      assert.equal(await renderChartCommand(args), expected.output);
      return;
    }
    // Only the part of the message that names the cause is pinned: helm's wrapping may differ.
    await assert.rejects(renderChartCommand(args), (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (r.messageIncludes !== undefined && !message.includes(r.messageIncludes))
        assert.fail(
          `want a message with ${JSON.stringify(r.messageIncludes)}, got ${JSON.stringify(message)}`,
        );
      return true;
    });
  });
}
