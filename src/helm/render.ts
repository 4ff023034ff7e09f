// `helm template` in-process: the install action's steps (dependency checks and processing, values
// coalescing, rendering, NOTES.txt removal, sorting) and the command's framing of what it prints.
import type { GoMap } from '../gotemplate/value.js';
import { tagMap } from '../gotemplate/sprig/cast.js';
import { copyChart, crdObjects, type Chart } from './chart.js';
import { coalesceValues } from './coalesce.js';
import { checkDependencies, isCompatibleRange, processDependencies } from './dependencies.js';
import { capabilitiesObject, DEFAULT_KUBE_VERSION, parseKubeVersion, renderTemplates } from './engine.js';
import { HelmChartError } from './errors.js';
import { sortManifests, type Hook, type Manifest } from './manifests.js';
import { validateAgainstSchema } from './schema.js';

export { HELM_VERSION } from './engine.js';
export { INSTALL_ORDER, splitManifests } from './manifests.js';

export interface RenderChartOptions {
  releaseName: string;
  namespace: string;
  /** User values (-f files and --set flags already merged as helm merges them; nulls kept). */
  values?: GoMap;
  /** `--kube-version`; helm 4.1.4 reports v1.35.0 without a cluster. */
  kubeVersion?: string;
  /** `--api-versions`: extra group/versions (or group/version/Kind) for .Capabilities.APIVersions.Has. */
  apiVersions?: string[];
  /** `--include-crds`: print the crds/ files of the chart and its subcharts first. */
  includeCrds?: boolean;
  /** `--skip-tests`: leave out hooks for the test event. */
  skipTests?: boolean;
  /** `--no-hooks`: leave out every hook. */
  noHooks?: boolean;
  /** `--is-upgrade`: .Release.IsUpgrade true and IsInstall false. */
  isUpgrade?: boolean;
  /** `--skip-schema-validation`: values.schema.json files are not checked. */
  skipSchemaValidation?: boolean;
}

/** What one render produced, before framing: CRDs, manifests and hooks in helm's order, and the notes. */
export interface RenderedRelease {
  crds: { filename: string; data: Buffer }[];
  manifests: Manifest[];
  hooks: Hook[];
  notes: string;
}

const RELEASE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validateReleaseName(name: string): void {
  if (name === '') throw new HelmChartError(`release name check failed: release name "": no name provided`);
  if (name.length > 53 || !RELEASE_NAME.test(name))
    throw new HelmChartError(
      `release name check failed: release name "${name}": invalid release name, must match regex ${RELEASE_NAME.source} and the length must not be longer than 53`,
    );
}

/** Renders a loaded chart as `helm template` would (the chart itself is never modified). */
export function renderRelease(loaded: Chart, options: RenderChartOptions): RenderedRelease {
  const type = loaded.metadata.type;
  if (type !== '' && type !== 'application') throw new HelmChartError(`${type} charts are not installable`);
  if (loaded.metadata.dependencies.length > 0) checkDependencies(loaded);
  validateReleaseName(options.releaseName);
  const userValues = options.values ?? {};
  const chart = copyChart(loaded);
  processDependencies(chart, userValues);
  const kube = options.kubeVersion ? parseKubeVersion(options.kubeVersion) : DEFAULT_KUBE_VERSION;
  const isUpgrade = options.isUpgrade ?? false;
  const top: GoMap = {
    Release: {
      Name: options.releaseName,
      Namespace: options.namespace,
      IsUpgrade: isUpgrade,
      IsInstall: !isUpgrade,
      Revision: 1n,
      Service: 'Helm',
    },
    Capabilities: capabilitiesObject(kube, options.apiVersions ?? []),
  };
  const values = coalesceValues(chart, userValues);
  const problems = options.skipSchemaValidation ? null : validateAgainstSchema(chart, values);
  if (problems !== null)
    throw new HelmChartError(
      `values don't meet the specifications of the schema(s) in the following chart(s):\n${problems}`,
    );
  top.Values = tagMap(values, 'common.Values');
  if (chart.metadata.kubeVersion !== '' && !isCompatibleRange(chart.metadata.kubeVersion, kube.normalized))
    throw new HelmChartError(
      `chart requires kubeVersion: ${chart.metadata.kubeVersion} which is incompatible with Kubernetes ${kube.version}`,
    );
  const files = renderTemplates(chart, top);
  // NOTES.txt renders like any template; helm then takes every file so named out (the root's are the notes).
  let notes = '';
  for (const [name, text] of files) {
    if (!name.endsWith('NOTES.txt')) continue;
    if (name === `${chart.metadata.name}/templates/NOTES.txt`)
      notes = notes === '' ? text : `${notes}\n${text}`;
    files.delete(name);
  }
  const { manifests, hooks } = sortManifests(files);
  return { crds: options.includeCrds ? crdObjects(chart) : [], manifests, hooks, notes };
}

/** Exactly what `helm template <release> <chart> -n <namespace> …` prints on stdout. */
export function renderChart(chart: Chart, options: RenderChartOptions): string {
  const release = renderRelease(chart, options);
  let manifest = '';
  for (const crd of release.crds)
    manifest += `---\n# Source: ${crd.filename}\n${crd.data.toString('utf8')}\n`;
  for (const m of release.manifests) manifest += `---\n# Source: ${m.path}\n${m.content}\n`;
  let out = `${manifest.trim()}\n`;
  if (!options.noHooks) {
    for (const h of release.hooks) {
      if (options.skipTests && h.events.includes('test')) continue;
      out += `---\n# Source: ${h.path}\n${h.content}\n`;
    }
  }
  return out;
}
