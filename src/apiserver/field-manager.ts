// managedFields bookkeeping for every write: which manager owns which fields (recordUpdate for
// create/update/patch, applyServerSide for apply), with each kind's list semantics.
import { apiVersionOf, type KindDefinition } from '../kinds/types.js';
import type { KubeObject } from '../store/types.js';
import { applyServerSide } from './patch/ssa.js';
import { recordUpdate, resetFieldsFor } from './patch/managedfields.js';
import { builtinTypeInfo, typeInfoFromSchema, type KindTypeInfo } from './patch/managedfields-types.js';

function isKubernetesGroup(group: string): boolean {
  return group === '' || group.endsWith('.k8s.io') || !group.includes('.');
}

export class FieldManager {
  private readonly typeInfos = new WeakMap<KindDefinition, KindTypeInfo>();

  private typeInfo(def: KindDefinition): KindTypeInfo {
    let info = this.typeInfos.get(def);
    if (!info) {
      info = isKubernetesGroup(def.group)
        ? builtinTypeInfo(def.group, def.kind)
        : typeInfoFromSchema(def.schema);
      this.typeInfos.set(def, info);
    }
    return info;
  }

  /** Sets `obj.metadata.managedFields` after a non-apply write by `manager`. */
  recordUpdate(
    def: KindDefinition,
    live: KubeObject | undefined,
    obj: KubeObject,
    manager: string,
    subresource: string,
  ): void {
    const entries = recordUpdate({
      live,
      updated: obj,
      manager,
      apiVersion: apiVersionOf(def),
      now: new Date(),
      subresource: subresource || undefined,
      typeInfo: this.typeInfo(def),
      resetFields: resetFieldsFor(def.subresources?.status === true, subresource || undefined),
    } as Parameters<typeof recordUpdate>[0]);
    if (entries.length > 0) obj.metadata.managedFields = entries;
    else delete obj.metadata.managedFields;
  }

  /** The object after `manager` applies `applied`; throws the 409 conflict Status. */
  apply(
    def: KindDefinition,
    live: KubeObject | undefined,
    applied: KubeObject,
    manager: string,
    force: boolean,
    subresource: string,
  ): KubeObject {
    const options: Parameters<typeof applyServerSide>[0] = {
      live,
      applied,
      manager,
      force,
      apiVersion: apiVersionOf(def),
      kind: def.kind,
      now: new Date(),
      typeInfo: this.typeInfo(def),
      resetFields: resetFieldsFor(def.subresources?.status === true, subresource || undefined),
    };
    if (subresource) options.subresource = subresource;
    return applyServerSide(options).object;
  }
}
