// The simulator's listener: one cluster at the root, or a fleet with each cluster under
// /clusters/<name>; HTTPS with a CA made at start (plain HTTP on loopback only), kubeconfigs, fault admin.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readBody } from '../apiserver/body.js';
import { writeError, writeJson } from '../apiserver/respond.js';
import { bearerToken } from '../security/authn.js';
import { renderKubeconfig } from '../security/kubeconfig.js';
import { ephemeralPki, tlsServerOptions, type Pki } from '../security/pki.js';
import { ApiError, errors } from '../util/errors.js';
import type { SimCluster } from './cluster.js';
import { parseFaultSpec } from './faults.js';

export interface SimServerOptions {
  host: string;
  port: number;
  /** Plain HTTP instead of TLS; only on a loopback address. */
  insecureHttp?: boolean;
  /** Serve the only cluster at `/` instead of `/clusters/<name>`. */
  single?: boolean;
}

const FAULTS_PATH = /^\/sim\/clusters\/([^/]+)\/faults$/;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** Hosts simulated clusters on one port. */
export class SimServer {
  private readonly clusters = new Map<string, SimCluster>();
  private server: Server | undefined;
  private pki: Pki | undefined;
  private baseUrl = '';

  constructor(private readonly options: SimServerOptions) {
    if (options.insecureHttp && !isLoopbackHost(options.host))
      throw new Error(`--insecure-http serves plain HTTP on loopback only, not on ${options.host}`);
  }

  add(cluster: SimCluster): void {
    if (this.options.single && this.clusters.size > 0)
      throw new Error('a single-cluster server serves one cluster');
    this.clusters.set(cluster.name, cluster);
  }

  get url(): string {
    return this.baseUrl;
  }

  /** The URL a client uses for one cluster. */
  clusterUrl(name: string): string {
    return this.options.single ? this.baseUrl : `${this.baseUrl}/clusters/${name}`;
  }

  async listen(): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.route(req, res).catch((e: unknown) => {
        if (!res.headersSent) writeError(res, e instanceof ApiError ? e : errors.internal(String(e)));
        else res.destroy();
      });
    };
    if (this.options.insecureHttp) {
      this.server = createHttpServer(handler);
    } else {
      const host = this.options.host;
      const isIp = /^[\d.]+$/.test(host) || host.includes(':');
      this.pki = await ephemeralPki({
        commonName: 'fleethub-sim-ca',
        ...(isIp ? { ips: [host].filter((h) => h !== '0.0.0.0' && h !== '::') } : { hostnames: [host] }),
      });
      this.server = createHttpsServer(tlsServerOptions(this.pki), handler);
    }
    const server = this.server;
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.options.host, port: this.options.port, backlog: 4096 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const shownHost =
      this.options.host === '0.0.0.0'
        ? '127.0.0.1'
        : this.options.host.includes(':')
          ? `[${this.options.host}]`
          : this.options.host;
    this.baseUrl = `${this.options.insecureHttp ? 'http' : 'https'}://${shownHost}:${port}`;
  }

  /** A kubeconfig for one cluster: its URL, the CA (TLS), and its token (cluster-admin). */
  kubeconfig(name: string): string {
    const cluster = this.clusters.get(name);
    if (!cluster) throw new Error(`no simulated cluster ${name}`);
    return renderKubeconfig({
      server: this.clusterUrl(name),
      caPem: this.pki?.ca.certPem ?? '',
      token: cluster.token,
      user: `${name}-admin`,
      context: name,
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    const faults = FAULTS_PATH.exec(path);
    if (faults) return this.faultsAdmin(req, res, decodeURIComponent(faults[1]!));
    if (this.options.single) {
      const only = this.clusters.values().next().value;
      if (!only) throw errors.serviceUnavailable('no cluster yet');
      return only.handle(req, res, path);
    }
    const m = /^\/clusters\/([^/]+)(\/.*)?$/.exec(path);
    const cluster = m ? this.clusters.get(decodeURIComponent(m[1]!)) : undefined;
    if (!m || !cluster) throw errors.pathNotFound();
    return cluster.handle(req, res, m[2] ?? '/');
  }

  /** GET shows, PUT replaces a cluster's faults; the caller proves itself with that cluster's token. */
  private async faultsAdmin(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    const cluster = this.clusters.get(name);
    if (!cluster) throw errors.notFound('clusters', 'sim.fleethub.io', name);
    if (!this.options.insecureHttp && bearerToken(req.headers.authorization) !== cluster.token)
      throw errors.unauthorized();
    if (req.method === 'GET') return writeJson(res, 200, cluster.faults.spec as object);
    if (req.method !== 'PUT') throw errors.methodNotAllowed();
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readBody(req)).toString('utf8') || '{}');
    } catch {
      throw errors.badRequest('the fault spec is not valid JSON');
    }
    cluster.faults.set(parseFaultSpec(parsed));
    writeJson(res, 200, cluster.faults.spec as object);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await Promise.all([...this.clusters.values()].map((c) => c.close()));
  }
}
