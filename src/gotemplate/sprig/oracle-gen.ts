// Regenerates oracle.ts: renders every snippet in cases.ts with the real helm (4.1.4) in throwaway
// charts. Run from the repo root: node dist/src/gotemplate/sprig/oracle-gen.js [HELM]

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ORACLE_VALUES_YAML,
  SPRIG_CASES,
  SPRIG_ENGINE_CASES,
  SPRIG_ERROR_CASES,
  SPRIG_SHAPE_CASES,
} from './cases.js';

/**
 * One template file per snippet; the snippet renders inside a define and is printed as YAML comment
 * lines, so helm's YAML check accepts any output. Values: ORACLE_VALUES_YAML.
 */
function makeChart(tpls: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'sprig-oracle-'));
  mkdirSync(join(dir, 'templates'));
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: t\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'values.yaml'), ORACLE_VALUES_YAML);
  tpls.forEach((t, i) => {
    const body = `{{- define "case${i}" }}${t}{{ end -}}\n# {{ include "case${i}" . | replace "\\n" "\\n# " }}\n`;
    writeFileSync(join(dir, 'templates', `c${String(i).padStart(4, '0')}.yaml`), body);
  });
  return dir;
}

function helmTemplate(helm: string, dir: string): { out?: string; err?: string } {
  try {
    return {
      out: execFileSync(helm, ['template', 't', dir], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    };
  } catch (e) {
    return { err: String((e as { stderr?: unknown }).stderr ?? e) };
  }
}

export function generateOracle(helm: string): string {
  const all = [...SPRIG_CASES, ...SPRIG_SHAPE_CASES, ...SPRIG_ENGINE_CASES.map((tpl) => ({ tpl }))];
  const dir = makeChart(all.map((c) => c.tpl));
  const r = helmTemplate(helm, dir);
  rmSync(dir, { recursive: true });
  if (r.out === undefined) throw new Error(`helm failed on the success cases:\n${r.err ?? ''}`);
  const table: Record<string, string> = {};
  for (const doc of r.out.split(/^---\n/m)) {
    const m = /^# Source: t\/templates\/c(\d+)\.yaml\n([\s\S]*)$/.exec(doc);
    if (!m) continue;
    const body = m[2]!
      .replace(/\n$/, '')
      .split('\n')
      .map((x) => x.replace(/^# ?/, ''))
      .join('\n');
    table[all[Number(m[1])]!.tpl] = body;
  }
  // helm drops documents that render empty.
  for (const c of all) table[c.tpl] ??= '';
  const errors: Record<string, string | null> = {};
  for (const c of SPRIG_ERROR_CASES) {
    const d = makeChart([c.tpl]);
    const x = helmTemplate(helm, d);
    rmSync(d, { recursive: true });
    errors[c.tpl] = x.err !== undefined ? (x.err.trim().split('\n')[0] ?? '') : null;
  }
  return [
    '// Generated from helm 4.1.4 (`helm template`) by oracle-gen.ts rendering each case in cases.ts;',
    "// do not edit. Keys are template snippets; values are what helm printed (errors: helm's first line).",
    '',
    `export const HELM_OUTPUT: Record<string, string> = ${JSON.stringify(table, null, 2)};`,
    '',
    `export const HELM_ERRORS: Record<string, string | null> = ${JSON.stringify(errors, null, 2)};`,
    '',
  ].join('\n');
}

if (process.argv[1]?.endsWith('oracle-gen.js')) {
  const helm = process.argv[2] ?? '.tools/v35/helm';
  const out = 'src/gotemplate/sprig/oracle.ts';
  writeFileSync(out, generateOracle(helm));
  // The repo's lint checks formatting; the JSON above is not in prettier's style.
  execFileSync('npx', ['prettier', '--write', out], { stdio: 'ignore' });
}
