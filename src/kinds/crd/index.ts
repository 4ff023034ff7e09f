// CustomResourceDefinitions: the CRD kind and CrdKinds, which serves each CRD's versions from a
// cluster's registry. Wiring: `await new CrdKinds(store, registry).start()` once per cluster.
export { CrdKinds, type CrdKindsOptions, type CrdKindsLogger } from './crd-kinds.js';
export {
  CustomResourceDefinition,
  CRD_GROUP,
  CRD_PLURAL,
  CRD_RESOURCE,
  CRD_VERSION,
  validateCrd,
  type CrdObject,
  type CrdSpec,
  type CrdVersion,
  type CrdStatus,
} from './definition.js';
export { kindsOfCrd } from './kinds.js';
export { customResourceSchema, type JsonSchemaProps } from './schema.js';
