// Sveltos's driftExclusions as the work's ignoreFields: a path a profile excludes from drift detection
// keeps what the cluster changed it to (OCM's OnSpokeChange) until the profile's own content changes.
import { compileSelector, type PatchSelector } from '../../addons/content/patches.js';
import type { JsonObject } from '../../apiserver/patch/json.js';
import { identityOf } from '../../addons/ownership.js';

export interface DriftExclusion {
  paths?: string[];
  target?: PatchSelector;
}

export interface ManifestConfig {
  resourceIdentifier: { group: string; resource: string; namespace: string; name: string };
  updateStrategy: {
    type: 'ServerSideApply';
    serverSideApply: { ignoreFields: { condition: 'OnSpokeChange'; jsonPaths: string[] }[] };
  };
}

/** `/spec/replicas` (a JSON pointer, as Sveltos writes them) or `spec.replicas` → `.spec.replicas`. */
export function dottedPath(path: string): string {
  if (!path.startsWith('/')) return path.startsWith('.') ? path : `.${path}`;
  return path
    .split('/')
    .slice(1)
    .map((p) => `.${p.replaceAll('~1', '/').replaceAll('~0', '~')}`)
    .join('');
}

/**
 * One manifestConfig per delivered object some exclusion targets (no target: every object), with all the
 * paths that apply to it. `resourceOf` names the object's resource (plural) as the agent will find it.
 */
export function manifestConfigsFor(
  exclusions: readonly DriftExclusion[],
  manifests: readonly JsonObject[],
  resourceOf: (obj: JsonObject) => string,
): ManifestConfig[] {
  const compiled = exclusions.flatMap((e, i) => {
    try {
      return [
        {
          paths: (e.paths ?? []).map(dottedPath),
          matches: e.target ? compileSelector(e.target, i) : () => true,
        },
      ];
    } catch {
      return []; // admission checked the targets; one that slipped through excludes nothing
    }
  });
  const out: ManifestConfig[] = [];
  for (const m of manifests) {
    const paths = [...new Set(compiled.filter((c) => c.matches(m)).flatMap((c) => c.paths))];
    if (paths.length === 0) continue;
    const id = identityOf(m, resourceOf(m));
    out.push({
      resourceIdentifier: { group: id.group, resource: id.resource, namespace: id.namespace, name: id.name },
      updateStrategy: {
        type: 'ServerSideApply',
        serverSideApply: { ignoreFields: [{ condition: 'OnSpokeChange', jsonPaths: paths }] },
      },
    });
  }
  return out;
}
