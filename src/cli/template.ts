// `fleethub template render FILE…`: try a template before putting it in a profile — with values as a
// chart sees them (.Values, helm's mode) or with a data document as the root object (Sveltos's mode).
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { TemplateSet, type MissingKeyMode } from '../gotemplate/template.js';
import { parseYAML } from '../gotemplate/yaml.js';
import { parseResource, sveltosFuncMap } from '../sveltos/template-functions.js';
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/value.js';
import { helmFunctions } from '../helm/functions.js';
import { ConfigError } from '../hub/config.js';
import { HelmChartError } from '../helm/errors.js';

export const TEMPLATE_USAGE = `usage:
  fleethub template render FILE… [--values VALUES.yaml]… [--set key=value]… [--set-string key=value]…
                                  [--data DATA.yaml] [--resource ID=OBJECT.yaml]… [--missing-key default|zero|error]

  --values, -f   values files, merged in order, seen as .Values (as a chart sees them)
  --set          key=value overrides of .Values (helm's --set syntax)
  --data         a YAML or JSON document used as the root object "." (as Sveltos renders profiles)
  --resource     a Kubernetes object (YAML or JSON) standing for the templateResourceRefs entry with
                 identifier ID: getResource/copy/getField/setField/removeField "ID" and .MgmtResources.ID
  --missing-key  error: a missing map key fails the render (Sveltos); default: helm's behaviour
With --data or --resource the template gets Sveltos's function map (sprig, toYaml…, getResource, copy,
getField, setField, removeField, chainSetField, chainRemoveField; no include/tpl/required/lookup).
Files whose name starts with "_" only provide {{ define }}s; the others are rendered in order.

  fleethub template chart [NAME] CHART [-n NS] [-f VALUES.yaml]… [--set k=v]… [--set-string k=v]…
                          [--kube-version V] [--api-versions G/V[/KIND]]… [--include-crds]
                          [--skip-tests] [--no-hooks] [--is-upgrade]

Prints exactly what \`helm template\` (helm 4.1.4) prints for CHART, a chart directory or a packaged .tgz,
with its subcharts, dependency conditions and tags, globals, crds/ and .helmignore.`;

/** `fleethub template chart [NAME] CHART …`: what `helm template` prints, rendered in-process. */
export async function renderChartCommand(argv: string[]): Promise<string> {
  const positional: string[] = [];
  const values: string[] = [];
  const sets: { expr: string; asString: boolean }[] = [];
  const apiVersions: string[] = [];
  let namespace = 'default';
  let kubeVersion: string | undefined;
  let includeCrds = false;
  let skipTests = false;
  let noHooks = false;
  let isUpgrade = false;
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
    else if (flag === '--include-crds') includeCrds = true;
    else if (flag === '--skip-tests') skipTests = true;
    else if (flag === '--no-hooks') noHooks = true;
    else if (flag === '--is-upgrade') isUpgrade = true;
    else if (arg.startsWith('-')) throw new ConfigError(`unknown flag ${arg}`);
    else positional.push(arg);
  }
  if (positional.length === 0 || positional.length > 2) throw new ConfigError('expected [NAME] CHART');
  const chartDir = positional.at(-1)!;
  const releaseName = positional.length === 2 ? positional[0]! : 'release-name';
  // helm locates the chart before it reads values files.
  if (!existsSync(chartDir)) throw new HelmChartError(`path "${chartDir}" not found`);
  const userValues = await userValuesFrom(values, sets);
  const { loadChart } = await import('../helm/chart.js');
  const { renderChart } = await import('../helm/render.js');
  const options: Parameters<typeof renderChart>[1] = {
    releaseName,
    namespace,
    values: userValues,
    apiVersions,
    includeCrds,
    skipTests,
    noHooks,
    isUpgrade,
  };
  if (kubeVersion !== undefined) options.kubeVersion = kubeVersion;
  return renderChart(loadChart(chartDir), options);
}

/** helm's values.Options.MergeValues: -f files merged in order (nulls kept for coalescing), then --set flags. */
async function userValuesFrom(files: string[], sets: { expr: string; asString: boolean }[]): Promise<GoMap> {
  const { loadValues, mergeMaps } = await import('../helm/chart.js');
  let values: GoMap = {};
  for (const file of files) {
    try {
      values = mergeMaps(values, loadValues(readText(file)));
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      throw new HelmChartError(`failed to parse ${file}: ${(e as Error).message}`);
    }
  }
  if (sets.length > 0) {
    const { parseSet } = await import('../helm/strvals.js');
    for (const set of sets) {
      try {
        parseSet(set.expr, values, { stringValues: set.asString });
      } catch (e) {
        throw new HelmChartError(`failed parsing --set data: ${(e as Error).message}`);
      }
    }
  }
  return values;
}

export interface RenderTemplateArgs {
  files: string[];
  values: string[];
  sets: { expr: string; asString: boolean }[];
  data?: string;
  /** templateResourceRefs stand-ins: identifier → object file. */
  resources: { id: string; file: string }[];
  missingKey: 'helm' | MissingKeyMode;
}

export function parseTemplateArgs(argv: string[]): RenderTemplateArgs {
  const args: RenderTemplateArgs = { files: [], values: [], sets: [], resources: [], missingKey: 'helm' };
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
      case '--resource': {
        const spec = value();
        const eqAt = spec.indexOf('=');
        if (eqAt <= 0 || eqAt === spec.length - 1)
          throw new ConfigError(
            `--resource takes ID=FILE (a templateResourceRefs identifier), got "${spec}"`,
          );
        const id = spec.slice(0, eqAt);
        if (args.resources.some((r) => r.id === id)) throw new ConfigError(`--resource ${id} given twice`);
        args.resources.push({ id, file: spec.slice(eqAt + 1) });
        break;
      }
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
  if (args.resources.length > 0 && (args.values.length > 0 || args.sets.length > 0))
    throw new ConfigError(
      '--resource renders as Sveltos does (no .Values); it cannot be combined with --values or --set',
    );
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
  // Sveltos's mode: the data document is the root, and the template gets Sveltos's function map.
  const sveltosMode = args.data !== undefined || args.resources.length > 0;
  const resources: GoMap = {};
  for (const { id, file } of args.resources) {
    try {
      resources[id] = parseResource(readText(file));
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      throw new ConfigError(`--resource ${id}: ${file}: ${(e as Error).message}`);
    }
  }
  if (sveltosMode) {
    root = args.data !== undefined ? parseYAML(readText(args.data)) : {};
    if (args.resources.length > 0) {
      if (!isGoMap(root)) throw new ConfigError('--resource needs the --data document to be a map');
      // The same objects the functions edit: in Sveltos .MgmtResources and getResource share them.
      root.MgmtResources = resources;
    }
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
  const funcs = sveltosMode
    ? sveltosFuncMap(resources, { log: (m) => process.stderr.write(`warning: ${m}\n`) })
    : helmFunctions();
  const set = new TemplateSet({ funcs, missingKey });
  for (const file of args.files) set.parse(file, readText(file));
  const outputs: string[] = [];
  for (const file of args.files) {
    if (basename(file).startsWith('_')) continue;
    let out: string;
    try {
      out = set.execute(file, root);
    } catch (e) {
      // required/fail mark their message for helm's formatter; here Go's full message is shown, unmarked.
      if (e instanceof Error) e.message = e.message.replace(/HELM_ERR_START([\s\S]*?)HELM_ERR_END/g, '$1');
      throw e;
    }
    // helm blanks what a missing key printed; Sveltos's modes leave output as Go made it.
    outputs.push(helmMode ? out.replaceAll('<no value>', '') : out);
  }
  return outputs.join(outputs.length > 1 ? '---\n' : '');
}
