// The fleet API the hub serves on top of the core kinds: clusters and hosts, their joins, the work
// delivered to clusters, and the certificate requests agents join with.
import type { KindDefinition } from '../types.js';
import { Cluster, FleetClusterJoin } from './cluster.js';
import { CertificateSigningRequest } from './csr.js';
import { FleetHostJoin, Host } from './host.js';
import { ManifestWork } from './manifestwork.js';

export { Cluster, FleetClusterJoin, FleetHostJoin, Host, ManifestWork, CertificateSigningRequest };
export { MAX_MANIFESTWORK_BYTES } from './manifestwork.js';

/** In discovery order. CertificateSigningRequest is Kubernetes' own kind; a real cluster serves it too. */
export const fleetKinds: readonly KindDefinition[] = [
  Cluster,
  FleetClusterJoin,
  Host,
  FleetHostJoin,
  ManifestWork,
  CertificateSigningRequest,
];
