// `fleethub template render FILE…`: try a template before putting it in a profile — with values as a
// chart sees them (.Values, helm's mode) or with a data document as the root object (Sveltos's mode).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { TemplateSet, type MissingKeyMode } from '../gotemplate/template.js';
import { parseYAML } from '../gotemplate/yaml.js';
import type { GoMap, GoValue } from '../gotemplate/value.js';
import { helmFunctions } from '../helm/functions.js';
import { readValues } from '../helm/render-template.js';
import { mergeValues } from '../helm/values.js';
import { ConfigError } from '../hub/config.js';

export const TEMPLATE_USAGE = `usage:
  fleethub template render FILE… [--values VALUES.yaml]… [--set key=value]… [--set-string key=value]…
                                  [--data DATA.yaml] [--missing-key default|zero|error]

  --values, -f   values files, merged in order, seen as .Values (as a chart sees them)
  --set          key=value overrides of .Values (helm's --set syntax)
  --data         a YAML or JSON document used as the root object "." (as Sveltos renders profiles)
  --missing-key  error: a missing map key fails the render (Sveltos); default: helm's behaviour
Files whose name starts with "_" only provide {{ define }}s; the others are rendered in order.`;

/** `fleethub template chart [NAME] CHART …`: what `helm template` prints, rendered in-process. */
export async function renderChartCommand(argv: string[]): Promise<string> {
  const positional: string[] = [];
  const values: string[] = [];
  const sets: { expr: string; asString: boolean }[] = [];
  const apiVersions: string[] = [];
  let namespace = 'default';
  let kubeVersion: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new ConfigError(`${flag} needs a value`);
      return v;
    };
    if (flag === '-n' || flag === '--namespace') namespace = value();
    else if (flag === '-f' || flag === '--values') values.push(value());
    else if (flag === '--set') sets.push({ expr: value(), asString: false });
    else if (flag === '--set-string') sets.push({ expr: value(), asString: true });
    else if (flag === '--kube-version') kubeVersion = value();
    else if (flag === '--api-versions' || flag === '-a') apiVersions.push(...value().split(','));
    else if (arg.startsWith('-')) throw new ConfigError(`unknown flag ${arg}`);
    else positional.push(arg);
  }
  if (positional.length === 0 || positional.length > 2) throw new ConfigError('expected [NAME] CHART');
  const chartDir = positional.at(-1)!;
  const releaseName = positional.length === 2 ? positional[0]! : 'release-name';
  const userValues = await userValuesFrom(values, sets);
  const { loadChartDir, renderChart } = await import('../helm/chart.js');
  const options: Parameters<typeof renderChart>[1] = {
    releaseName,
    namespace,
    values: userValues,
    apiVersions,
  };
  if (kubeVersion) options.kubeVersion = kubeVersion.startsWith('v') ? kubeVersion : `v${kubeVersion}`;
  return renderChart(loadChartDir(chartDir), options);
}

async function userValuesFrom(files: string[], sets: { expr: string; asString: boolean }[]): Promise<GoMap> {
  const values: GoMap = {};
  for (const file of files) mergeValues(values, readValues(readText(file)));
  if (sets.length > 0) {
    const { parseSet } = await import('../helm/strvals.js');
    for (const set of sets) {
      const parsed: GoMap = {};
      parseSet(set.expr, parsed, { stringValues: set.asString });
      mergeValues(values, parsed);
    }
  }
  return values;
}

export interface RenderTemplateArgs {
  files: string[];
  values: string[];
  sets: { expr: string; asString: boolean }[];
  data?: string;
  missingKey: 'helm' | MissingKeyMode;
}

export function parseTemplateArgs(argv: string[]): RenderTemplateArgs {
  const args: RenderTemplateArgs = { files: [], values: [], sets: [], missingKey: 'helm' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new ConfigError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--values':
      case '-f':
        args.values.push(value());
        break;
      case '--set':
        args.sets.push({ expr: value(), asString: false });
        break;
      case '--set-string':
        args.sets.push({ expr: value(), asString: true });
        break;
      case '--data':
        args.data = value();
        break;
      case '--missing-key': {
        const mode = value();
        if (mode !== 'default' && mode !== 'zero' && mode !== 'error')
          throw new ConfigError(`--missing-key must be default, zero or error, got "${mode}"`);
        args.missingKey = mode === 'default' ? 'helm' : mode;
        break;
      }
      default:
        if (arg.startsWith('-')) throw new ConfigError(`unknown flag ${arg}`);
        args.files.push(arg);
    }
  }
  if (args.files.length === 0) throw new ConfigError('give at least one template FILE');
  if (args.data !== undefined && (args.values.length > 0 || args.sets.length > 0))
    throw new ConfigError('--data replaces the root object; it cannot be combined with --values or --set');
  return args;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

/** Renders the files; throws the template engine's error (Go's wording) when rendering fails. */
export async function renderTemplateFiles(args: RenderTemplateArgs): Promise<string> {
  let root: GoValue;
  if (args.data !== undefined) {
    root = parseYAML(readText(args.data));
  } else {
    const values = await userValuesFrom(args.values, args.sets);
    root = {
      Values: values,
      Release: {
        Name: 'release-name',
        Namespace: 'default',
        Service: 'Helm',
        IsInstall: true,
        IsUpgrade: false,
        Revision: 1n,
      },
    };
  }
  const helmMode = args.missingKey === 'helm';
  const missingKey: MissingKeyMode = args.missingKey === 'helm' ? 'zero' : args.missingKey;
  const set = new TemplateSet({ funcs: helmFunctions(), missingKey });
  for (const file of args.files) set.parse(file, readText(file));
  const outputs: string[] = [];
  for (const file of args.files) {
    if (basename(file).startsWith('_')) continue;
    const out = set.execute(file, root);
    // helm blanks what a missing key printed; Sveltos's modes leave output as Go made it.
    outputs.push(helmMode ? out.replaceAll('<no value>', '') : out);
  }
  return outputs.join(outputs.length > 1 ? '---\n' : '');
}
